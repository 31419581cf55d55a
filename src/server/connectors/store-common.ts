import { createHmac, timingSafeEqual } from 'node:crypto';
import { addDays, dayInZone } from '../modules/commerce/days.ts';
import type { ConnectorContext } from './connector.ts';

// Small helpers the store connectors (Shopify and WooCommerce), webhook receivers and the sync engine use.

/**
 * Whether `signature` is HMAC-SHA256(key, message) in `encoding`, compared in constant time.
 * A missing or malformed signature is simply "no".
 */
export function hmacMatches(message: string | Buffer, key: string, signature: string | null | undefined, encoding: 'base64' | 'hex'): boolean {
  if (!signature || !key) return false;
  const expected = createHmac('sha256', key).update(message).digest();
  const given = Buffer.from(signature.trim(), encoding);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** "First Last" from a platform's name fields, null when both are empty. */
export function personName(first: string | null | undefined, last: string | null | undefined): string | null {
  return [first, last].map((part) => part?.trim() ?? '').filter((part) => part !== '').join(' ') || null;
}

/** Request headers as a webhook receiver gets them: Node's (lower-cased, repeatable) or a fetch Headers. */
export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

/** A header's (first) value, its name in any case; null when absent. */
export function headerValue(headers: HeaderBag, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const wanted = name.toLowerCase();
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** Milliseconds the zone is ahead of UTC at `instant`. */
function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant a calendar day starts in an IANA zone (DST-safe: the offset is read at that instant). */
export function dayStartInZone(day: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  let instant = midnightUtc - zoneOffsetMs(midnightUtc, timeZone);
  instant = midnightUtc - zoneOffsetMs(instant, timeZone);
  return new Date(instant);
}

/**
 * The store days a window touches, each with its [start, end) instants cut to the window: the first
 * and last day count only what lies inside it, so a platform's count over these slices covers exactly
 * the orders placed in the window (none placed after a sync's end, none before its start).
 */
export function storeDaysOf(window: { since: Date; until: Date }, timeZone: string): { day: string; start: Date; end: Date }[] {
  if (window.until.getTime() <= window.since.getTime()) return [];
  const first = dayInZone(window.since, timeZone);
  const last = dayInZone(new Date(window.until.getTime() - 1), timeZone);
  const days: { day: string; start: Date; end: Date }[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const start = dayStartInZone(day, timeZone);
    const end = dayStartInZone(addDays(day, 1), timeZone);
    days.push({ day, start: start < window.since ? window.since : start, end: end > window.until ? window.until : end });
  }
  return days;
}

/** An order the platform counts on a day, as listed for reconciliation. */
export interface SourceDayOrder {
  externalId: string;
  orderNumber: string | null;
  /** The platform's last change of the order (ISO instant). */
  updatedAt: string;
}

/** The most orders a store connector lists for one differing day. */
export const DAY_ORDERS_LIMIT = 250;

/**
 * Store connectors that can list the orders they count in a slice of a day (the same population
 * as their sourceTotals), at most `limit`; `complete` is false when the day holds more.
 */
export interface DayOrdersLookup {
  dayOrders(ctx: ConnectorContext, slice: { start: Date; end: Date }, limit: number): Promise<{ orders: SourceDayOrder[]; complete: boolean }>;
}

export function canListDayOrders(connector: object): connector is DayOrdersLookup {
  return typeof (connector as Partial<DayOrdersLookup>).dayOrders === 'function';
}
