import { useTranslation } from 'react-i18next';
import { EyeIcon, LogOutIcon } from 'lucide-react';
import { toast } from '../components/toast.tsx';
import { serverMessage } from '../lib/session.ts';
import { trpc } from '../lib/trpc.ts';

/** Above the header while an admin views a user's data: who, and the way out (POST /api/admin/exit-guest-mode, then reload). */
export function GuestBanner({ name }: { name: string }) {
  const { t } = useTranslation('shell');
  const exit = trpc.admin.exitGuestMode.useMutation({
    onSuccess: () => window.location.reload(),
    onError: (error) => {
      toast({ title: t('toast.error'), description: serverMessage(error) ?? t('guest.exitFailed'), variant: 'destructive' });
    },
  });
  return (
    <div className="bg-warning text-warning-content" role="region" aria-label={t('guest.viewingAs', { name })} data-testid="guest-banner">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 px-4 py-2 sm:px-6">
        <p className="flex min-w-0 items-center gap-2 text-sm">
          <EyeIcon className="shrink-0 text-base" />
          <span className="truncate font-semibold">{t('guest.viewingAs', { name })}</span>
          <span className="hidden sm:inline">{t('guest.readOnly')}</span>
        </p>
        <button
          type="button"
          className="btn btn-sm border-warning-content/30 bg-warning-content/10 text-warning-content hover:bg-warning-content/20 gap-1.5"
          disabled={exit.isPending}
          onClick={() => exit.mutate()}
        >
          {exit.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <LogOutIcon />}
          {exit.isPending ? t('guest.exiting') : t('guest.exit')}
        </button>
      </div>
    </div>
  );
}
