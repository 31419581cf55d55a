import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleAdsFake, type GoogleAdsFake } from '../../../../test/fakes/googleads.ts';
import { ConnectorAuthError, MalformedResponseError } from '../connector.ts';
import { adConnectorTestKit, spendByDay } from '../ads-shared/test-support.ts';
import { utcWindow } from '../test-support.ts';
import { durationMs, googleAdsVerdict, tokenUrlFor, type GoogleAdsRow } from './client.ts';
import { googleadsConnector } from './index.ts';
import { mapCampaignDay, mapDailyCost } from './map.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';

const connector = googleadsConnector;
const BACKFILL = utcWindow('2026-01-01', '2026-03-01');

let fake: GoogleAdsFake;
beforeAll(async () => {
  fake = await startGoogleAdsFake({ seed: 7, campaigns: 6, batchSize: 100 });
});
afterAll(() => fake.close());

const { contextWith, readAll, settings, expectIncrementalReadsChange, expectReplayedBatchUnchanged } = adConnectorTestKit(connector, () => fake);

describe('googleads connector against the fake', () => {
  it('backfills every campaign-day of the window in 31-day slices, with the fake spend per day', async () => {
    const { rows, batches } = await readAll(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28');
    expect(batches).toBe(2);
    expect(rows).toHaveLength(expected.rows);
    expect(new Set(rows.map((row) => `${row.campaignId}|${row.day}`)).size).toBe(rows.length);
    expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
    expect(rows[0]).toMatchObject({ platform: 'googleads', accountId: '1234567890', currency: 'USD' });
  });

  it('reads only the days of an incremental window, with changes made since', async () => {
    await expectIncrementalReadsChange(utcWindow('2026-02-10', '2026-02-13'), ['2026-02-10', '2026-02-11', '2026-02-12'], 0, { conversions: 99.5, conversionValueMinor: 1234567 });
  });

  it('returns the same rows when a page is replayed with the same cursor', async () => {
    const { second } = await expectReplayedBatchUnchanged(BACKFILL);
    expect(second.nextCursor).toBeNull();
  });

  it('waits the retryDelay Google gives with RESOURCE_EXHAUSTED, and retries server errors', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: 'searchStream' });
    fake.injectFault('server_error', { pathIncludes: 'searchStream' });
    const batch = await connector.fetchBatch(contextWith(fake.connectedCredentials(), waits), BACKFILL, null);
    expect(batch.adMetrics!.length).toBeGreaterThan(0);
    expect(waits[0]).toBe(30_000);
    expect(waits).toHaveLength(2);
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    fake.injectFault('malformed', { pathIncludes: 'searchStream' });
    await expect(connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null)).rejects.toThrow(MalformedResponseError);
  });

  it('turns a revoked authorization into ConnectorAuthError, for the API and for the refresh', async () => {
    const credentials = fake.connectedCredentials();
    fake.injectFault('revoked', { pathIncludes: 'searchStream' });
    const error = await connector.fetchBatch(contextWith(credentials), BACKFILL, null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/expired or access was revoked/);
    const refreshError = await connector.oauth!.refresh!(contextWith(credentials), settings()).catch((caught: unknown) => caught);
    expect(refreshError).toBeInstanceOf(ConnectorAuthError);
    expect((refreshError as ConnectorAuthError).reason).toMatch(/revoked or has expired.*Reconnect Google Ads/);
  });

  it('recovers from an expired access token with the refresh the engine does', async () => {
    const credentials = fake.connectedCredentials();
    fake.auth.expireAccessTokens();
    await expect(connector.fetchBatch(contextWith(credentials), BACKFILL, null)).rejects.toThrow(ConnectorAuthError);
    const refreshed = await connector.oauth!.refresh!(contextWith(credentials), settings());
    expect(refreshed.accessToken).not.toBe(credentials.accessToken);
    expect(refreshed.refreshToken).toBe(credentials.refreshToken);
    expect(refreshed.customerId).toBe(credentials.customerId);
    expect(Date.parse(refreshed.expiresAt!)).toBeGreaterThan(Date.now() + 3_000_000);
    await expect(connector.fetchBatch(contextWith(refreshed), BACKFILL, null)).resolves.toBeTruthy();
  });

  it('verifies the connection with the customer name and currency', async () => {
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: '1234567890', accountName: 'Fake Store Ads', currency: 'USD' });
  });

  it('gives the account-level daily cost as source totals', async () => {
    const totals = await connector.sourceTotals!(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28').spendMinorByDay;
    expect(Object.fromEntries(totals.map((total) => [total.day, total.spendMinor]))).toEqual(expected);
    expect(totals.every((total) => total.currency === 'USD')).toBe(true);
  });

  it('connects through the consent page, the code exchange and a refresh', async () => {
    const url = new URL(connector.oauth!.authorizeUrl(settings(), 'state-123', {}));
    expect(url.origin + url.pathname).toBe(`${fake.url}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: fake.auth.clientId,
      redirect_uri: settings().redirectUri,
      scope: 'https://www.googleapis.com/auth/adwords',
      state: 'state-123',
      access_type: 'offline',
      response_type: 'code',
    });
    const page = await (await fetch(url)).text();
    expect(page).toContain('StorePulse (fake)');
    expect(page).toContain('https://www.googleapis.com/auth/adwords');
    const allow = new URL(/id="allow" role="button" href="([^"]+)"/.exec(page)![1]!.replaceAll('&#38;', '&'));
    expect(allow.searchParams.get('state')).toBe('state-123');
    const code = allow.searchParams.get('code')!;

    const ctx = contextWith({});
    const credentials = await connector.oauth!.exchangeCode(ctx, settings(), code, {});
    expect(credentials).toMatchObject({ customerId: '1234567890' });
    expect(credentials.accessToken && credentials.refreshToken && credentials.expiresAt).toBeTruthy();
    await expect(connector.oauth!.exchangeCode(ctx, settings(), code, {})).rejects.toThrow(/already used/);

    const refreshed = await connector.oauth!.refresh!(contextWith(credentials), settings());
    await expect(connector.verify(contextWith(refreshed))).resolves.toMatchObject({ accountId: '1234567890' });
  });

  it('refuses an authorization code older than ten minutes', async () => {
    const code = fake.auth.issueCode(fake.auth.clientId, settings().redirectUri);
    fake.auth.advance(11 * 60_000);
    await expect(connector.oauth!.exchangeCode(contextWith({}), settings(), code, {})).rejects.toThrow(ConnectorAuthError);
  });
});

describe('googleads through a manager account', () => {
  let managed: GoogleAdsFake;
  beforeAll(async () => {
    managed = await startGoogleAdsFake({ managerCustomerId: '9876543210', customerId: '1112223333' });
  });
  afterAll(() => managed.close());

  it('sends login-customer-id, without which Google denies access', async () => {
    const credentials = managed.connectedCredentials();
    const ctx = { ...contextWith(credentials), baseUrl: managed.url };
    await expect(connector.verify(ctx)).resolves.toMatchObject({ accountId: '1112223333' });
    expect(managed.requests.at(-1)!.headers['login-customer-id']).toBe('9876543210');
    const { loginCustomerId: _ignored, ...withoutManager } = credentials;
    const error = await connector.verify({ ...ctx, credentials: withoutManager }).catch((caught: unknown) => caught);
    expect((error as ConnectorAuthError).reason).toMatch(/login-customer-id/);
  });
});

describe('googleads mapping', () => {
  // The searchStream row of platform-apis.md §3.3.
  const documented: GoogleAdsRow = {
    customer: { currencyCode: 'USD' },
    campaign: { id: '111', name: 'Brand Search' },
    metrics: { impressions: '5000', clicks: '120', costMicros: '250000000', conversions: 15.0, conversionsValue: 750.0 },
    segments: { date: '2026-01-15' },
  };

  it('maps the documented row exactly', () => {
    expect(mapCampaignDay(documented, '1234567890')).toEqual({
      platform: 'googleads',
      accountId: '1234567890',
      campaignId: '111',
      day: '2026-01-15',
      campaignName: 'Brand Search',
      currency: 'USD',
      impressions: 5000,
      clicks: 120,
      spendMinor: 25000,
      conversions: 15,
      conversionValueMinor: 75000,
    });
  });

  it('defaults metrics left out (proto3 zeros) to 0 and rounds micros half away from zero', () => {
    const row = mapCampaignDay({ ...documented, metrics: { costMicros: '1234567', conversions: 2.5, conversionsValue: 19.995 } }, '1');
    expect(row).toMatchObject({ impressions: 0, clicks: 0, spendMinor: 123, conversions: 2.5, conversionValueMinor: 2000 });
    expect(mapCampaignDay({ ...documented, customer: { currencyCode: 'JPY' }, metrics: { costMicros: '1500500000' } }, '1').spendMinor).toBe(1501);
  });

  it('refuses rows without a currency or a date', () => {
    expect(() => mapCampaignDay({ ...documented, customer: {} }, '1')).toThrow(MalformedResponseError);
    expect(() => mapCampaignDay({ ...documented, segments: undefined }, '1')).toThrow(MalformedResponseError);
    expect(mapDailyCost([{ customer: { currencyCode: 'EUR' }, segments: { date: '2026-01-02' }, metrics: { costMicros: '10000' } }])).toEqual([
      { day: '2026-01-02', currency: 'EUR', spendMinor: 1 },
    ]);
  });

  it('reads Google throttling and auth errors from the documented envelope', () => {
    const throttled = JSON.stringify([
      {
        error: {
          code: 429,
          message: 'Too many requests.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'x', errors: [{ errorCode: { quotaError: 'RESOURCE_TEMPORARILY_EXHAUSTED' }, message: 'Retry in 30 seconds.', details: { quotaErrorDetails: { retryDelay: '30s' } } }] }],
        },
      },
    ]);
    const response = (status: number, text: string) => platformAnswer(status, text);
    expect(googleAdsVerdict(response(429, throttled))).toMatchObject({ kind: 'retry', afterMs: 30_000 });
    expect(googleAdsVerdict(response(401, JSON.stringify({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'bad token' } })))).toMatchObject({ kind: 'auth' });
    expect(durationMs('1.5s')).toBe(1500);
    expect(tokenUrlFor({ ...settings(), authorizeBaseUrl: 'https://accounts.google.com' })).toBe('https://oauth2.googleapis.com/token');
  });
});
