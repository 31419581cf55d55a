import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { startKlaviyoFake, type KlaviyoFake, type KlaviyoFakeCampaign, type KlaviyoFakeFlow, type KlaviyoFakeMessageStats } from '../../../../test/fakes/klaviyo.ts';
import { createTestDatabase } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { sqlRunner } from '../../modules/commerce/raw-sql.ts';
import { PlatformConnection } from '../../modules/connections/platform-connection.entity.ts';
import { SyncRun } from '../../modules/integrations/integration.entities.ts';
import { integrationsSettingsFrom, type IntegrationsSettings } from '../../modules/integrations/integrations-runtime.ts';
import { queueSync, runSync, sealCredentials, type RunSyncOptions } from '../../modules/integrations/sync-runner.ts';
import { reportCallsFor } from './index.ts';

// Klaviyo flows end to end: the sync runner reads a Klaviyo account (the fake) into real PostgreSQL.
// A New York store and a New York account, two e-mail campaigns and two flows (one archived) in
// January 2026, each figure chosen by hand; the expected rows and totals below are computed by hand
// from them. The fake writes the series' date_times as UTC instants ('instant'), so a New York
// midnight arrives as 05:00:00+00:00 and must still land on its own day.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;

/** A message's figures: recipients, unique opens, unique clicks, orders, revenue (USD). */
function stats(recipients: number, opens: number, clicks: number, conversions: number, value: number): KlaviyoFakeMessageStats {
  return { recipients, delivered: recipients, opens, opens_unique: opens, clicks, clicks_unique: clicks, conversions, conversion_value: value };
}

const campaigns: KlaviyoFakeCampaign[] = [
  // 15:00 UTC = 10:00 in New York, January 6
  { id: 'C1', name: 'January sale', channel: 'email', sendTime: '2026-01-06T15:00:00.000Z', messages: [{ id: 'C1M', statistics: stats(5000, 2000, 300, 25, 2487.5) }] },
  // 23:30 UTC = 18:30 in New York, January 20; an A/B test of two messages
  {
    id: 'C2',
    name: 'Winter clearance',
    channel: 'email',
    sendTime: '2026-01-20T23:30:00.000Z',
    messages: [
      { id: 'C2A', statistics: stats(2500, 900, 120, 8, 640) },
      { id: 'C2B', statistics: stats(2500, 950, 130, 10, 799.9) },
    ],
  },
];

const flows: KlaviyoFakeFlow[] = [
  {
    id: 'WELC01',
    name: 'Welcome series',
    status: 'live',
    messages: [
      { id: 'W1', channel: 'email', days: { '2026-01-03': stats(120, 60, 12, 2, 90), '2026-01-10': stats(80, 40, 8, 1, 45.5), '2026-01-31': stats(100, 50, 10, 0, 0) } },
      { id: 'W2', channel: 'email', days: { '2026-01-10': stats(60, 30, 5, 1, 30) } },
      // a text message: not e-mail, left out
      { id: 'W3', channel: 'sms', days: { '2026-01-10': stats(40, 0, 6, 1, 25) } },
    ],
  },
  {
    id: 'CART01',
    name: 'Abandoned cart',
    status: 'live',
    archived: true,
    messages: [
      {
        id: 'A1',
        channel: 'email',
        // December 30 and February 1 are outside the first sync's window (December 31 to January 31)
        days: { '2025-12-30': stats(20, 10, 2, 1, 10), '2026-01-10': stats(30, 18, 9, 3, 210), '2026-01-15': stats(45, 27, 12, 4, 333.33), '2026-02-01': stats(50, 25, 10, 2, 150) },
      },
    ],
  },
];

/** The rows January's sync must store, by hand (flows on the account's days, campaigns on the store's; both New York). */
const januaryRows = [
  // C1: one message
  { campaignId: 'C1', day: '2026-01-06', campaignName: 'January sale', sends: 5000, opens: 2000, clicks: 300, orders: 25, revenueMinor: 248_750 },
  // C2: 2500 + 2500 sends, 900 + 950 opens, 120 + 130 clicks, 8 + 10 orders, 640.00 + 799.90 = 1439.90 USD
  { campaignId: 'C2', day: '2026-01-20', campaignName: 'Winter clearance', sends: 5000, opens: 1850, clicks: 250, orders: 18, revenueMinor: 143_990 },
  // the archived flow's two January days
  { campaignId: 'flow:CART01', day: '2026-01-10', campaignName: 'Abandoned cart', sends: 30, opens: 18, clicks: 9, orders: 3, revenueMinor: 21_000 },
  { campaignId: 'flow:CART01', day: '2026-01-15', campaignName: 'Abandoned cart', sends: 45, opens: 27, clicks: 12, orders: 4, revenueMinor: 33_333 },
  { campaignId: 'flow:WELC01', day: '2026-01-03', campaignName: 'Welcome series', sends: 120, opens: 60, clicks: 12, orders: 2, revenueMinor: 9_000 },
  // W1 + W2 (the text message W3 left out): 80 + 60 sends, 40 + 30 opens, 8 + 5 clicks, 1 + 1 orders, 45.50 + 30.00 = 75.50 USD
  { campaignId: 'flow:WELC01', day: '2026-01-10', campaignName: 'Welcome series', sends: 140, opens: 70, clicks: 13, orders: 2, revenueMinor: 7_550 },
  { campaignId: 'flow:WELC01', day: '2026-01-31', campaignName: 'Welcome series', sends: 100, opens: 50, clicks: 10, orders: 0, revenueMinor: 0 },
];

interface StoredRow {
  campaignId: string;
  day: string;
  campaignName: string;
  sends: number;
  opens: number;
  clicks: number;
  orders: number;
  revenueMinor: number;
}

async function storedRows(storeId: number): Promise<StoredRow[]> {
  const rows = await sqlRunner(orm.em.fork()).rows<Record<string, string>>(
    `select campaign_id, to_char(day, 'YYYY-MM-DD') as day, campaign_name, sends, opens, clicks, attributed_orders, attributed_revenue_minor
       from email_metrics_daily where store_id = $1 and platform = 'klaviyo' order by campaign_id, day`,
    [storeId],
  );
  return rows.map((row) => ({
    campaignId: row.campaign_id!,
    day: row.day!,
    campaignName: row.campaign_name!,
    sends: Number(row.sends),
    opens: Number(row.opens),
    clicks: Number(row.clicks),
    orders: Number(row.attributed_orders),
    revenueMinor: Number(row.attributed_revenue_minor),
  }));
}

function totals(rows: StoredRow[]) {
  const sum = (key: 'sends' | 'clicks' | 'orders' | 'revenueMinor') => rows.reduce((total, row) => total + row[key], 0);
  return { sends: sum('sends'), clicks: sum('clicks'), orders: sum('orders'), revenueMinor: sum('revenueMinor') };
}

function settingsFor(fake: KlaviyoFake): IntegrationsSettings {
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.klaviyo = { baseUrl: fake.apiUrl };
  return integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-klaviyo-flows'), platforms });
}

/** The fake's report calls since `from` requests, those refused by a rate limit (429) not counted. */
function reportCalls(fake: KlaviyoFake, from: number) {
  const answered = (kind: string) => fake.requests.slice(from).filter((request) => request.path === `/api/${kind}` && !fake.throttledRequests.has(request)).length;
  return { campaignReports: answered('campaign-values-reports'), flowReports: answered('flow-series-reports') };
}

/** A New York store with Klaviyo connected (one month of backfill) and never synced. */
async function connectedStore(settings: IntegrationsSettings, apiKey: string) {
  const store = await createCommerceStore(orm, { timezone: 'America/New_York', currency: 'USD' });
  const em = orm.em.fork();
  const connection = em.create(PlatformConnection, { store: store.id, platform: 'klaviyo', status: 'connected', connected: true, backfillMonths: 1 });
  await em.flush();
  sealCredentials(settings, connection, { apiKey });
  await em.flush();
  return { storeId: store.id, connectionId: connection.id };
}

async function queue(connectionId: number, now: Date) {
  const em = orm.em.fork();
  const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
  return (await queueSync(em, connection, { now })).id;
}

/** January 31, noon in New York: a one-month backfill reads December 31 to January 31. */
const januaryEnd = new Date('2026-01-31T17:00:00Z');

describe('klaviyo flows into PostgreSQL, by hand', () => {
  let fake: KlaviyoFake;
  let settings: IntegrationsSettings;
  const waits: number[] = [];
  const options = (extra: Partial<RunSyncOptions> = {}): RunSyncOptions => ({ settings, http: { sleep: async (ms) => void waits.push(ms), maxAttempts: 4 }, ingestBatchRows: 1, ...extra });
  let synced: { storeId: number; connectionId: number };

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = database.orm;
    fake = await startKlaviyoFake({ fixture: campaigns, flowFixture: flows, timezone: 'America/New_York', dateTimes: 'instant', rateLimits: true, now: januaryEnd.toISOString() });
    settings = settingsFor(fake);
  });
  afterAll(async () => {
    await fake?.close();
    await database?.close();
  });

  it("stores January's campaigns and flows per day, flows under flow: ids with their names, with one campaign and one flow report", async () => {
    synced = await connectedStore(settings, fake.options.apiKey);
    const runId = await queue(synced.connectionId, januaryEnd);
    const before = fake.requests.length;
    expect(await runSync(orm.em.fork(), runId, options())).toBe('succeeded');
    const run = await orm.em.fork().findOneOrFail(SyncRun, { id: runId });
    expect([run.windowSince.toISOString(), run.windowUntil.toISOString()]).toEqual(['2025-12-31T05:00:00.000Z', '2026-02-01T05:00:00.000Z']);

    const rows = await storedRows(synced.storeId);
    expect(rows).toEqual(januaryRows);
    // the fake's own figures for the same days
    expect(rows.map(({ orders, revenueMinor, ...row }) => ({ ...row, attributedOrders: orders, attributedRevenueMinor: revenueMinor }))).toEqual(
      fake.expectedRows(run.windowSince, run.windowUntil, 'America/New_York').sort((a, b) => a.campaignId.localeCompare(b.campaignId) || a.day.localeCompare(b.day)),
    );
    // Klaviyo's totals for the month, campaigns + flows:
    //   sends   10,000 + (120 + 140 + 100) + (30 + 45) = 10,435
    //   clicks     550 + (12 + 13 + 10) + (9 + 12)     = 606
    //   orders      43 + (2 + 2 + 0) + (3 + 4)         = 54
    //   revenue 3,927.40 + (90.00 + 75.50) + (210.00 + 333.33) = 4,636.23 USD
    // (campaigns alone, before flows were synced: 10,000 sends, 550 clicks, 43 orders, 3,927.40 USD)
    expect(totals(rows)).toEqual({ sends: 10_435, clicks: 606, orders: 54, revenueMinor: 463_623 });
    // 32 days: one campaign report and one flow report (Klaviyo's limit is 225 a day per account)
    expect(reportCalls(fake, before)).toEqual({ campaignReports: 1, flowReports: 1 });
    expect(reportCalls(fake, before)).toEqual(reportCallsFor({ since: run.windowSince, until: run.windowUntil }, 'America/New_York'));
    const series = fake.requests.slice(before).find((request) => request.path === '/api/flow-series-reports')!;
    expect(JSON.parse(series.rawBody).data.attributes).toMatchObject({ interval: 'daily', timeframe: { start: '2025-12-31T00:00:00-05:00', end: '2026-01-31T23:59:59-05:00' } });
    expect(run.rowsDone).toBe(7);
    expect(run.estimatedTotal).toBe(7);
    expect(run.warnings).toEqual([]);
    expect(fake.refusals).toEqual([]);
  });

  it('a deep re-read (91 days) spends one campaign and two flow reports, an hourly one (29 days) one of each, and picks up restated figures', async () => {
    // February 1, noon in New York: the first incremental re-reads 90 days back (November 3 to February 1).
    const februaryFirst = new Date('2026-02-01T17:00:00Z');
    let before = fake.requests.length;
    const deepId = await queue(synced.connectionId, februaryFirst);
    expect(await runSync(orm.em.fork(), deepId, options({ now: () => februaryFirst }))).toBe('succeeded');
    const deep = await orm.em.fork().findOneOrFail(SyncRun, { id: deepId });
    expect((deep.windowUntil.getTime() - deep.windowSince.getTime()) / 86_400_000).toBe(91);
    // 91 days: one campaign report (up to a year each) and two flow reports (59 days each, Klaviyo allows 60)
    expect(reportCalls(fake, before)).toEqual({ campaignReports: 1, flowReports: 2 });
    const withFebruary = [...januaryRows];
    // December 30 and February 1 of the archived flow are now in the window
    withFebruary.splice(2, 0, { campaignId: 'flow:CART01', day: '2025-12-30', campaignName: 'Abandoned cart', sends: 20, opens: 10, clicks: 2, orders: 1, revenueMinor: 1_000 });
    withFebruary.splice(5, 0, { campaignId: 'flow:CART01', day: '2026-02-01', campaignName: 'Abandoned cart', sends: 50, opens: 25, clicks: 10, orders: 2, revenueMinor: 15_000 });
    expect(await storedRows(synced.storeId)).toEqual(withFebruary);

    // Late orders for January 15's abandoned carts (inside the attribution window): 4 -> 5 orders, 333.33 -> 400.00 USD.
    fake.updateFlowStats('CART01', '2026-01-15', { conversions: 5, conversion_value: 400 });
    const anHourLater = new Date(februaryFirst.getTime() + 3_600_000);
    before = fake.requests.length;
    const hourlyId = await queue(synced.connectionId, anHourLater);
    expect(await runSync(orm.em.fork(), hourlyId, options({ now: () => anHourLater }))).toBe('succeeded');
    const hourly = await orm.em.fork().findOneOrFail(SyncRun, { id: hourlyId });
    expect((hourly.windowUntil.getTime() - hourly.windowSince.getTime()) / 86_400_000).toBe(29);
    expect(reportCalls(fake, before)).toEqual({ campaignReports: 1, flowReports: 1 });
    const restated = withFebruary.map((row) => (row.campaignId === 'flow:CART01' && row.day === '2026-01-15' ? { ...row, orders: 5, revenueMinor: 40_000 } : row));
    expect(await storedRows(synced.storeId)).toEqual(restated);
    // 4,636.23 + 10.00 (December 30) + 150.00 (February 1) + 66.67 (restated) = 4,862.90 USD;
    // 54 + 1 + 2 + 1 = 58 orders
    expect(totals(await storedRows(synced.storeId))).toMatchObject({ orders: 58, revenueMinor: 486_290 });
    expect(fake.refusals).toEqual([]);
  });

  it('a sync that crashed in the middle of the flow report resumes from its cursor without gaps or duplicates', async () => {
    // One flow message per report page and one campaign message per page: the Welcome series'
    // January 10 comes in two pages (W1, then W2) and its second row must carry the sum.
    const paged = await startKlaviyoFake({
      fixture: campaigns,
      flowFixture: flows,
      timezone: 'America/New_York',
      dateTimes: 'instant',
      rateLimits: true,
      now: januaryEnd.toISOString(),
      reportPageSize: 2,
      flowReportPageSize: 1,
    });
    try {
      const pagedSettings = settingsFor(paged);
      const store = await connectedStore(pagedSettings, paged.options.apiKey);
      const runId = await queue(store.connectionId, januaryEnd);
      const pagedOptions = { ...options(), settings: pagedSettings };
      // Batches with rows: campaign pages 1 (C1, C2 A) and 2 (C2 B), flow pages 1 (W1), 2 (W2), 3 (A1).
      // Crash after the 4th: W2's rows are committed, its cursor is not.
      const crash = (batch: number) => {
        if (batch === 4) throw new Error('worker died');
      };
      await expect(runSync(orm.em.fork(), runId, { ...pagedOptions, afterIngest: crash })).rejects.toThrow('worker died');
      const crashed = await orm.em.fork().findOneOrFail(SyncRun, { id: runId });
      expect(crashed.status).toBe('running');
      expect(JSON.parse(crashed.cursor!)).toMatchObject({ phase: 'flowReport', chunk: 0 });
      const rowsAtCrash = await storedRows(store.storeId);
      expect(rowsAtCrash.find((row) => row.campaignId === 'flow:WELC01' && row.day === '2026-01-10')).toMatchObject({ sends: 140 });
      expect(rowsAtCrash.some((row) => row.campaignId === 'flow:CART01')).toBe(false);

      const before = paged.requests.length;
      expect(await runSync(orm.em.fork(), runId, pagedOptions)).toBe('succeeded');
      expect(await storedRows(store.storeId)).toEqual(januaryRows);
      // the resumed run re-read W2's page (its cursor was not stored) and A1's, not the pages before
      expect(reportCalls(paged, before)).toEqual({ campaignReports: 0, flowReports: 2 });
      const run = await orm.em.fork().findOneOrFail(SyncRun, { id: runId });
      expect(run.estimatedTotal).toBe(7);
      expect(paged.refusals).toEqual([]);
    } finally {
      await paged.close();
    }
  });
});
