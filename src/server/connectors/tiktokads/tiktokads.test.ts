import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTikTokAdsFake, type TikTokAdsFake } from '../../../../test/fakes/tiktokads.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { ConnectorAuthError, MalformedResponseError, type PlatformAccount } from '../connector.ts';
import { adConnectorTestKit, readAllRows, spendByDay, storeAdRows } from '../ads-shared/test-support.ts';
import { utcWindow } from '../test-support.ts';
import { tiktokVerdict, type ReportRow } from './client.ts';
import { createTikTokAdsConnector, tiktokadsConnector } from './index.ts';
import { mapReportRow } from './map.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';

const connector = tiktokadsConnector;
const BACKFILL = utcWindow('2026-01-01', '2026-03-01');

let fake: TikTokAdsFake;
beforeAll(async () => {
  fake = await startTikTokAdsFake({ seed: 5, campaigns: 40 });
});
afterAll(() => fake.close());

const { contextWith, readAll, settings, expectIncrementalReadsChange, expectReplayedBatchUnchanged } = adConnectorTestKit(connector, () => fake);

describe('tiktokads connector against the fake', () => {
  it('backfills the window in 30-day slices, each read in parts that fit in one page', async () => {
    const { rows, batches, estimates } = await readAll(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28');
    expect(batches).toBe(2);
    expect(rows).toHaveLength(expected.rows);
    expect(new Set(rows.map((row) => `${row.campaignId}|${row.day}`)).size).toBe(rows.length);
    expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
    expect(rows[0]).toMatchObject({ platform: 'tiktokads', accountId: '7010000000000000000', currency: 'USD' });
    expect(Math.abs(estimates[0]! - expected.rows) / expected.rows).toBeLessThan(0.1);
    const reports = fake.requests.filter((request) => request.path.endsWith('/report/integrated/get/')).map((request) => Object.fromEntries(new URLSearchParams(request.query)));
    expect(reports[0]).toMatchObject({
      data_level: 'AUCTION_CAMPAIGN',
      dimensions: '["campaign_id","stat_time_day"]',
      start_date: '2026-01-01',
      end_date: '2026-01-30',
      order_field: 'spend',
      order_type: 'ASC',
      page: '1',
      page_size: '1000',
    });
    // 40 campaigns x 30 days is more than a page: the slice is read as two halves of 15 days, each one page.
    expect(reports.slice(1, 3).map((query) => [query.start_date, query.end_date])).toEqual([
      ['2026-01-01', '2026-01-15'],
      ['2026-01-16', '2026-01-30'],
    ]);
    expect(reports.every((query) => query.page === '1')).toBe(true);
  });

  it('reads only the days of an incremental window, with changes made since', async () => {
    await expectIncrementalReadsChange(utcWindow('2026-02-27', '2026-03-01'), ['2026-02-27', '2026-02-28'], 5, { conversions: 4, conversionValueMinor: 8_800 });
  });

  it('returns the same rows when a page is replayed with the same cursor', async () => {
    const { first, second } = await expectReplayedBatchUnchanged(BACKFILL);
    expect(JSON.parse(first.nextCursor!)).toEqual({ index: 0, accountId: '7010000000000000000', inner: '{"from":"2026-01-31"}' });
    expect(second.nextCursor).toBeNull();
  });

  it('retries code 40100 and TikTok server errors', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: '/report/' });
    fake.injectFault('server_error', { pathIncludes: '/report/' });
    const batch = await connector.fetchBatch(contextWith(fake.connectedCredentials(), waits), BACKFILL, null);
    expect(batch.adMetrics!.length).toBeGreaterThan(0);
    expect(waits).toHaveLength(2);
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    fake.injectFault('malformed', { pathIncludes: '/report/' });
    await expect(connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null)).rejects.toThrow(MalformedResponseError);
  });

  it('turns a revoked token (code 40105) into ConnectorAuthError with a reason', async () => {
    const credentials = fake.connectedCredentials();
    fake.injectFault('revoked', { pathIncludes: '/report/' });
    const error = await connector.fetchBatch(contextWith(credentials), BACKFILL, null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/wrong or was revoked.*Reconnect TikTok Ads/);
  });

  it('verifies the advertiser with its name and currency', async () => {
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: '7010000000000000000', accountName: 'Fake Store – TikTok', currency: 'USD', timezone: 'Etc/GMT' });
  });

  it('gives the advertiser-level daily spend as source totals', async () => {
    const totals = await connector.sourceTotals!(contextWith(fake.connectedCredentials()), BACKFILL);
    expect(Object.fromEntries(totals.map((total) => [total.day, total.spendMinor]))).toEqual(fake.expectedTotals('2026-01-01', '2026-02-28').spendMinorByDay);
  });

  it('connects through the authorization page and the auth_code exchange', async () => {
    const url = new URL(connector.oauth!.authorizeUrl(settings(), 'tt-state', {}));
    expect(url.pathname).toBe('/portal/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({ app_id: fake.auth.clientId, state: 'tt-state', redirect_uri: settings().redirectUri });
    const page = await (await fetch(url)).text();
    expect(page).toContain('StorePulse (fake)');
    const allow = new URL(/id="allow" role="button" href="([^"]+)"/.exec(page)![1]!.replaceAll('&#38;', '&'));
    expect(allow.searchParams.get('state')).toBe('tt-state');
    const authCode = allow.searchParams.get('auth_code')!;
    const credentials = await connector.oauth!.exchangeCode(contextWith({}), settings(), authCode, {});
    // The token and the advertisers authorized; none is chosen for the user.
    expect(credentials).toEqual({ accessToken: expect.any(String), advertiserIds: '["7010000000000000000"]' });
    await expect(connector.verify(contextWith(credentials))).resolves.toMatchObject({ accountId: '7010000000000000000', currency: 'USD' });
    const reused = await connector.oauth!.exchangeCode(contextWith({}), settings(), authCode, {}).catch((caught: unknown) => caught);
    expect((reused as ConnectorAuthError).reason).toMatch(/authorization code/);
    expect(connector.oauth!.refresh).toBeUndefined();
  });
});

describe('tiktokads with several advertisers and pages that move', () => {
  const US = '7020000000000000001';
  const DE = '7020000000000000002';
  const database = useTestDatabase();
  let multi: TikTokAdsFake;
  beforeAll(async () => {
    multi = await startTikTokAdsFake({
      campaigns: 2,
      advertisers: [
        { id: US, name: 'Shop US', currency: 'USD', timezone: 'America/Los_Angeles' },
        { id: DE, name: 'Shop DE', currency: 'EUR', timezone: 'Europe/Berlin', campaigns: 5 },
      ],
    });
  });
  afterAll(() => multi.close());

  // Pages of two rows, so that a few hand-written rows span several pages.
  const small = createTikTokAdsConnector({ pageSize: 2 });
  const at = (credentials: Record<string, string>, accounts?: PlatformAccount[]) => ({ ...contextWith(credentials), baseUrl: multi.url, ...(accounts ? { accounts } : {}) });
  const reportQueries = () => multi.requests.filter((request) => request.path.endsWith('/report/integrated/get/')).map((request) => new URLSearchParams(request.query));

  it('lists every authorized advertiser with its currency and time zone', async () => {
    expect(await small.listAccounts!(at(multi.loginCredentials()))).toEqual([
      { accountId: US, name: 'Shop US', currency: 'USD', timezone: 'America/Los_Angeles', isManager: false, access: {} },
      { accountId: DE, name: 'Shop DE', currency: 'EUR', timezone: 'Europe/Berlin', isManager: false, access: {} },
    ]);
  });

  it('a backfill over pages dealt anew on every request stores each row once, with the right totals per advertiser', async () => {
    const us = multi.dataOf(US);
    const de = multi.dataOf(DE);
    const figures = { impressions: 500, clicks: 20, conversions: 1, conversionValueMinor: 3000 };
    // US: 2 campaigns x 3 days, all $3.00 (ties: even sorted by spend, their order is anyone's).
    for (const day of ['2026-04-01', '2026-04-02', '2026-04-03']) for (const index of [0, 1]) us.update(us.campaignId(index), day, { ...figures, spendMinor: 300 });
    // DE: 5 campaigns on one day, more than a page: €1.00, €2.00, €3.00, €4.00, €5.00; none on the other days.
    for (const index of [0, 1, 2, 3, 4]) {
      de.update(de.campaignId(index), '2026-04-01', { ...figures, spendMinor: (index + 1) * 100 });
      for (const day of ['2026-04-02', '2026-04-03']) de.update(de.campaignId(index), day, null);
    }
    const before = reportQueries().length;
    const ctx = at(multi.loginCredentials(), await small.listAccounts!(at(multi.loginCredentials())));
    const rows = await readAllRows(small, ctx, utcWindow('2026-04-01', '2026-04-04'));

    // US: 6 rows x 300 = 1800 cents; DE: 100 + 200 + 300 + 400 + 500 = 1500 cents.
    expect(await storeAdRows(database.orm, rows)).toEqual([
      { accountId: US, currency: 'USD', spendMinor: 1800, days: ['2026-04-01', '2026-04-02', '2026-04-03'] },
      { accountId: DE, currency: 'EUR', spendMinor: 1500, days: ['2026-04-01'] },
    ]);
    expect(rows).toHaveLength(6 + 5);
    const sent = reportQueries().slice(before);
    // US: 6 rows over 3 days do not fit a page of 2: halved (1 day, then 2 days, halved again) until each part does.
    expect(sent.filter((query) => query.get('advertiser_id') === US).map((query) => `${query.get('start_date')}..${query.get('end_date')}#${query.get('page')}`)).toEqual([
      '2026-04-01..2026-04-03#1',
      '2026-04-01..2026-04-01#1',
      '2026-04-02..2026-04-03#1',
      '2026-04-02..2026-04-02#1',
      '2026-04-03..2026-04-03#1',
    ]);
    // DE: one day of 5 rows cannot be cut: read page by page (3 pages), in spend order.
    const dePages = sent.filter((query) => query.get('advertiser_id') === DE && query.get('start_date') === '2026-04-01' && query.get('end_date') === '2026-04-01');
    expect(dePages.map((query) => [query.get('page'), query.get('order_field'), query.get('order_type')])).toEqual([
      ['1', 'spend', 'ASC'],
      ['2', 'spend', 'ASC'],
      ['3', 'spend', 'ASC'],
    ]);
  });

  it('without a sort order the fake deals the rows anew, so pages read one after the other lose and repeat rows', async () => {
    const query = (page: number) =>
      new URLSearchParams({
        advertiser_id: DE,
        report_type: 'BASIC',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: '["campaign_id","stat_time_day"]',
        metrics: '["spend"]',
        start_date: '2026-04-01',
        end_date: '2026-04-01',
        page: String(page),
        page_size: '2',
      });
    const token = multi.loginCredentials().accessToken!;
    const orders = new Set<string>();
    for (let attempt = 0; attempt < 5; attempt++) {
      const pages = [];
      for (const page of [1, 2, 3]) {
        const answer = (await (await fetch(`${multi.url}/open_api/v1.3/report/integrated/get/?${query(page)}`, { headers: { 'access-token': token } })).json()) as { data: { list: ReportRow[] } };
        pages.push(...answer.data.list.map((row) => row.metrics.spend));
      }
      orders.add(pages.join(','));
    }
    expect(orders.size).toBeGreaterThan(1);
  });
});

describe('tiktokads mapping', () => {
  // The report row of platform-apis.md §6.2.
  const documented: ReportRow = {
    dimensions: { campaign_id: '1800000000000001', stat_time_day: '2026-01-15 00:00:00' },
    metrics: { campaign_name: 'Spring Sale', spend: '175.25', impressions: '40000', clicks: '220', conversion: '14', complete_payment: '12', total_complete_payment_rate: '420.00' },
  };

  it('maps the documented row, with purchases as conversions', () => {
    expect(mapReportRow(documented, '7010000000000000000', 'USD')).toEqual({
      platform: 'tiktokads',
      accountId: '7010000000000000000',
      campaignId: '1800000000000001',
      day: '2026-01-15',
      campaignName: 'Spring Sale',
      currency: 'USD',
      impressions: 40000,
      clicks: 220,
      spendMinor: 17525,
      conversions: 12,
      conversionValueMinor: 42000,
    });
  });

  it('reads "-" as no data', () => {
    const row = { ...documented, metrics: { ...documented.metrics, complete_payment: '-', total_complete_payment_rate: '-', clicks: '-' } };
    expect(mapReportRow(row, '1', 'USD')).toMatchObject({ conversions: 0, conversionValueMinor: 0, clicks: 0 });
  });

  it('reads TikTok codes: 40100 retries, token codes disconnect, others fail', () => {
    const response = (body: unknown) => platformAnswer(200, body);
    expect(tiktokVerdict(response({ code: 40100, message: 'QPS' }))).toMatchObject({ kind: 'retry' });
    expect(tiktokVerdict(response({ code: 40105, message: 'bad token' }))).toMatchObject({ kind: 'auth' });
    expect(tiktokVerdict(response({ code: 40002, message: 'bad param' }))).toMatchObject({ kind: 'fail' });
    expect(tiktokVerdict(response({ code: 0, message: 'OK', data: {} }))).toBeUndefined();
  });
});
