import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';

// CSV as RFC 4180 writes it (CRLF line ends, quotes doubled inside quoted cells), for every export the
// product offers (orders, P&L, reports).

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

/**
 * A readable stream of CSV text from batches of rows fetched on demand (keyset pages, a cursor), so an
 * export of any size never sits in memory: the next batch is read only when the client has taken the last.
 */
export function csvStream(header: readonly string[], batches: AsyncIterable<readonly (readonly CsvCell[])[]>): Readable {
  async function* lines() {
    yield csvRow(header);
    for await (const batch of batches) {
      let chunk = '';
      for (const row of batch) chunk += csvRow(row);
      if (chunk) yield chunk;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

/** `Content-Disposition` for a download named `<base>-<day>.csv` (ASCII only, so no encoding is needed). */
export function csvAttachmentHeader(baseName: string, day: string): string {
  const safe = baseName.replace(/[^A-Za-z0-9_-]+/g, '-');
  return `attachment; filename="${safe}-${day}.csv"`;
}

/** Answers a request with a CSV download `<base>-<label>.csv`, never cached. */
export function sendCsv(reply: FastifyReply, baseName: string, label: string, body: string | Readable) {
  return reply
    .header('Cache-Control', 'no-store')
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', csvAttachmentHeader(baseName, label))
    .send(body);
}
