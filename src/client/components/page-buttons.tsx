import { ChevronLeftIcon, ChevronRightIcon } from 'lucide-react';

interface PageButtonsProps {
  page: number;
  pages: number;
  onPage: (page: number) => void;
  /** "Page 2 of 14", already in the user's language. */
  pageText: string;
  previousLabel: string;
  nextLabel: string;
}

/** Previous / "page x of y" / next of a table paged on the server. */
export function PageButtons({ page, pages, onPage, pageText, previousLabel, nextLabel }: PageButtonsProps) {
  return (
    <div className="join">
      <button type="button" className="btn btn-sm join-item" onClick={() => onPage(page - 1)} disabled={page <= 1} aria-label={previousLabel} data-testid="page-previous">
        <ChevronLeftIcon className="size-4" aria-hidden="true" />
      </button>
      <span className="btn btn-sm join-item pointer-events-none tabular-nums" data-testid="page-indicator" aria-live="polite">
        {pageText}
      </span>
      <button type="button" className="btn btn-sm join-item" onClick={() => onPage(page + 1)} disabled={page >= pages} aria-label={nextLabel} data-testid="page-next">
        <ChevronRightIcon className="size-4" aria-hidden="true" />
      </button>
    </div>
  );
}
