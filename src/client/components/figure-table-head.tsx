import type { ReactNode } from 'react';
import { useScrollEdges } from '../lib/scroll-edges.ts';

/** A figure column of {@link FigureTableHead}: its label, and classes replacing the default `text-right`. */
export interface FigureColumn {
  label: string;
  className?: string;
  title?: string;
}

/**
 * The header row of a compact table whose first column names each row and whose other columns hold
 * figures, right-aligned unless a column says otherwise.
 */
export function FigureTableHead({ first, figures }: { first: string; figures: (string | FigureColumn)[] }) {
  return (
    <thead>
      <tr>
        <th scope="col">{first}</th>
        {figures.map((figure, index) => {
          const { label, className = 'text-right', title } = typeof figure === 'string' ? { label: figure } : figure;
          return (
            <th key={index} scope="col" className={className} title={title}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/**
 * A table's scroll box inside its card: it scrolls sideways (and down, when `scrollClassName` caps its
 * height) and fades the edge where more rows or columns are cut off, so the cut reads as "scroll"
 * rather than as clipped content.
 */
export function TableScroll({ children, className = '', scrollClassName = '', testId }: { children: ReactNode; className?: string; scrollClassName?: string; testId?: string }) {
  const { ref: box, edges } = useScrollEdges<HTMLDivElement>();
  const fade = 'pointer-events-none absolute z-20 transition-opacity duration-150';
  return (
    <div className={`relative min-w-0 ${className}`} data-testid={testId} data-scroll-left={edges.left} data-scroll-right={edges.right} data-scroll-bottom={edges.bottom}>
      <div ref={box} className={`overflow-x-auto ${scrollClassName}`}>
        {children}
      </div>
      <div aria-hidden="true" className={`${fade} from-base-100 inset-y-0 left-0 w-8 bg-linear-to-r to-transparent shadow-[inset_8px_0_8px_-8px_rgb(0_0_0/0.25)] ${edges.left ? 'opacity-100' : 'opacity-0'}`} />
      <div aria-hidden="true" className={`${fade} from-base-100 inset-y-0 right-0 w-8 bg-linear-to-l to-transparent shadow-[inset_-8px_0_8px_-8px_rgb(0_0_0/0.25)] ${edges.right ? 'opacity-100' : 'opacity-0'}`} />
      <div aria-hidden="true" className={`${fade} from-base-100 inset-x-0 bottom-0 h-14 bg-linear-to-t to-transparent shadow-[inset_0_-10px_8px_-8px_rgb(0_0_0/0.25)] ${edges.bottom ? 'opacity-100' : 'opacity-0'}`} />
    </div>
  );
}
