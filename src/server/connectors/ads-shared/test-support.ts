import type { MikroORM } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { ingestAdMetrics, type IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { sqlRunner } from '../../modules/commerce/raw-sql.ts';
import type { Connector, ConnectorContext, ConnectorCredentials, OAuthSettings, SyncWindow } from '../connector.ts';
import { testContext } from '../test-support.ts';

// Shared by the ad connectors' tests (not by production code).

/** What every ad platform fake in test/fakes offers for the helpers below. */
interface AdPlatformFake {
  url: string;
  auth: { clientId: string; clientSecret: string };
  connectedCredentials(): ConnectorCredentials;
  updateMetric(campaignId: string, day: string, changes: AdMetricChanges): void;
}

/** Figures a test changes at the platform after a first read (late conversions, corrected spend). */
type AdMetricChanges = Partial<Pick<IngestAdMetric, 'spendMinor' | 'conversions' | 'conversionValueMinor'>>;

/**
 * The helpers an ad connector's tests use against its fake; `fake` is a getter because the fake
 * starts in `beforeAll`, after the helpers are made.
 */
export function adConnectorTestKit(connector: Connector, fake: () => AdPlatformFake) {
  const kit = {
    /** A sync context (UTC, USD) aimed at the fake; backoff delays go to `waits` instead of sleeping. */
    contextWith(credentials: ConnectorCredentials, waits: number[] = []): ConnectorContext {
      return testContext(connector.platform, fake().url, credentials, { waits });
    },

    /** Every row of the window, batch after batch like the sync engine, with each batch's estimate of the total. */
    async readAll(ctx: ConnectorContext, window: SyncWindow) {
      const rows: IngestAdMetric[] = [];
      const estimates: number[] = [];
      let cursor: string | null = null;
      let batches = 0;
      do {
        const batch = await connector.fetchBatch(ctx, window, cursor);
        rows.push(...(batch.adMetrics ?? []));
        if (batch.estimatedTotal !== undefined) estimates.push(batch.estimatedTotal);
        cursor = batch.nextCursor;
        batches++;
      } while (cursor);
      return { rows, batches, estimates };
    },

    /** The OAuth settings of the app registered at the fake. */
    settings(): OAuthSettings {
      return {
        clientId: fake().auth.clientId,
        clientSecret: fake().auth.clientSecret,
        redirectUri: `http://127.0.0.1:9/integrations/${connector.platform}/callback`,
        authorizeBaseUrl: fake().url,
      };
    },

    /**
     * Reads an incremental `window` (its reporting days must be exactly `days`), changes the row at
     * `targetIndex` at the platform, and expects the next read of the window to carry the change.
     */
    async expectIncrementalReadsChange(window: SyncWindow, days: string[], targetIndex: number, changes: AdMetricChanges) {
      const ctx = kit.contextWith(fake().connectedCredentials());
      const before = await kit.readAll(ctx, window);
      expect(new Set(before.rows.map((row) => row.day))).toEqual(new Set(days));
      const target = before.rows[targetIndex]!;
      fake().updateMetric(target.campaignId, target.day, changes);
      const after = await kit.readAll(ctx, window);
      expect(after.rows.find((row) => row.campaignId === target.campaignId && row.day === target.day)).toMatchObject(changes);
    },

    /** Fetches the first two batches of `window`, replays the second with the same cursor and expects the same answer. */
    async expectReplayedBatchUnchanged(window: SyncWindow) {
      const ctx = kit.contextWith(fake().connectedCredentials());
      const first = await connector.fetchBatch(ctx, window, null);
      const second = await connector.fetchBatch(ctx, window, first.nextCursor);
      const replay = await connector.fetchBatch(ctx, window, first.nextCursor);
      expect(replay).toEqual(second);
      return { first, second };
    },
  };
  return kit;
}

/** Spend (minor units) per reporting day, summed over campaigns. */
export function spendByDay(rows: IngestAdMetric[]): Record<string, number> {
  const byDay: Record<string, number> = {};
  for (const row of rows) byDay[row.day] = (byDay[row.day] ?? 0) + row.spendMinor;
  return byDay;
}

/**
 * Ingests ad rows into a new store (UTC) of a real database, as a sync does, and reads back what it
 * stored: spend per account and currency, and each account's days.
 */
export async function storeAdRows(orm: MikroORM, rows: IngestAdMetric[]) {
  const store = await createCommerceStore(orm, { timezone: 'UTC', currency: 'USD' });
  await ingestAdMetrics(orm.em.fork(), store.id, rows);
  const stored = await sqlRunner(orm.em.fork()).rows<{ account_id: string; currency: string; spend: number; days: string }>(
    `select account_id, currency, sum(spend_minor)::int as spend, string_agg(distinct to_char(day, 'YYYY-MM-DD'), ',' order by to_char(day, 'YYYY-MM-DD')) as days
       from ad_metrics_daily where store_id = $1 group by account_id, currency order by account_id, currency`,
    [store.id],
  );
  return stored.map((row) => ({ accountId: row.account_id, currency: row.currency, spendMinor: row.spend, days: row.days.split(',') }));
}

/** Every row of the window, batch after batch like the sync engine, through any connector (one made with test options). */
export async function readAllRows(connector: Connector, ctx: ConnectorContext, window: SyncWindow): Promise<IngestAdMetric[]> {
  const rows: IngestAdMetric[] = [];
  let cursor: string | null = null;
  do {
    const batch = await connector.fetchBatch(ctx, window, cursor);
    rows.push(...(batch.adMetrics ?? []));
    cursor = batch.nextCursor;
  } while (cursor);
  return rows;
}
