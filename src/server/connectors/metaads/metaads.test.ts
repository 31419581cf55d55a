import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { startMetaAdsFake, type MetaAdsFake } from '../../../../test/fakes/metaads.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { addDays } from '../../modules/commerce/days.ts';
import { ingestAdMetrics } from '../../modules/commerce/ingest.ts';
import { sqlRunner } from '../../modules/commerce/raw-sql.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type Connector, type ConnectorContext, type PlatformAccount, type SyncWindow } from '../connector.ts';
import { adConnectorTestKit, spendByDay } from '../ads-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import { CAMPAIGN_EFFECTIVE_STATUSES, META_ADS_SCOPES, isTooMuchData, metaVerdict, regainAccessMs, type InsightsRow } from './client.ts';
import { halves } from './insights.ts';
import { createMetaAdsConnector, expiryWarning, metaadsConnector } from './index.ts';
import { mapAccountSpend, mapInsightsRow } from './map.ts';

const connector = metaadsConnector;
const DAY_MS = 86_400_000;
/** 59 days: longer than the 31-day synchronous limit, so read through a report run. */
const BACKFILL = utcWindow('2026-01-01', '2026-03-01');
const FIRST = '1234567890';
const OTHER = '5550001111';

const database = useTestDatabase();
let fake: MetaAdsFake;
beforeAll(async () => {
  // 20 campaigns in the first account (campaign #2 deleted, #3 archived), 3 in the other (EUR).
  fake = await startMetaAdsFake({ seed: 11, campaigns: 20, accountsPageSize: 1 });
});
afterAll(() => fake.close());

const { contextWith, readAll, settings, expectIncrementalReadsChange, expectReplayedBatchUnchanged } = adConnectorTestKit(connector, () => fake);

/** A context of a connection with both ad accounts chosen (ctx.accounts) and no account in its credentials. */
function chosenContext(target: MetaAdsFake, accounts: PlatformAccount[], waits: number[] = []): ConnectorContext {
  const { adAccountId: _legacy, ...credentials } = target.connectedCredentials();
  return { ...testContext('metaads', target.url, credentials, { waits }), accounts };
}

const requestsSince = (target: MetaAdsFake, mark: number) => target.requests.slice(mark);
const timeRangeOf = (query: string, body = '') => new URLSearchParams(query).get('time_range') ?? new URLSearchParams(body).get('time_range');

/** Syncs `window` of the chosen accounts into a new store, batch after batch as the engine does; the store id. */
async function syncIntoStore(target: MetaAdsFake, withConnector: Connector, ctx: ConnectorContext, window: SyncWindow) {
  const store = await createCommerceStore(database.orm, { timezone: 'UTC', currency: 'USD' });
  let cursor: string | null = null;
  let batches = 0;
  do {
    const batch = await withConnector.fetchBatch(ctx, window, cursor);
    if (batch.adMetrics?.length) await ingestAdMetrics(database.orm.em.fork(), store.id, batch.adMetrics);
    cursor = batch.nextCursor;
    batches++;
  } while (cursor);
  return { storeId: store.id, batches };
}

async function storedSpend(storeId: number) {
  const rows = await sqlRunner(database.orm.em.fork()).rows<{ account_id: string; currency: string; campaign_id: string; spend: string; rows: number }>(
    `select account_id, currency, campaign_id, sum(spend_minor)::bigint as spend, count(*)::int as rows from ad_metrics_daily where store_id = $1 and platform = 'metaads' group by 1, 2, 3`,
    [storeId],
  );
  return rows;
}

describe('metaads ad accounts', () => {
  it('lists every ad account the login reaches, over every page, with its currency and time zone', async () => {
    const mark = fake.requests.length;
    await expect(connector.listAccounts!(contextWith(fake.connectedCredentials()))).resolves.toEqual([
      { accountId: FIRST, name: 'Fake Store – Meta', currency: 'USD', timezone: 'America/Los_Angeles' },
      { accountId: OTHER, name: 'Other brand', currency: 'EUR', timezone: 'Europe/Berlin' },
    ]);
    // One account a page (the fake's page size here): two pages, the second asked with `after`.
    const pages = requestsSince(fake, mark).filter((request) => request.path.endsWith('/me/adaccounts'));
    expect(pages).toHaveLength(2);
    expect(new URLSearchParams(pages[1]!.query).get('after')).toBeTruthy();
    expect(new URLSearchParams(pages[0]!.query).get('fields')).toBe('name,account_id,currency,timezone_name,account_status');
  });

  it('verifies the token with /me, and names the account, its currency and time zone when one is known', async () => {
    const accounts = await connector.listAccounts!(contextWith(fake.connectedCredentials()));
    // A connection made the old way names the first account in its credentials.
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: FIRST, accountName: 'Alex Example', currency: 'USD', timezone: 'America/Los_Angeles' });
    await expect(connector.verify(chosenContext(fake, [accounts[1]!]))).resolves.toEqual({ accountId: OTHER, accountName: 'Alex Example', currency: 'EUR', timezone: 'Europe/Berlin' });
    // Several accounts: the login itself.
    await expect(connector.verify(chosenContext(fake, accounts))).resolves.toEqual({ accountId: '10150000000000001', accountName: 'Alex Example' });
  });

  it('does not take one of several accounts without asking', async () => {
    const unchosen = chosenContext(fake, []);
    const refused = await connector.fetchBatch(unchosen, utcWindow('2026-02-01', '2026-02-02'), null).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ConnectorRequestError);
    expect((refused as ConnectorRequestError).detail).toBe('This Facebook login reaches 2 ad accounts (Fake Store – Meta (1234567890), Other brand (5550001111)): choose the ones to sync in the Meta Ads connection.');
    // A login with one account has nothing to choose.
    const single = await startMetaAdsFake({ seed: 2, campaigns: 2, otherAccount: false });
    try {
      const { rows } = await readAll(chosenContext(single, []), utcWindow('2026-02-01', '2026-02-03'));
      expect(rows.length).toBe(single.expectedTotals('2026-02-01', '2026-02-02').rows);
    } finally {
      await single.close();
    }
  });
});

describe('metaads backfill across two accounts', () => {
  it("stores a year of every campaign's spend in both accounts, deleted and archived campaigns included", async () => {
    const window = utcWindow('2025-01-01', '2026-01-01');
    const accounts = await connector.listAccounts!(contextWith(fake.connectedCredentials()));
    const mark = fake.requests.length;
    const { storeId } = await syncIntoStore(fake, connector, chosenContext(fake, accounts), window);

    const stored = await storedSpend(storeId);
    for (const account of fake.accounts) {
      const expected = fake.campaignSpend(account.id, '2025-01-01', '2025-12-31');
      const ours = Object.fromEntries(stored.filter((row) => row.account_id === account.id).map((row) => [row.campaign_id, Number(row.spend)]));
      expect(ours).toEqual(expected);
      expect(new Set(stored.filter((row) => row.account_id === account.id).map((row) => row.currency))).toEqual(new Set([account.currency]));
      expect(stored.filter((row) => row.account_id === account.id).reduce((sum, row) => sum + row.rows, 0)).toBe(account.data.expectedTotals('2025-01-01', '2025-12-31').rows);
    }
    // The deleted (#2) and archived (#3) campaigns of the first account are in, with their spend.
    const first = fake.accountById(FIRST);
    const hidden = [first.data.campaignId(1), first.data.campaignId(2)];
    expect(hidden.map((id) => stored.find((row) => row.campaign_id === id)?.spend)).toEqual(hidden.map((id) => String(fake.campaignSpend(FIRST, '2025-01-01', '2025-12-31')[id])));
    expect(hidden.every((id) => Number(stored.find((row) => row.campaign_id === id)!.spend) > 0)).toBe(true);

    // 365 days > 31: one report run per account, asked for every effective status; no synchronous read.
    const sent = requestsSince(fake, mark);
    const runs = sent.filter((request) => request.method === 'POST' && request.path.endsWith('/insights'));
    expect(runs.map((request) => request.path)).toEqual([`/v25.0/act_${FIRST}/insights`, `/v25.0/act_${OTHER}/insights`]);
    const form = new URLSearchParams(runs[0]!.rawBody);
    expect(Object.fromEntries(form)).toMatchObject({
      level: 'campaign',
      time_increment: '1',
      time_range: '{"since":"2025-01-01","until":"2025-12-31"}',
      filtering: '[{"field":"campaign.effective_status","operator":"IN","value":["ACTIVE","PAUSED","DELETED","ARCHIVED","IN_PROCESS","WITH_ISSUES"]}]',
      use_unified_attribution_setting: 'true',
    });
    expect(form.has('action_attribution_windows')).toBe(false);
    expect(sent.filter((request) => request.method === 'GET' && request.path.startsWith('/v25.0/act_') && request.path.endsWith('/insights'))).toHaveLength(0);
  });

  it('adds up, for a small hand-made year, to the figures worked out by hand', async () => {
    const small = await startMetaAdsFake({ seed: 5, campaigns: 3, otherAccount: { campaigns: 1 } });
    try {
      const [first, other] = small.accounts as [MetaAdsFake['accounts'][0], MetaAdsFake['accounts'][0]];
      // No delivery at all in 2026, then five rows set by hand.
      for (let day = '2026-01-01'; day <= '2026-12-31'; day = addDays(day, 1)) {
        for (const account of small.accounts) for (let index = 0; index < account.data.campaignCount; index++) small.updateMetric(account.data.campaignId(index), day, null);
      }
      const set = (campaignId: string, day: string, spendMinor: number, conversions = 0, conversionValueMinor = 0) =>
        small.updateMetric(campaignId, day, { impressions: 1000, clicks: 10, spendMinor, conversions, conversionValueMinor });
      set(first.data.campaignId(0), '2026-01-15', 12_050, 3, 21_000); // active: 120.50 USD, 3 purchases worth 210.00
      set(first.data.campaignId(0), '2026-07-20', 8_000); // active: 80.00 USD
      set(first.data.campaignId(1), '2026-02-01', 4_525); // deleted: 45.25 USD
      set(first.data.campaignId(2), '2026-03-10', 3_000); // archived: 30.00 USD
      set(other.data.campaignId(0), '2026-05-05', 9_999); // other account: 99.99 EUR

      const accounts = await connector.listAccounts!(chosenContext(small, []));
      const { storeId } = await syncIntoStore(small, connector, chosenContext(small, accounts), utcWindow('2026-01-01', '2027-01-01'));
      const stored = await storedSpend(storeId);
      const byAccount = (accountId: string) => stored.filter((row) => row.account_id === accountId).reduce((sum, row) => sum + Number(row.spend), 0);
      // USD: 12050 + 8000 + 4525 + 3000 = 27575 (without the deleted and archived campaigns: 20050, 27.3 % short).
      expect(byAccount(FIRST)).toBe(27_575);
      // EUR: 9999, never added to the dollars.
      expect(byAccount(OTHER)).toBe(9_999);
      expect(stored.map((row) => `${row.account_id}|${row.currency}`).sort()).toEqual([`${FIRST}|USD`, `${FIRST}|USD`, `${FIRST}|USD`, `${OTHER}|EUR`]);
      expect(stored.reduce((sum, row) => sum + row.rows, 0)).toBe(5);
      const [purchases] = await sqlRunner(database.orm.em.fork()).rows<{ conversions: string; value: string }>(
        `select conversions::text as conversions, conversion_value_minor::text as value from ad_metrics_daily where store_id = $1 and campaign_id = $2 and day = '2026-01-15'`,
        [storeId, first.data.campaignId(0)],
      );
      expect(purchases).toEqual({ conversions: '3', value: '21000' });
    } finally {
      await small.close();
    }
  });
});

describe('metaads long ranges, report runs and "reduce the amount of data"', () => {
  it('a connection made the old way reads its account, every campaign, through a report run', async () => {
    const { rows, batches } = await readAll(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28');
    expect(batches).toBe(Math.ceil(expected.rows / 500));
    expect(batches).toBeGreaterThan(1);
    expect(rows).toHaveLength(expected.rows);
    expect(new Set(rows.map((row) => `${row.campaignId}|${row.day}`)).size).toBe(rows.length);
    expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
    expect(rows[0]).toMatchObject({ platform: 'metaads', accountId: FIRST, currency: 'USD' });
    expect(fake.requests.some((request) => request.query.includes('access_token'))).toBe(false);
  });

  it('polls a report run until "Job Completed" (100 % while still running is not done), then reads its pages', async () => {
    const mark = fake.requests.length;
    await connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null);
    const run = fake.reportRunIds().at(-1)!;
    const polls = requestsSince(fake, mark).filter((request) => request.path === `/v25.0/${run}`);
    // The fake's run: "Job Not Started", "Job Running" at 100 %, "Job Completed".
    expect(polls).toHaveLength(3);
    const reads = requestsSince(fake, mark).filter((request) => request.path === `/v25.0/${run}/insights`);
    expect(reads).toHaveLength(1);
    expect(fake.requests.indexOf(reads[0]!)).toBeGreaterThan(fake.requests.indexOf(polls[2]!));
  });

  it('a resumed sync polls the same report run and goes on from the page it stopped at', async () => {
    const paged = createMetaAdsConnector({ pageSize: 100 });
    const first = await paged.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null);
    const run = fake.reportRunIds().at(-1)!;
    expect(JSON.parse(JSON.parse(first.nextCursor!).inner as string)).toMatchObject({ run, ranges: [{ from: '2026-01-01', to: '2026-02-28' }] });

    // Another worker, later: the stored cursor only.
    const mark = fake.requests.length;
    const second = await paged.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, first.nextCursor);
    const sent = requestsSince(fake, mark);
    expect(sent.filter((request) => request.method === 'POST')).toHaveLength(0);
    expect(sent.map((request) => request.path)).toEqual([`/v25.0/${run}`, `/v25.0/${run}/insights`]);
    // Rows 101-200 of the run: none of the first page's.
    const keys = (rows: typeof first.adMetrics) => new Set(rows!.map((row) => `${row.campaignId}|${row.day}`));
    expect(second.adMetrics).toHaveLength(100);
    expect([...keys(second.adMetrics)].filter((key) => keys(first.adMetrics).has(key))).toEqual([]);

    // A run Meta no longer keeps is started again, from the range's first page.
    fake.forgetReportRuns();
    const restarted = await paged.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, first.nextCursor);
    expect(fake.reportRunIds()).toHaveLength(1);
    expect(restarted.adMetrics).toEqual(first.adMetrics);
  });

  it('a failed report run is split in halves, each read again', async () => {
    const window = utcWindow('2026-01-01', '2026-03-06'); // 64 days: halves of 32, both still > 31
    fake.failNextReportRuns(1);
    const mark = fake.requests.length;
    const { rows } = await readAll(contextWith(fake.connectedCredentials()), window);
    const runs = requestsSince(fake, mark).filter((request) => request.method === 'POST');
    expect(runs.map((request) => timeRangeOf(request.query, request.rawBody))).toEqual([
      '{"since":"2026-01-01","until":"2026-03-05"}',
      '{"since":"2026-01-01","until":"2026-02-01"}',
      '{"since":"2026-02-02","until":"2026-03-05"}',
    ]);
    expect(spendByDay(rows)).toEqual(fake.expectedTotals('2026-01-01', '2026-03-05').spendMinorByDay);
  });

  it('a code-1 answer splits the range in halves instead of asking again for the same data', async () => {
    const window = utcWindow('2026-02-01', '2026-03-01'); // 28 days: synchronous
    const expected = fake.expectedTotals('2026-02-01', '2026-02-28');
    fake.syncRowLimit = 100; // about 17.5 rows a day: 28 and 14 days are too much, 7 days is too, 4 and 3 days are not
    try {
      const waits: number[] = [];
      const mark = fake.requests.length;
      const { rows } = await readAll(contextWith(fake.connectedCredentials(), waits), window);
      expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
      expect(rows).toHaveLength(expected.rows);
      const ranges = requestsSince(fake, mark).map((request) => timeRangeOf(request.query)).filter(Boolean);
      expect(ranges.slice(0, 3)).toEqual(['{"since":"2026-02-01","until":"2026-02-28"}', '{"since":"2026-02-01","until":"2026-02-14"}', '{"since":"2026-02-01","until":"2026-02-07"}']);
      expect(new Set(ranges).size).toBe(ranges.length); // never the same range twice
      expect(waits).toEqual([]); // no backoff spent on it

      // A single day cannot be split: it is retried like any temporary error, then the sync fails.
      fake.syncRowLimit = 5;
      const dayWaits: number[] = [];
      const failed = await connector.fetchBatch(contextWith(fake.connectedCredentials(), dayWaits), utcWindow('2026-02-10', '2026-02-11'), null).catch((caught: unknown) => caught);
      expect(failed).toBeInstanceOf(ConnectorRequestError);
      expect((failed as ConnectorRequestError).detail).toMatch(/gave up after 4 attempts: Meta temporary error \(code 1\): Please reduce the amount of data/);
      expect(dayWaits).toHaveLength(3);
    } finally {
      fake.syncRowLimit = 2_500;
    }
  });

  it('cuts a range in two halves, the first the longer by a day', () => {
    expect(halves({ from: '2026-01-01', to: '2026-12-31' })).toEqual([
      { from: '2026-01-01', to: '2026-07-02' },
      { from: '2026-07-03', to: '2026-12-31' },
    ]);
    expect(halves({ from: '2026-02-10', to: '2026-02-11' })).toEqual([
      { from: '2026-02-10', to: '2026-02-10' },
      { from: '2026-02-11', to: '2026-02-11' },
    ]);
  });
});

describe('metaads synchronous reads, errors and tokens', () => {
  it('asks for every documented effective status and for conversions as each ad set counts them', async () => {
    const mark = fake.requests.length;
    await connector.fetchBatch(contextWith(fake.connectedCredentials()), utcWindow('2026-02-10', '2026-02-12'), null);
    const insightsCall = requestsSince(fake, mark).find((request) => request.path.endsWith('/insights'))!;
    const query = new URLSearchParams(insightsCall.query);
    expect(insightsCall.method).toBe('GET');
    expect(Object.fromEntries(query)).toMatchObject({ level: 'campaign', time_increment: '1', time_range: '{"since":"2026-02-10","until":"2026-02-11"}', use_unified_attribution_setting: 'true' });
    expect(JSON.parse(query.get('filtering')!)).toEqual([{ field: 'campaign.effective_status', operator: 'IN', value: [...CAMPAIGN_EFFECTIVE_STATUSES] }]);
    expect(query.has('action_attribution_windows')).toBe(false);
    expect(insightsCall.query).not.toContain('access_token');
  });

  it('reads only the days of an incremental window, with changes made since', async () => {
    await expectIncrementalReadsChange(utcWindow('2026-02-10', '2026-02-12'), ['2026-02-10', '2026-02-11'], 3, { conversions: 7, conversionValueMinor: 31_415 });
  });

  it('returns the same rows when a page is replayed with the same cursor', async () => {
    const { first, second } = await expectReplayedBatchUnchanged(BACKFILL);
    expect(second.adMetrics![0]).not.toEqual(first.adMetrics![0]);
  });

  it('backs off on code 17 as long as X-Business-Use-Case-Usage says, and retries server errors', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: '/insights' });
    fake.injectFault('server_error', { pathIncludes: '/insights' });
    const batch = await connector.fetchBatch(contextWith(fake.connectedCredentials(), waits), utcWindow('2026-02-01', '2026-02-08'), null);
    expect(batch.adMetrics!.length).toBeGreaterThan(0);
    expect(waits[0]).toBe(120_000);
    expect(waits).toHaveLength(2);
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    const ctx = contextWith(fake.connectedCredentials());
    const first = await connector.fetchBatch(ctx, BACKFILL, null);
    fake.injectFault('malformed', { pathIncludes: '/insights' });
    await expect(connector.fetchBatch(ctx, BACKFILL, first.nextCursor)).rejects.toThrow(MalformedResponseError);
  });

  it('a token past its 60 days gets code 190, a removed app too: ConnectorAuthError with a reason', async () => {
    const credentials = fake.connectedCredentials();
    fake.auth.advance(60 * DAY_MS + 60_000);
    try {
      const expired = await connector.fetchBatch(contextWith(credentials), utcWindow('2026-02-10', '2026-02-11'), null).catch((caught: unknown) => caught);
      expect(expired).toBeInstanceOf(ConnectorAuthError);
      expect((expired as ConnectorAuthError).reason).toMatch(/access token has expired/);
    } finally {
      fake.auth.advance(-(60 * DAY_MS + 60_000));
    }
    await expect(connector.fetchBatch(contextWith(credentials), utcWindow('2026-02-10', '2026-02-11'), null)).resolves.toBeTruthy();
    const revokedFake = await startMetaAdsFake({ campaigns: 1, otherAccount: false });
    try {
      const ctx = testContext('metaads', revokedFake.url, revokedFake.connectedCredentials());
      revokedFake.injectFault('revoked');
      const revoked = await connector.verify(ctx).catch((caught: unknown) => caught);
      expect(revoked).toBeInstanceOf(ConnectorAuthError);
      expect((revoked as ConnectorAuthError).reason).toMatch(/app was removed/);
    } finally {
      await revokedFake.close();
    }
  });

  it('warns in the last 7 days of the authorization, naming the date, and not before', async () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const clocked = createMetaAdsConnector({ now: () => now });
    const window = utcWindow('2026-02-10', '2026-02-11');
    const within = await clocked.fetchBatch(contextWith({ ...fake.connectedCredentials(), expiresAt: '2026-12-01T11:00:00Z' }), window, null); // 6 d 23 h ahead
    expect(within.warnings).toEqual(['The Meta Ads authorization expires on 2026-12-01: reconnect Meta Ads before then so that spend keeps arriving.']);
    const before = await clocked.fetchBatch(contextWith({ ...fake.connectedCredentials(), expiresAt: '2026-12-01T13:00:00Z' }), window, null); // 7 d 1 h ahead
    expect(before.warnings).toBeUndefined();
    expect(expiryWarning('2026-11-20T00:00:00Z', now)).toBe('The Meta Ads authorization expired on 2026-11-20: reconnect Meta Ads so that spend arrives again.');
    expect(expiryWarning(undefined, now)).toBeNull();
  });

  it("gives each account's own daily spend (every campaign counted) as source totals, in its currency", async () => {
    const accounts = await connector.listAccounts!(contextWith(fake.connectedCredentials()));
    const totals = await connector.sourceTotals!(chosenContext(fake, accounts), utcWindow('2026-02-01', '2026-03-01'));
    for (const account of fake.accounts) {
      const mine = totals.filter((total) => total.accountId === account.id);
      expect(new Set(mine.map((total) => total.currency))).toEqual(new Set([account.currency]));
      expect(Object.fromEntries(mine.map((total) => [total.day, total.spendMinor]))).toEqual(account.data.expectedTotals('2026-02-01', '2026-02-28').spendMinorByDay);
    }
  });

  it('connects through the Login dialog and the long-lived token exchange without choosing an account', async () => {
    const url = new URL(connector.oauth!.authorizeUrl(settings(), 'state-xyz', {}));
    expect(url.pathname).toBe('/v25.0/dialog/oauth');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: fake.auth.clientId, redirect_uri: settings().redirectUri, scope: META_ADS_SCOPES.join(','), state: 'state-xyz' });
    const page = await (await fetch(url)).text();
    expect(page).toContain('StorePulse (fake)');
    const allow = new URL(/id="allow" role="button" href="([^"]+)"/.exec(page)![1]!.replaceAll('&#38;', '&'));
    expect(allow.searchParams.get('state')).toBe('state-xyz');

    const credentials = await connector.oauth!.exchangeCode(contextWith({}), settings(), allow.searchParams.get('code')!, {});
    expect(credentials.adAccountId).toBeUndefined();
    expect(Date.parse(credentials.expiresAt!) - Date.now()).toBeGreaterThan(59 * 86_400_000);
    expect(fake.requests.filter((request) => request.path.endsWith('/oauth/access_token')).at(-1)!.query).toContain('grant_type=fb_exchange_token');
    await expect(connector.verify(contextWith(credentials))).resolves.toEqual({ accountId: '10150000000000001', accountName: 'Alex Example' });
    expect(connector.oauth!.refresh).toBeUndefined();

    // The old way: an account named at connection, checked to be reachable.
    const code = () => fake.auth.issueCode(fake.auth.clientId, settings().redirectUri);
    await expect(connector.oauth!.exchangeCode(contextWith({}), settings(), code(), { adAccountId: 'act_5550001111' })).resolves.toMatchObject({ adAccountId: OTHER });
    await expect(connector.oauth!.exchangeCode(contextWith({}), settings(), code(), { adAccountId: 'act_999' })).rejects.toThrow(/cannot access ad account 999/);
  });

  it('reads the expiry from /debug_token when the exchange does not say', async () => {
    const quiet = await startMetaAdsFake({ campaigns: 1, otherAccount: false, omitLongLivedExpiresIn: true });
    try {
      const kit = adConnectorTestKit(connector, () => quiet);
      const credentials = await connector.oauth!.exchangeCode(kit.contextWith({}), kit.settings(), quiet.auth.issueCode(quiet.auth.clientId, kit.settings().redirectUri), {});
      // 60 days from now, to the second (debug_token's expires_at is in Unix seconds).
      expect(Math.abs(Date.parse(credentials.expiresAt!) - (Date.now() + 60 * DAY_MS))).toBeLessThan(5_000);
      const debug = quiet.requests.find((request) => request.path.endsWith('/debug_token'))!;
      expect(new URLSearchParams(debug.query).get('access_token')).toBe(`${quiet.auth.clientId}|${quiet.auth.clientSecret}`);
    } finally {
      await quiet.close();
    }
  });
});

describe('metaads mapping', () => {
  // The insights row of Meta's Ads Insights page (platform-apis.md §4.2).
  const documented: InsightsRow = {
    account_currency: 'USD',
    campaign_id: '23850000000000001',
    campaign_name: 'Prospecting - Broad',
    impressions: '361324',
    clicks: '4210',
    spend: '5339.5',
    actions: [
      { action_type: 'link_click', value: '3980' },
      { action_type: 'purchase', value: '42' },
      { action_type: 'offsite_conversion.fb_pixel_purchase', value: '42' },
      { action_type: 'omni_purchase', value: '42' },
    ],
    action_values: [
      { action_type: 'purchase', value: '4120.77' },
      { action_type: 'offsite_conversion.fb_pixel_purchase', value: '4120.77' },
      { action_type: 'omni_purchase', value: '4120.77' },
    ],
    date_start: '2026-01-15',
    date_stop: '2026-01-15',
  };

  it('maps the documented row, counting the purchase once', () => {
    expect(mapInsightsRow(documented, '1234567890', 'USD')).toEqual({
      platform: 'metaads',
      accountId: '1234567890',
      campaignId: '23850000000000001',
      day: '2026-01-15',
      campaignName: 'Prospecting - Broad',
      currency: 'USD',
      impressions: 361324,
      clicks: 4210,
      spendMinor: 533950, // "5339.5" USD = 5339.50 -> 533950 cents
      conversions: 42, // omni_purchase, not 42 x 3
      conversionValueMinor: 412077,
    });
  });

  it("takes the row's account currency, falls back to purchase, and to 0 without purchases", () => {
    const { account_currency: _currency, ...withoutCurrency } = documented;
    const onlyPixel = { ...withoutCurrency, actions: [{ action_type: 'purchase', value: '3' }], action_values: [{ action_type: 'purchase', value: '10' }] };
    // JPY has no minor digits: "5339.5" rounds half away from zero to 5340 yen.
    expect(mapInsightsRow(onlyPixel, '1', 'JPY')).toMatchObject({ currency: 'JPY', conversions: 3, conversionValueMinor: 10, spendMinor: 5340 });
    expect(mapInsightsRow({ ...documented, account_currency: 'EUR' }, '1', 'USD')).toMatchObject({ currency: 'EUR', spendMinor: 533950 });
    expect(mapInsightsRow({ ...documented, actions: undefined, action_values: undefined }, '1', 'USD')).toMatchObject({ conversions: 0, conversionValueMinor: 0 });
    expect(() => mapInsightsRow({ ...documented, date_stop: '2026-01-16' }, '1', 'USD')).toThrow(MalformedResponseError);
    expect(mapAccountSpend([{ spend: '12.5', date_start: '2026-01-15', date_stop: '2026-01-15' }], '42', 'GBP')).toEqual([{ day: '2026-01-15', accountId: '42', currency: 'GBP', spendMinor: 1250 }]);
  });

  it('reads the documented throttling, token and "reduce the amount of data" errors', () => {
    const response = (status: number, body: unknown, headers: Record<string, string> = {}) => platformAnswer(status, body, headers);
    const usage = { 'x-business-use-case-usage': JSON.stringify({ '123': [{ type: 'ads_insights', estimated_time_to_regain_access: 5 }] }) };
    expect(metaVerdict(response(400, { error: { code: 613, error_subcode: 1487742, message: 'too many calls' } }, usage))).toMatchObject({ kind: 'retry', afterMs: 300_000 });
    expect(metaVerdict(response(400, { error: { code: 80000, message: 'insights BUC' } }))).toMatchObject({ kind: 'retry' });
    expect(metaVerdict(response(400, { error: { code: 4, error_subcode: 1504022, message: 'app limit' } }))).toMatchObject({ kind: 'retry' });
    expect(metaVerdict(response(400, { error: { code: 17, error_subcode: 2446079, message: 'User request limit reached' } }))).toMatchObject({ kind: 'retry' });
    expect(metaVerdict(response(400, { error: { code: 190, error_subcode: 460, message: 'password changed' } }))).toMatchObject({ kind: 'auth' });
    expect(metaVerdict(response(400, { error: { code: 100, message: 'bad field' } }))).toMatchObject({ kind: 'fail' });
    expect(metaVerdict(response(400, { error: { code: 2, error_subcode: 1504041, message: 'Invalid Breakdowns' } }))).toMatchObject({ kind: 'fail' });
    expect(regainAccessMs(new Headers())).toBeNull();
    expect(isTooMuchData({ code: 1 })).toBe(true);
    expect(isTooMuchData({ code: 100, error_subcode: 1487534 })).toBe(true);
    expect(isTooMuchData({ code: 100, error_subcode: 1504018 })).toBe(true);
    expect(isTooMuchData({ code: 2, error_subcode: 1504038 })).toBe(true);
    expect(isTooMuchData({ code: 2, error_subcode: 1504043 })).toBe(false);
    expect(isTooMuchData({ code: 100 })).toBe(false);
  });
});
