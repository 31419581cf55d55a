import { MalformedResponseError } from '../connector.ts';

// A Microsoft Advertising report CSV: optionally a report header block ("Report Name: ...", ...),
// the column header row, the data rows, and optionally a footer ("©2026 Microsoft Corporation. All
// rights reserved."). Fields are quoted, quotes doubled inside; the file may start with a BOM.

/** RFC 4180 records; blank lines come back as []. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if (quoted) {
      if (char === '"') {
        if (source[index + 1] === '"') {
          field += '"';
          index++;
        } else quoted = false;
      } else field += char;
      continue;
    }
    if (char === '"') {
      quoted = true;
      fieldStarted = true;
    } else if (char === ',') {
      record.push(field);
      field = '';
      fieldStarted = true;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[index + 1] === '\n') index++;
      if (fieldStarted || field !== '') record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStarted = false;
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  if (quoted) throw new MalformedResponseError('bingads', 'the report CSV ends inside a quoted field');
  if (fieldStarted || field !== '') {
    record.push(field);
    records.push(record);
  }
  return records;
}

/**
 * The data rows as objects keyed by column name. The header row is the first record holding every
 * `requiredColumns` entry; data ends at the first record of another width (blank line or footer).
 */
export function reportRecords(text: string, requiredColumns: readonly string[]): Record<string, string>[] {
  const records = parseCsv(text);
  const headerIndex = records.findIndex((record) => requiredColumns.every((column) => record.includes(column)));
  if (headerIndex < 0) throw new MalformedResponseError('bingads', `the report has no header row with ${requiredColumns.join(', ')}`);
  const header = records[headerIndex]!;
  const rows: Record<string, string>[] = [];
  for (const record of records.slice(headerIndex + 1)) {
    if (record.length !== header.length) break;
    rows.push(Object.fromEntries(header.map((column, index) => [column, record[index]!])));
  }
  return rows;
}
