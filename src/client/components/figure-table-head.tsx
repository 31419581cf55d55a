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
