import type { ReactNode } from 'react';

/**
 * A list's rows as cards on phones (hidden from md up, where the table shows them): each card is a
 * button that opens the row, like the table's rows do.
 */
export function RowCards<Row extends { id: number | string }>({
  rows, testId, cardTestId, idAttribute, onOpen, children,
}: {
  rows: readonly Row[];
  testId: string;
  cardTestId: string;
  /** The data attribute that carries the row's id, e.g. 'data-order-id'. */
  idAttribute: `data-${string}`;
  onOpen: (id: Row['id']) => void;
  children: (row: Row) => ReactNode;
}) {
  return (
    <ul className="space-y-2 md:hidden" data-testid={testId}>
      {rows.map((row) => (
        <li key={row.id}>
          <button
            type="button"
            className="bg-base-100 border-base-content/10 rounded-box hover:border-primary/40 w-full border p-3 text-left shadow-xs"
            onClick={() => onOpen(row.id)}
            data-testid={cardTestId}
            {...{ [idAttribute]: row.id }}
          >
            {children(row)}
          </button>
        </li>
      ))}
    </ul>
  );
}
