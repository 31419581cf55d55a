import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetaAdsFake, type MetaAdsFake } from '../../../../test/fakes/metaads.ts';
import { ConnectorAuthError, MalformedResponseError } from '../connector.ts';
import { adConnectorTestKit, spendByDay } from '../ads-shared/test-support.ts';
import { utcWindow } from '../test-support.ts';
import { metaVerdict, regainAccessMs, type InsightsRow } from './client.ts';
import { metaadsConnector } from './index.ts';
import { mapInsightsRow } from './map.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';

const connector = metaadsConnector;
const BACKFILL = utcWindow('2026-01-01', '2026-03-01');

let fake: MetaAdsFake;
beforeAll(async () => {
  fake = await startMetaAdsFake({ seed: 11, campaigns: 20 });
});
afterAll(() => fake.close());

const { contextWith, readAll, settings, expectIncrementalReadsChange, expectReplayedBatchUnchanged } = adConnectorTestKit(connector, () => fake);

describe('metaads connector against the fake', () => {
  it('backfills every campaign-day by following the insights pages', async () => {
    const { rows, batches } = await readAll(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28');
    expect(batches).toBe(Math.ceil(expected.rows / 500));
    expect(batches).toBeGreaterThan(1);
    expect(rows).toHaveLength(expected.rows);
    expect(new Set(rows.map((row) => `${row.campaignId}|${row.day}`)).size).toBe(rows.length);
    expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
    expect(rows[0]).toMatchObject({ platform: 'metaads', accountId: '1234567890', currency: 'USD' });
    const insightsCall = fake.requests.find((request) => request.path.endsWith('/insights'))!;
    const query = new URLSearchParams(insightsCall.query);
    expect(Object.fromEntries(query)).toMatchObject({ level: 'campaign', time_increment: '1', time_range: '{"since":"2026-01-01","until":"2026-02-28"}' });
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
    const batch = await connector.fetchBatch(contextWith(fake.connectedCredentials(), waits), BACKFILL, null);
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

  it('turns code 190 (app removed, token expired) into ConnectorAuthError with a reason', async () => {
    fake.injectFault('expired_token', { pathIncludes: '/insights' });
    const credentials = fake.connectedCredentials();
    const expired = await connector.fetchBatch(contextWith(credentials), BACKFILL, JSON.stringify({ after: null, currency: 'USD' })).catch((caught: unknown) => caught);
    expect((expired as ConnectorAuthError).reason).toMatch(/access token has expired/);
    fake.injectFault('revoked');
    const revoked = await connector.verify(contextWith(fake.connectedCredentials())).catch((caught: unknown) => caught);
    expect(revoked).toBeInstanceOf(ConnectorAuthError);
    expect((revoked as ConnectorAuthError).reason).toMatch(/app was removed/);
  });

  it('verifies the ad account with its name and currency', async () => {
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: '1234567890', accountName: 'Fake Store – Meta', currency: 'USD' });
  });

  it('gives the account-level daily spend as source totals', async () => {
    const totals = await connector.sourceTotals!(contextWith(fake.connectedCredentials()), BACKFILL);
    expect(Object.fromEntries(totals.map((total) => [total.day, total.spendMinor]))).toEqual(fake.expectedTotals('2026-01-01', '2026-02-28').spendMinorByDay);
  });

  it('connects through the Login dialog, the code exchange and the long-lived token exchange', async () => {
    const url = new URL(connector.oauth!.authorizeUrl(settings(), 'state-xyz', {}));
    expect(url.pathname).toBe('/v25.0/dialog/oauth');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: fake.auth.clientId, redirect_uri: settings().redirectUri, scope: 'ads_read', state: 'state-xyz' });
    const page = await (await fetch(url)).text();
    expect(page).toContain('StorePulse (fake)');
    expect(page).toContain('ads_read');
    const allow = new URL(/id="allow" role="button" href="([^"]+)"/.exec(page)![1]!.replaceAll('&#38;', '&'));
    expect(allow.searchParams.get('state')).toBe('state-xyz');

    const credentials = await connector.oauth!.exchangeCode(contextWith({}), settings(), allow.searchParams.get('code')!, {});
    expect(credentials.adAccountId).toBe('1234567890');
    expect(Date.parse(credentials.expiresAt!) - Date.now()).toBeGreaterThan(59 * 86_400_000);
    const exchanges = fake.requests.filter((request) => request.path.endsWith('/oauth/access_token'));
    expect(exchanges.at(-1)!.query).toContain('grant_type=fb_exchange_token');
    await expect(connector.verify(contextWith(credentials))).resolves.toMatchObject({ accountId: '1234567890' });
    expect(connector.oauth!.refresh).toBeUndefined();

    const other = fake.auth.issueCode(fake.auth.clientId, settings().redirectUri);
    await expect(connector.oauth!.exchangeCode(contextWith({}), settings(), other, { adAccountId: 'act_5550001111' })).resolves.toMatchObject({ adAccountId: '5550001111' });
    const reused = await connector.oauth!.exchangeCode(contextWith({}), settings(), other, {}).catch((caught: unknown) => caught);
    expect(String(reused)).toMatch(/already used/);
  });
});

describe('metaads mapping', () => {
  // The insights row of platform-apis.md §4.2.
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
      spendMinor: 533950,
      conversions: 42,
      conversionValueMinor: 412077,
    });
  });

  it('falls back to purchase when omni_purchase is absent, and to 0 without purchases', () => {
    const onlyPixel = { ...documented, actions: [{ action_type: 'purchase', value: '3' }], action_values: [{ action_type: 'purchase', value: '10' }] };
    expect(mapInsightsRow(onlyPixel, '1', 'JPY')).toMatchObject({ conversions: 3, conversionValueMinor: 10, spendMinor: 5340 });
    expect(mapInsightsRow({ ...documented, actions: undefined, action_values: undefined }, '1', 'USD')).toMatchObject({ conversions: 0, conversionValueMinor: 0 });
    expect(() => mapInsightsRow({ ...documented, date_stop: '2026-01-16' }, '1', 'USD')).toThrow(MalformedResponseError);
  });

  it('reads the documented throttling and token errors', () => {
    const response = (status: number, body: unknown, headers: Record<string, string> = {}) => platformAnswer(status, body, headers);
    const usage = { 'x-business-use-case-usage': JSON.stringify({ '123': [{ type: 'ads_insights', estimated_time_to_regain_access: 5 }] }) };
    expect(metaVerdict(response(400, { error: { code: 613, error_subcode: 1487742, message: 'too many calls' } }, usage))).toMatchObject({ kind: 'retry', afterMs: 300_000 });
    expect(metaVerdict(response(400, { error: { code: 80000, message: 'insights BUC' } }))).toMatchObject({ kind: 'retry' });
    expect(metaVerdict(response(400, { error: { code: 4, message: 'app limit' } }))).toMatchObject({ kind: 'retry' });
    expect(metaVerdict(response(400, { error: { code: 190, error_subcode: 460, message: 'password changed' } }))).toMatchObject({ kind: 'auth' });
    expect(metaVerdict(response(400, { error: { code: 100, message: 'bad field' } }))).toMatchObject({ kind: 'fail' });
    expect(regainAccessMs(new Headers())).toBeNull();
  });
});
