import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LogOutIcon } from '../components/icons.tsx';

/** Logging out is a navigation: GET /api/logout ends the session and redirects to /auth. */
export function LogoutButton() {
  const { t } = useTranslation();
  const [loggingOut, setLoggingOut] = useState(false);
  const label = loggingOut ? t('layout.loggingOut') : t('layout.logout');
  return (
    <button
      type="button"
      className="btn btn-sm btn-ghost gap-2 max-sm:btn-square"
      title={label}
      disabled={loggingOut}
      aria-busy={loggingOut}
      onClick={() => {
        setLoggingOut(true);
        window.location.href = '/api/logout';
      }}
    >
      {loggingOut ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <LogOutIcon className="text-base" />}
      {/* Below 640 px the header keeps only the icon; the text stays for screen readers. */}
      <span className="sr-only sm:not-sr-only">{label}</span>
    </button>
  );
}
