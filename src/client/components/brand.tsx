import { useTranslation } from 'react-i18next';
import { PulseIcon } from './icons.tsx';

/** The StorePulse mark and name. */
export function Brand({ size = 'md' }: { size?: 'md' | 'lg' }) {
  const { t } = useTranslation();
  const large = size === 'lg';
  return (
    <span className="inline-flex items-center gap-2.5">
      <span
        className={`bg-primary text-primary-content grid place-items-center rounded-xl shadow-sm ${large ? 'size-11 text-2xl' : 'size-8 text-lg'}`}
      >
        <PulseIcon strokeWidth={2.5} />
      </span>
      <span className={`font-bold tracking-tight ${large ? 'text-3xl' : 'text-lg'}`}>{t('app.name')}</span>
    </span>
  );
}
