import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import { decimalToMinor, minorDigits } from '../money.ts';

// The CSV a user uploads for an e-mail platform we do not integrate: one line per campaign and day.
//
//   day,campaign_id,campaign_name,sends,opens,clicks,orders,revenue,cost,currency
//   2026-01-10,spring-1,Spring sale,1000,420,80,12,850.00,25.00,EUR
//
// Header names are matched case-insensitively (spaces and hyphens count as underscores) and may come
// in any order; day and campaign_id are required, every other column may be left out or left empty
// (counts and amounts 0, currency the store's, name the campaign id). Counts are whole numbers, amounts
// use a dot for decimals and no thousands separators, days are YYYY-MM-DD. Values containing the
// delimiter are quoted ("..."), as RFC 4180 says; a file whose header uses semicolons is read with
// semicolons. The parser is strict: every problem is reported with its line, nothing is guessed.

export const CSV_COLUMNS = ['day', 'campaign_id', 'campaign_name', 'sends', 'opens', 'clicks', 'orders', 'revenue', 'cost', 'currency'] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];
const REQUIRED_COLUMNS: readonly CsvColumn[] = ['day', 'campaign_id'];
const COUNT_COLUMNS = ['sends', 'opens', 'clicks', 'orders'] as const;

export const EMAIL_CSV_PLATFORM = 'email';
export const MAX_CSV_ROWS = 500_000;
const MAX_REPORTED_ERRORS = 20;

export interface EmailCsvRow extends IngestEmailMetric {
  /** The file line the row starts on (1 = header). */
  line: number;
}

export interface EmailCsvParseResult {
  rows: EmailCsvRow[];
  /** 'Line 4: revenue "12,5" is not a number', at most 20 of them. */
  errors: string[];
  /** How many problems there were in all (errors lists the first ones). */
  errorCount: number;
}

interface CsvRecord {
  line: number;
  fields: string[];
}

/** RFC 4180 records with the line each starts on; blank lines are skipped. */
function* csvRecords(text: string, delimiter: string, fail: (line: number, message: string) => void): Generator<CsvRecord> {
  let line = 1;
  let position = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (position < text.length) {
    const startLine = line;
    const fields: string[] = [];
    let field = '';
    let endOfRecord = false;
    while (!endOfRecord) {
      if (text[position] === '"') {
        position++;
        let closed = false;
        while (position < text.length) {
          const char = text[position]!;
          if (char === '"') {
            if (text[position + 1] === '"') {
              field += '"';
              position += 2;
              continue;
            }
            position++;
            closed = true;
            break;
          }
          if (char === '\n') line++;
          field += char;
          position++;
        }
        if (!closed) {
          fail(startLine, 'a quoted value is not closed (a " is missing)');
          return;
        }
        const next = text[position];
        if (next !== undefined && next !== delimiter && next !== '\n' && next !== '\r') {
          fail(line, `unexpected text after a closing quote; quote the whole value`);
          while (position < text.length && text[position] !== '\n') position++;
        }
      } else {
        while (position < text.length && text[position] !== delimiter && text[position] !== '\n' && text[position] !== '\r') field += text[position++];
      }
      fields.push(field);
      field = '';
      const char = text[position];
      if (char === delimiter) {
        position++;
      } else {
        if (char === '\r') position++;
        if (text[position] === '\n') position++;
        if (char !== undefined) line++;
        endOfRecord = true;
      }
    }
    if (fields.length === 1 && fields[0]!.trim() === '') continue;
    yield { line: startLine, fields };
  }
}

/** A value as an error quotes it: at most 20 characters (a 400-digit amount is not repeated whole). */
function shortened(value: string): string {
  return value.length > 20 ? `${value.slice(0, 20)}…` : value;
}

/** decimalToMinor, null when the amount does not fit in a safe integer of minor units. */
function decimalToMinorOrNull(text: string, currency: string): number | null {
  try {
    return decimalToMinor(text, currency, EMAIL_CSV_PLATFORM);
  } catch {
    return null;
  }
}

/** The largest amount of `currency` kept exactly: 2^53 - 1 minor units ("90071992547409.91" USD). */
function maxAmount(currency: string): string {
  const digits = minorDigits(currency);
  const text = String(Number.MAX_SAFE_INTEGER);
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function normalizeHeader(name: string): string {
  return name.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

function isRealDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export function parseEmailCsv(text: string, options: { defaultCurrency: string }): EmailCsvParseResult {
  const errors: string[] = [];
  let errorCount = 0;
  const fail = (line: number, message: string) => {
    errorCount++;
    if (errors.length < MAX_REPORTED_ERRORS) errors.push(`Line ${line}: ${message}`);
  };
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';

  const records = csvRecords(text, delimiter, fail);
  const header = records.next();
  if (header.done) return { rows: [], errors: ['Line 1: the file is empty; it needs a header line (day,campaign_id,...)'], errorCount: 1 };

  const columnIndex = new Map<CsvColumn, number>();
  header.value.fields.forEach((raw, index) => {
    const name = normalizeHeader(raw);
    if (!(CSV_COLUMNS as readonly string[]).includes(name)) {
      fail(header.value.line, `unknown column "${raw.trim()}" (the columns are ${CSV_COLUMNS.join(', ')})`);
    } else if (columnIndex.has(name as CsvColumn)) {
      fail(header.value.line, `the column "${name}" appears twice`);
    } else {
      columnIndex.set(name as CsvColumn, index);
    }
  });
  for (const column of REQUIRED_COLUMNS) if (!columnIndex.has(column)) fail(header.value.line, `the column "${column}" is missing`);
  if (errorCount > 0) return { rows: [], errors, errorCount };

  const rows: EmailCsvRow[] = [];
  const firstLineOf = new Map<string, number>();
  for (const { line, fields } of records) {
    if (fields.length !== header.value.fields.length) {
      fail(line, `expected ${header.value.fields.length} values like the header, found ${fields.length}`);
      continue;
    }
    if (rows.length >= MAX_CSV_ROWS) {
      fail(line, `the file has more than ${MAX_CSV_ROWS.toLocaleString('en')} rows; split it into several uploads`);
      break;
    }
    const value = (column: CsvColumn) => {
      const index = columnIndex.get(column);
      return index === undefined ? '' : fields[index]!.trim();
    };
    const before = errorCount;

    const day = value('day');
    if (!isRealDay(day)) fail(line, `day "${day}" is not a date like 2026-01-31`);
    const campaignId = value('campaign_id');
    if (!campaignId) fail(line, 'campaign_id is empty');
    else if (campaignId.length > 64) fail(line, `campaign_id "${campaignId.slice(0, 20)}…" is longer than 64 characters`);
    const campaignName = value('campaign_name') || campaignId;
    if (campaignName.length > 255) fail(line, 'campaign_name is longer than 255 characters');
    const currency = (value('currency') || options.defaultCurrency).toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) fail(line, `currency "${value('currency')}" is not a three-letter code like EUR`);

    const counts = {} as Record<(typeof COUNT_COLUMNS)[number], number>;
    for (const column of COUNT_COLUMNS) {
      const text = value(column);
      if (text === '') counts[column] = 0;
      else if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) counts[column] = Number(text);
      else if (/^\d+$/.test(text)) fail(line, `${column} "${shortened(text)}" is too large`);
      else fail(line, /^-\d/.test(text) ? `${column} "${shortened(text)}" must not be negative` : `${column} "${shortened(text)}" is not a whole number`);
    }
    const amount = (column: 'revenue' | 'cost') => {
      const text = value(column);
      if (text === '') return 0;
      if (!/^\d+(\.\d+)?$/.test(text)) {
        fail(line, /^-\d/.test(text) ? `${column} "${shortened(text)}" must not be negative` : `${column} "${shortened(text)}" is not a number (use a dot for decimals, no thousands separators)`);
        return 0;
      }
      if (!/^[A-Z]{3}$/.test(currency)) return 0;
      // Minor units are kept as exact integers: an amount beyond 2^53 - 1 of them cannot be stored exactly.
      const minor = decimalToMinorOrNull(text, currency);
      if (minor === null) {
        fail(line, `${column} "${shortened(text)}" is too large (at most ${maxAmount(currency)} ${currency})`);
        return 0;
      }
      return minor;
    };
    const revenueMinor = amount('revenue');
    const costMinor = amount('cost');

    if (errorCount === before) {
      const key = `${day}\u0000${campaignId}`;
      const earlier = firstLineOf.get(key);
      if (earlier !== undefined) {
        fail(line, `campaign "${campaignId}" on ${day} already appears on line ${earlier}`);
        continue;
      }
      firstLineOf.set(key, line);
      rows.push({
        line,
        platform: EMAIL_CSV_PLATFORM,
        campaignId,
        day,
        campaignName,
        currency,
        sends: counts.sends,
        opens: counts.opens,
        clicks: counts.clicks,
        attributedOrders: counts.orders,
        attributedRevenueMinor: revenueMinor,
        spendMinor: costMinor,
      });
    }
  }
  return errorCount > 0 ? { rows: [], errors, errorCount } : { rows, errors: [], errorCount: 0 };
}

/** One message for the user: the first problems and how many more there are. */
export function describeCsvErrors(result: EmailCsvParseResult): string {
  const more = result.errorCount - result.errors.length;
  return result.errors.join('\n') + (more > 0 ? `\n…and ${more} more` : '');
}
