import { MalformedResponseError, type SourceDayTotal } from '../connector.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';

// Ads APIs send counts as JSON strings ("5000"), numbers, or placeholders for "no data" ("-", absent);
// money never goes through here (see money.ts).

const NO_DATA = new Set(['', '-', '--']);

/** A whole count (impressions, clicks); absent or "-" is 0. */
export function wholeCount(value: string | number | null | undefined, platform: string, field: string): number {
  if (value === null || value === undefined) return 0;
  const text = String(value).trim();
  if (NO_DATA.has(text)) return 0;
  if (!/^\d+(\.0+)?$/.test(text)) throw new MalformedResponseError(platform, `${field} is not a count: ${JSON.stringify(value)}`);
  const count = Number(text);
  if (!Number.isSafeInteger(count)) throw new MalformedResponseError(platform, `${field} out of range: ${text}`);
  return count;
}

/** A conversion count, which attribution models make fractional (2.5); absent or "-" is 0. */
export function fractionalCount(value: string | number | null | undefined, platform: string, field: string): number {
  if (value === null || value === undefined) return 0;
  const text = String(value).trim();
  if (NO_DATA.has(text)) return 0;
  if (!/^\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) throw new MalformedResponseError(platform, `${field} is not a number: ${JSON.stringify(value)}`);
  return Number(text);
}

/** The platform's spend per day, summed from its own report rows (per currency). */
export function spendPerDay(rows: readonly IngestAdMetric[]): SourceDayTotal[] {
  const totals = new Map<string, SourceDayTotal>();
  for (const row of rows) {
    const key = `${row.day}|${row.currency}`;
    const total = totals.get(key) ?? { day: row.day, currency: row.currency, spendMinor: 0 };
    total.spendMinor = (total.spendMinor ?? 0) + row.spendMinor;
    totals.set(key, total);
  }
  return [...totals.values()].sort((a, b) => a.day.localeCompare(b.day) || a.currency.localeCompare(b.currency));
}
