import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { csvRow, type CsvCell } from '../shared/csv.ts';

export { csvCell, csvDocument, csvRow, type CsvCell } from '../shared/csv.ts';

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
