// CSV as RFC 4180 writes it (CRLF line ends, quotes doubled inside quoted cells), for every export the
// product offers: the server's downloads (orders, P&L, reports) and the screens' own (touchpoints, cohorts).
export type CsvCell = string | number | boolean | null | undefined;

/**
 * Spreadsheet programs run a cell that starts with one of these as a formula; an export must never
 * carry a formula an attacker wrote into an order note or a product title (OWASP "CSV injection").
 */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

function isNumeric(value: string): boolean {
  return /^-?\d+(\.\d+)?$/.test(value);
}

/** One cell: numbers as they are; text guarded against formulas and quoted when it needs to be. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = String(value);
  if (text.length > 0 && FORMULA_TRIGGERS.has(text[0]!) && !isNumeric(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export function csvDocument(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  let text = csvRow(header);
  for (const row of rows) text += csvRow(row);
  return text;
}
