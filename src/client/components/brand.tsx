import type { SVGProps } from 'react';
import { useTranslation } from 'react-i18next';

/** The StorePulse pulse mark (no lucide equivalent): a 24 px line icon at 1em, decorative. */
export function PulseIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      width="1em"
      height="1em"
      {...props}
    >
      <path d="M3 12h4l3-8 4 16 3-8h4" />
    </svg>
  );
}

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
