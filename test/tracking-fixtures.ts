// Tracking events written the way the collector writes them (its EventWriter, group commit) for the
// tests of sessions, attribution and their procedures.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { campaignOf, type EventRow } from '../src/server/modules/tracking/event-schema.ts';
import { EventWriter } from '../src/server/modules/tracking/event-writer.ts';

/** A pixel page view of `visitor` at `occurredAt` on `url` (its UTM and click ids read from it), with overrides. */
export function trackingEvent(storeId: number, visitor: string | null, occurredAt: Date, overrides: Partial<EventRow> & { url?: string } = {}): EventRow {
  const url = overrides.url ?? 'https://shop.example/';
  return {
    storeId, occurredAt, eventId: `ev_${randomBytes(8).toString('hex')}`, name: 'page_view', source: 'pixel', consent: true,
    anonymousId: visitor, visitorHash: null, url, referrer: null, title: null, ...campaignOf(url), screen: null, language: null, country: null,
    emailHash: null, customerId: null, checkoutToken: null, orderId: null, valueMinor: null, currency: null, props: null, ...overrides,
  };
}

/** A pool and the collector's EventWriter on the test file's database, opened before its tests and closed after. */
export function useEventWriter(databaseUrl: () => string): { readonly writer: EventWriter; readonly pool: pg.Pool } {
  let pool: pg.Pool | undefined;
  let writer: EventWriter | undefined;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: databaseUrl(), max: 2 });
    writer = new EventWriter(pool);
  });
  afterAll(async () => {
    await writer?.close();
    await pool?.end();
  });
  return {
    get writer() {
      if (!writer) throw new Error('useEventWriter(): the writer exists only inside tests and hooks');
      return writer;
    },
    get pool() {
      if (!pool) throw new Error('useEventWriter(): the pool exists only inside tests and hooks');
      return pool;
    },
  };
}
