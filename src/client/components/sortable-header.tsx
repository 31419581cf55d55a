import { ArrowDownIcon, ArrowUpDownIcon, ArrowUpIcon } from 'lucide-react';

interface SortableHeaderProps<S extends string> {
  label: string;
  sort: S;
  /** The table's current sort and direction. */
  current: { sort: S; direction: 'asc' | 'desc' };
  onSort: (sort: S) => void;
  /** The button's tooltip ("Sort by Spent"). */
  title: string;
  align?: 'left' | 'right';
}

/** A column heading that sorts the table on the server: click once for this column, again to reverse it. */
export function SortableHeader<S extends string>({ label, sort, current, onSort, title, align = 'left' }: SortableHeaderProps<S>) {
  const active = current.sort === sort;
  const Icon = !active ? ArrowUpDownIcon : current.direction === 'asc' ? ArrowUpIcon : ArrowDownIcon;
  return (
    <th scope="col" aria-sort={active ? (current.direction === 'asc' ? 'ascending' : 'descending') : 'none'} className={align === 'right' ? 'text-right' : ''}>
      <button
        type="button"
        className={`inline-flex items-center gap-1 font-semibold hover:text-base-content ${align === 'right' ? 'flex-row-reverse' : ''} ${active ? 'text-base-content' : ''}`}
        onClick={() => onSort(sort)}
        title={title}
        data-testid={`sort-${sort}`}
      >
        {label}
        <Icon className={`size-3.5 ${active ? '' : 'opacity-40'}`} aria-hidden="true" />
      </button>
    </th>
  );
}
