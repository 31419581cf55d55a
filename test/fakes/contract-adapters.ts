import type { PlatformKey } from '../../src/shared/platforms.ts';
import { reportingDays } from '../../src/server/connectors/ads-shared/reporting-days.ts';
import { bingadsConnector } from '../../src/server/connectors/bingads/index.ts';
import type { Connector, ConnectorContext, ConnectorCredentials, SyncWindow } from '../../src/server/connectors/connector.ts';
import { googleadsConnector } from '../../src/server/connectors/googleads/index.ts';
import { createMetaAdsConnector } from '../../src/server/connectors/metaads/index.ts';
import { tiktokadsConnector } from '../../src/server/connectors/tiktokads/index.ts';
import { createShopifyConnector } from '../../src/server/connectors/shopify/index.ts';
import { createWooCommerceConnector } from '../../src/server/connectors/woocommerce/index.ts';
import { addDays } from '../../src/server/modules/commerce/days.ts';
import { startBingAdsFake } from './bingads.ts';
import type { FakeServer, FaultKind } from './fake-server.ts';
import { startGoogleAdsFake } from './googleads.ts';
import { startKlaviyoFake, type KlaviyoFake } from './klaviyo.ts';
import { startMailchimpFake } from './mailchimp.ts';
import { startMetaAdsFake } from './metaads.ts';
import { startOmnisendFake } from './omnisend.ts';
import { startShopifyFake } from './shopify.ts';
import { startTikTokAdsFake } from './tiktokads.ts';
import { startWooCommerceFake } from './woocommerce.ts';

// What the connector contract suite (src/server/connectors/contract.test.ts) needs from a platform's
// fake, one adapter per platform key: its address and credentials, the figures a sync of a window
// must store, one change a later incremental sync must pick up, faults and a revoked credential.

const DAY_MS = 86_400_000;

/** What a sync of a window must have stored: orders (store), campaign-day rows (ads, e-mail). */
export interface ExpectedFigures {
  rows: number;
  /** Total spend (ads) or sends (e-mail); null where the suite compares rollups instead (store). */
  amount: number | null;
}

export interface ContractFake {
  /** PLATFORM_BASE_URL_<KEY> for the test; undefined when the platform has no API (CSV upload). */
  baseUrl: string | undefined;
  /** The OAuth app (token refresh needs it). */
  oauth?: { clientId: string; clientSecret: string; authorizeUrl: string };
  credentials: ConnectorCredentials;
  /** The platform's connector with small pages, so that a backfill takes several batches. */
  connector?: Connector;
  expected(window: SyncWindow): ExpectedFigures;
  /**
   * Changes one record the way the platform would (an order cancelled, a day's spend restated, a
   * campaign's stats updated) so that an incremental sync started after it sees it. Returns the
   * record's key as the suite's snapshot names it (order external id, `campaignId|day`) and, for an
   * upload, the new credentials.
   */
  mutate(now: Date): { key: string; credentials?: ConnectorCredentials };
  /** Queues a fault on the fake; false when the platform has no HTTP to fail (CSV upload). */
  injectFault(kind: Extract<FaultKind, 'rate_limit' | 'server_error'>): boolean;
  faultServed(kind: FaultKind): boolean;
  /** Revokes the credential; undefined when there is none to revoke (CSV upload). */
  revoke?: () => void;
  close(): Promise<void>;
}

export interface ContractAdapter {
  platform: PlatformKey;
  /** Starts the fake with data spread over the days before `now`. */
  start(now: Date): Promise<ContractFake>;
}

/** Store data: orders created over the 80 days before the day before yesterday. */
function storeRange(now: Date) {
  return { from: new Date(now.getTime() - 80 * DAY_MS), to: new Date(now.getTime() - 2 * DAY_MS) };
}

function faults(fake: FakeServer) {
  return {
    injectFault(kind: Extract<FaultKind, 'rate_limit' | 'server_error'>) {
      fake.injectFault(kind);
      return true;
    },
    faultServed: (kind: FaultKind) => fake.requests.some((request) => request.fault === kind),
    close: () => fake.close(),
  };
}

function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

const shopify: ContractAdapter = {
  platform: 'shopify',
  async start(now) {
    const fake = await startShopifyFake({ seed: 21, orders: 180, products: 12, ...storeRange(now), rateLimit: false });
    return {
      baseUrl: fake.url,
      oauth: { clientId: fake.clientId, clientSecret: fake.clientSecret, authorizeUrl: fake.url },
      credentials: { shop: fake.shop, accessToken: fake.initialToken! },
      connector: createShopifyConnector({ ordersPageSize: 40, productsPageSize: 10 }),
      expected: (window) => ({ rows: fake.ordersUpdatedBetween(window.since, window.until), amount: null }),
      mutate() {
        const index = fake.orderCount - 10;
        fake.updateOrder(fake.orderId(index), { cancel: true, at: new Date(Date.now() - 60_000) });
        return { key: fake.orderId(index) };
      },
      ...faults(fake),
      revoke: () => fake.revokeToken(),
    };
  },
};

const woocommerce: ContractAdapter = {
  platform: 'woocommerce',
  async start(now) {
    const fake = await startWooCommerceFake({ seed: 22, orders: 150, products: 10, ...storeRange(now) });
    return {
      baseUrl: fake.url,
      credentials: { storeUrl: 'https://shop.example.com', consumerKey: fake.consumerKey, consumerSecret: fake.consumerSecret },
      connector: createWooCommerceConnector({ pageSize: 40 }),
      expected: (window) => ({ rows: fake.ordersModifiedBetween(window.since, window.until), amount: null }),
      mutate() {
        const index = fake.orderCount - 10;
        fake.updateOrder(fake.orderId(index), { status: 'cancelled', at: new Date(Date.now() - 60_000) });
        return { key: fake.orderId(index) };
      },
      ...faults(fake),
      revoke: () => fake.revokeKey(),
    };
  },
};

interface AdFake extends FakeServer {
  data: { campaignCount: number; campaignId(index: number): string; row(index: number, day: string): { spendMinor: number } | null };
  auth: { clientId: string; clientSecret: string };
  connectedCredentials(): Record<string, string>;
  revokeToken(): void;
  expectedTotals(from: string, to: string): { rows: number; spendMinorByDay: Record<string, number> };
  updateMetric(campaignId: string, day: string, changes: { spendMinor: number }): void;
}

/** Yesterday's spend of the first campaign that delivered, restated by 12.34. */
function adMutation(fake: AdFake, platform: PlatformKey, now: Date) {
  const day = addDays(utcDay(now), -1);
  for (let index = 0; index < fake.data.campaignCount; index++) {
    const row = fake.data.row(index, day);
    if (!row) continue;
    const campaignId = fake.data.campaignId(index);
    fake.updateMetric(campaignId, day, { spendMinor: row.spendMinor + 1234 });
    return { key: `${campaignId}|${day}` };
  }
  throw new Error(`${platform} fake: no campaign delivered on ${day}`);
}

/** An ad platform's contract fake for a connection made before accounts could be chosen: one account, named in the credentials. */
function adContractFake(fake: AdFake, platform: PlatformKey): ContractFake {
  return {
    baseUrl: fake.url,
    oauth: { clientId: fake.auth.clientId, clientSecret: fake.auth.clientSecret, authorizeUrl: fake.url },
    credentials: fake.connectedCredentials(),
    expected(window) {
      const days = reportingDays(window);
      if (!days) return { rows: 0, amount: 0 };
      const totals = fake.expectedTotals(days.from, days.to);
      return { rows: totals.rows, amount: Object.values(totals.spendMinorByDay).reduce((sum, spend) => sum + spend, 0) };
    },
    mutate: (now) => adMutation(fake, platform, now),
    ...faults(fake),
    revoke: () => fake.revokeToken(),
  };
}

function adAdapter(platform: PlatformKey, startFake: () => Promise<AdFake>): ContractAdapter {
  return { platform, start: async () => adContractFake(await startFake(), platform) };
}

interface EmailFake extends FakeServer {
  /** The API root (with the platform's path prefix) the connector's base URL points at. */
  apiUrl: string;
  options: { apiKey: string };
  revokeKey(): void;
  expectedRows(since: Date, until: Date): { campaignId: string; day: string; sends: number }[];
}

function emailAdapter(platform: PlatformKey, startFake: (start: string) => Promise<EmailFake>, change: (fake: EmailFake, campaignId: string, day: string) => void): ContractAdapter {
  return {
    platform,
    async start(now) {
      const fake = await startFake(utcDay(new Date(now.getTime() - 60 * DAY_MS)));
      return {
        baseUrl: fake.apiUrl,
        credentials: { apiKey: fake.options.apiKey },
        expected(window) {
          const rows = fake.expectedRows(window.since, window.until);
          return { rows: rows.length, amount: rows.reduce((sum, row) => sum + row.sends, 0) };
        },
        mutate(current) {
          // From the start of the day before yesterday (UTC): days an incremental sync re-reads
          // whatever the time of day (it restates the last three days of the store's time zone).
          const recent = fake.expectedRows(new Date(`${utcDay(new Date(current.getTime() - 2 * DAY_MS))}T00:00:00Z`), current);
          const row = recent.at(-1);
          if (!row) throw new Error(`${platform} fake: no campaign sent since the day before yesterday`);
          change(fake, row.campaignId, row.day);
          return { key: `${row.campaignId}|${row.day}` };
        },
        ...faults(fake),
        revoke: () => fake.revokeKey(),
      };
    },
  };
}

/** The generic e-mail platform: a CSV file, rows on each of the last 40 days. */
const email: ContractAdapter = {
  platform: 'email',
  async start(now) {
    const header = 'day,campaign_id,campaign_name,sends,opens,clicks,orders,revenue,cost,currency';
    const rowsFor = (changedSends: number | null) => {
      const lines = [header];
      for (let offset = 40; offset >= 1; offset--) {
        const day = addDays(utcDay(now), -offset);
        const sends = offset === 1 && changedSends !== null ? changedSends : 1000 + offset;
        lines.push(`${day},camp-${offset % 4},Campaign ${offset % 4},${sends},${400 + offset},${50 + offset},${offset % 5},${offset}.50,0,USD`);
      }
      return lines.join('\n');
    };
    const rowsInWindow = (window: SyncWindow) => {
      const from = utcDay(new Date(window.since.getTime() + DAY_MS / 2));
      const to = utcDay(new Date(window.until.getTime() - DAY_MS / 2));
      const offsets = Array.from({ length: 40 }, (_, index) => index + 1).filter((offset) => {
        const day = addDays(utcDay(now), -offset);
        return day >= from && day <= to;
      });
      return { rows: offsets.length, amount: offsets.reduce((sum, offset) => sum + 1000 + offset, 0) };
    };
    return {
      baseUrl: undefined,
      credentials: { fileName: 'metrics.csv', csvText: rowsFor(null) },
      expected: rowsInWindow,
      mutate() {
        return { key: `camp-1|${addDays(utcDay(now), -1)}`, credentials: { fileName: 'metrics.csv', csvText: rowsFor(4321) } };
      },
      injectFault: () => false,
      faultServed: () => false,
      close: async () => {},
    };
  },
};

interface MultiAccountAdFake extends AdFake {
  /** Tokens of a login with no account chosen (what exchangeCode stores). */
  loginCredentials(): Record<string, string>;
  /** The data set of every account the login can sync. */
  accountDataSets(): { rows(from: string, to: string): { spendMinor: number }[] }[];
}

/**
 * An ad platform whose login reaches several accounts, synced through the engine with every account
 * it can sync chosen, as the runner passes the stored choice (ctx.accounts). The choice is made once
 * per sync context (listAccounts), on the engine's own context object, which the engine keeps for a run.
 */
function multiAccountAdAdapter(platform: PlatformKey, base: Connector, startFake: () => Promise<MultiAccountAdFake>): ContractAdapter {
  // As if the user had chosen every account the login reaches (the engine passes the chosen ones).
  const chosen = async (ctx: ConnectorContext) => {
    if (!ctx.accounts?.length) ctx.accounts = (await base.listAccounts!(ctx)).filter((account) => !account.isManager);
    return ctx.accounts;
  };
  return {
    platform,
    async start() {
      const fake = await startFake();
      return {
        ...adContractFake(fake, platform),
        credentials: fake.loginCredentials(),
        connector: {
          ...base,
          fetchBatch: async (ctx, window, cursor) => base.fetchBatch(Object.assign(ctx, { accounts: await chosen(ctx) }), window, cursor),
          sourceTotals: async (ctx, window) => base.sourceTotals!(Object.assign(ctx, { accounts: await chosen(ctx) }), window),
        },
        expected(window) {
          const days = reportingDays(window);
          if (!days) return { rows: 0, amount: 0 };
          const rows = fake.accountDataSets().flatMap((data) => data.rows(days.from, days.to));
          return { rows: rows.length, amount: rows.reduce((sum, row) => sum + row.spendMinor, 0) };
        },
      };
    },
  };
}

export const CONTRACT_ADAPTERS: Readonly<Partial<Record<PlatformKey, ContractAdapter>>> = {
  shopify,
  woocommerce,
  // A manager login with two client accounts (USD and EUR).
  googleads: multiAccountAdAdapter('googleads', googleadsConnector, () =>
    startGoogleAdsFake({
      seed: 31,
      campaigns: 3,
      customers: [
        { id: '9876543210', name: 'Agency', currency: 'USD', timeZone: 'America/New_York', manager: true, clients: ['1112223333', '4445556666'] },
        { id: '1112223333', name: 'Shop US', currency: 'USD', timeZone: 'America/New_York' },
        { id: '4445556666', name: 'Shop DE', currency: 'EUR', timeZone: 'Europe/Berlin', campaigns: 2 },
      ],
    }),
  ),
  // Meta: campaign #2 deleted and #3 archived, whose rows the backfill must store too; 40-row pages, so
  // that the 3-month backfill (a report run) takes several batches and a crash resumes the same run.
  metaads: {
    platform: 'metaads',
    async start(now) {
      const fake = await adAdapter('metaads', () => startMetaAdsFake({ seed: 32, campaigns: 3 }) as Promise<AdFake>).start(now);
      return { ...fake, connector: createMetaAdsConnector({ pageSize: 40 }) };
    },
  },
  // Two accounts (London USD, Berlin EUR): both days are never ahead of a UTC store's today.
  bingads: multiAccountAdAdapter('bingads', bingadsConnector, () => startBingAdsFake({ seed: 33, campaigns: 3, pollsBeforeReady: 0 })),
  tiktokads: multiAccountAdAdapter('tiktokads', tiktokadsConnector, () =>
    startTikTokAdsFake({
      seed: 34,
      campaigns: 3,
      advertisers: [
        { id: '7010000000000000000', name: 'Shop US', currency: 'USD', timezone: 'America/New_York' },
        { id: '7010000000000000001', name: 'Shop DE', currency: 'EUR', timezone: 'Europe/Berlin', campaigns: 2 },
      ],
    }),
  ),
  // Klaviyo with its documented rate limits (reports 1/s, 2/min, 225/day) on a clock that skips ahead
  // by each Retry-After, since the suite's HTTP client records its waits instead of sleeping. Campaigns
  // and three flows (one archived) with figures on most days; the change is to the newest row, a flow's
  // day (`flow:<id>`) or a campaign.
  klaviyo: emailAdapter(
    'klaviyo',
    (start) => startKlaviyoFake({ seed: 41, campaigns: 50, start, days: 61, archivedEvery: 7, flows: 3, rateLimits: true, clock: 'skip-ahead' }) as unknown as Promise<EmailFake>,
    (fake, id, day) => {
      const klaviyo = fake as unknown as KlaviyoFake;
      if (id.startsWith('flow:')) klaviyo.updateFlowStats(id.slice('flow:'.length), day, { opens_unique: 3, clicks_unique: 1 });
      else klaviyo.updateCampaignStats(id, { opens_unique: 3, clicks_unique: 1 });
    },
  ),
  mailchimp: emailAdapter('mailchimp', (start) => startMailchimpFake({ seed: 42, reports: 50, start, days: 61 }) as unknown as Promise<EmailFake>, (fake, id) =>
    (fake as unknown as { updateReport(id: string, changes: object): void }).updateReport(id, { emails_sent: 77 }),
  ),
  omnisend: emailAdapter('omnisend', (start) => startOmnisendFake({ seed: 43, campaigns: 50, start, days: 61 }) as unknown as Promise<EmailFake>, (fake, id) =>
    (fake as unknown as { updateCampaign(id: string, changes: object): void }).updateCampaign(id, { sent: 77 }),
  ),
  email,
};
