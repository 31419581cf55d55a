import type { ReactNode } from 'react';

/** The header row of an account screen: its title, one line on what it is for, optional actions. */
export function PageHeader({ title, description, actions }: { title: string; description: string; actions?: ReactNode }) {
  return (
    <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
      <div className="min-w-0">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{title}</h1>
        <p className="text-base-content/70 mt-1 max-w-2xl">{description}</p>
      </div>
      {actions && <div className="flex shrink-0 flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

/** A spinner that says what it is waiting for (to screen readers too). */
export function InlineLoading({ label }: { label: string }) {
  return (
    <div className="flex items-center justify-center gap-3 py-10" role="status" aria-live="polite">
      <span className="loading loading-spinner loading-md text-primary" aria-hidden="true" />
      <span className="text-base-content/70 text-sm">{label}</span>
    </div>
  );
}
