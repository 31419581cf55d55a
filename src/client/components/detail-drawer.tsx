import { XIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { DataError } from './data-page.tsx';
import { Modal } from './modal.tsx';

interface DetailDrawerProps {
  open: boolean;
  onClose: () => void;
  /** The id of the heading, which names the dialog. */
  titleId: string;
  title: ReactNode;
  /** Under the title once the detail has loaded (a date, badges, an e-mail). */
  subtitle?: ReactNode;
  closeLabel: string;
  loadingLabel: string;
  /** The detail's query: its error with a retry, a skeleton while it loads, then `children`. */
  query: { isError: boolean; error: unknown; refetch: () => unknown; data: unknown };
  testId: string;
  children: ReactNode;
}

/** The detail of one row of a list in a panel on the right (a modal <dialog>: Escape, the backdrop and × close it, focus stays inside). */
export function DetailDrawer({ open, onClose, titleId, title, subtitle, closeLabel, loadingLabel, query, testId, children }: DetailDrawerProps) {
  return (
    <Modal open={open} titleId={titleId} onClose={onClose} variant="drawer" testId={testId}>
      <header className="border-base-content/10 flex items-start justify-between gap-3 border-b px-5 py-4">
        <div className="min-w-0">
          <h2 id={titleId} className="truncate text-lg font-semibold">
            {title}
          </h2>
          {subtitle}
        </div>
        <button type="button" className="btn btn-ghost btn-sm btn-square" onClick={onClose} aria-label={closeLabel}>
          <XIcon aria-hidden="true" />
        </button>
      </header>
      <div className="flex-1 space-y-6 overflow-y-auto px-5 py-5">
        {query.isError ? (
          <DataError error={query.error} onRetry={() => void query.refetch()} />
        ) : !query.data ? (
          <div className="space-y-3" role="status" aria-label={loadingLabel}>
            <div className="skeleton h-24 rounded-box" />
            <div className="skeleton h-40 rounded-box" />
          </div>
        ) : (
          children
        )}
      </div>
    </Modal>
  );
}

/** A titled part of a drawer. */
export function DrawerSection({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section data-testid={testId}>
      <h3 className="text-base-content/70 mb-2 text-xs font-semibold tracking-wide uppercase">{title}</h3>
      {children}
    </section>
  );
}
