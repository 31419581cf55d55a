import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Small building blocks shared by the admin console and the guest pages (guest users, manage users,
 * accept invite): page header, loading and error blocks and dates.
 */

export function PageHeader({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-2xl font-bold tracking-tight wrap-break-word sm:text-3xl">{title}</h1>
        {description && <p className="text-base-content/75 mt-1 max-w-3xl">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

export function LoadingBlock({ label }: { label: string }) {
  return (
    <div className="flex items-center justify-center gap-3 px-4 py-10" role="status" aria-live="polite">
      <span className="loading loading-spinner loading-md text-primary" aria-hidden="true" />
      <span className="text-base-content/70 text-sm">{label}</span>
    </div>
  );
}

export function ErrorBlock({ message, retryLabel, onRetry }: { message: string; retryLabel: string; onRetry?: () => void }) {
  return (
    <div role="alert" className="alert alert-error alert-soft">
      <span className="min-w-0 break-words">{message}</span>
      {onRetry && (
        <button type="button" className="btn btn-sm" onClick={onRetry}>
          {retryLabel}
        </button>
      )}
    </div>
  );
}

/** A titled card section with an optional badge or action on the right of its heading. */
export function Section({
  id,
  title,
  aside,
  children,
  className = '',
}: {
  id: string;
  title: ReactNode;
  aside?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card bg-base-100 border-base-content/10 min-w-0 border shadow-sm ${className}`} aria-labelledby={id}>
      <div className="border-base-content/10 flex flex-wrap items-center justify-between gap-2 border-b px-4 py-3 sm:px-5">
        <h2 id={id} className="font-semibold">
          {title}
        </h2>
        {aside}
      </div>
      {children}
    </section>
  );
}

/** Dates in the interface language: "21 Nov 2026", "21 Nov 2026, 09:30". */
export function useDates() {
  const { i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? i18n.language ?? 'en';
  const date = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' });
  const dateTime = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
  return {
    locale,
    date: (iso: string) => date.format(new Date(iso)),
    dateTime: (iso: string) => dateTime.format(new Date(iso)),
    /** Whole days from now until the moment, at least 0 ("expires in 6 days"). */
    daysUntil: (iso: string) => Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 86_400_000)),
  };
}
