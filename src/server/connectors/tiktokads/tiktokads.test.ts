import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTikTokAdsFake, type TikTokAdsFake } from '../../../../test/fakes/tiktokads.ts';
import { ConnectorAuthError, MalformedResponseError } from '../connector.ts';
import { adConnectorTestKit, spendByDay } from '../ads-shared/test-support.ts';
import { utcWindow } from '../test-support.ts';
import { tiktokVerdict, type ReportRow } from './client.ts';
import { tiktokadsConnector } from './index.ts';
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
  it('backfills the window in 30-day slices, page by page', async () => {
    const { rows, batches, estimates } = await readAll(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28');
    expect(batches).toBe(4);
    expect(rows).toHaveLength(expected.rows);
    expect(new Set(rows.map((row) => `${row.campaignId}|${row.day}`)).size).toBe(rows.length);
    expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
    expect(rows[0]).toMatchObject({ platform: 'tiktokads', accountId: '7010000000000000000', currency: 'USD' });
    expect(Math.abs(estimates[0]! - expected.rows) / expected.rows).toBeLessThan(0.1);
    const report = fake.requests.find((request) => request.path.endsWith('/report/integrated/get/'))!;
    expect(report.headers['access-token']).toBeTruthy();
    expect(Object.fromEntries(new URLSearchParams(report.query))).toMatchObject({
      data_level: 'AUCTION_CAMPAIGN',
      dimensions: '["campaign_id","stat_time_day"]',
      start_date: '2026-01-01',
      end_date: '2026-01-30',
      page: '1',
      page_size: '1000',
    });
  });

  it('reads only the days of an incremental window, with changes made since', async () => {
    await expectIncrementalReadsChange(utcWindow('2026-02-27', '2026-03-01'), ['2026-02-27', '2026-02-28'], 5, { conversions: 4, conversionValueMinor: 8_800 });
  });

  it('returns the same rows when a page is replayed with the same cursor', async () => {
    const { first, second } = await expectReplayedBatchUnchanged(BACKFILL);
    expect(JSON.parse(first.nextCursor!)).toMatchObject({ from: '2026-01-01', page: 2 });
    expect(JSON.parse(second.nextCursor!)).toMatchObject({ from: '2026-01-31', page: 1 });
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
    const error = await connector.fetchBatch(contextWith(credentials), BACKFILL, JSON.stringify({ from: '2026-01-01', page: 1, currency: 'USD' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/wrong or was revoked.*Reconnect TikTok Ads/);
  });

  it('verifies the advertiser with its name and currency', async () => {
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: '7010000000000000000', accountName: 'Fake Store – TikTok', currency: 'USD' });
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
    expect(credentials).toMatchObject({ advertiserId: '7010000000000000000' });
    await expect(connector.verify(contextWith(credentials))).resolves.toMatchObject({ currency: 'USD' });
    const reused = await connector.oauth!.exchangeCode(contextWith({}), settings(), authCode, {}).catch((caught: unknown) => caught);
    expect((reused as ConnectorAuthError).reason).toMatch(/authorization code/);
    expect(connector.oauth!.refresh).toBeUndefined();
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
