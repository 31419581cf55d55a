import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleAdsFake, type GoogleAdsFake } from '../../../../test/fakes/googleads.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { AppError } from '../../errors.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type PlatformAccount } from '../connector.ts';
import { adConnectorTestKit, spendByDay, storeAdRows } from '../ads-shared/test-support.ts';
import { utcWindow } from '../test-support.ts';
import { CUSTOMER_QUERY, dailyCampaignQuery, durationMs, googleAdsVerdict, searchStream, tokenUrlFor, type GoogleAdsRow } from './client.ts';
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
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: '1234567890', accountName: 'Fake Store Ads', currency: 'USD', timezone: 'America/New_York' });
  });

  it("reads each slice's products from shopping_performance_view beside its campaigns, cost in micros kept exact", async () => {
    fake.setProductDays('1234567890', [
      { itemId: 'mug-1', day: '2026-01-05', clicks: 3, impressions: 90, costMinor: 1234, conversions: 0.5, conversionValueMinor: 2599 },
      { itemId: 'tee-1', day: '2026-02-10', clicks: 1, impressions: 10, costMinor: 7, conversions: 0, conversionValueMinor: 0 },
    ]);
    const first = await connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null);
    expect(first.productAdSlices).toEqual([
      {
        platform: 'googleads', accountId: '1234567890', from: '2026-01-01', to: '2026-01-31',
        rows: [{ productItemId: 'mug-1', day: '2026-01-05', currency: 'USD', clicks: 3, impressions: 90, costMicros: '12340000', conversions: 0.5, conversionValue: 25.99 }],
      },
    ]);
    const second = await connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, first.nextCursor);
    expect(second.productAdSlices?.[0]).toMatchObject({ from: '2026-02-01', to: '2026-02-28', rows: [expect.objectContaining({ productItemId: 'tee-1', costMicros: '70000' })] });
    fake.setProductDays('1234567890', []);
  });

  it('the fake refuses a field Google does not allow with shopping_performance_view, as Google does', async () => {
    const access = { apiRoot: fake.url, version: 'v23', accessToken: fake.connectedCredentials().accessToken!, customerId: '1234567890' };
    const query = "SELECT ad_group_ad.ad.id, segments.product_item_id, metrics.clicks FROM shopping_performance_view WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31'";
    const error = await searchStream(contextWith(fake.connectedCredentials()).http, access, query).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorRequestError);
    expect((error as ConnectorRequestError).detail).toContain("cannot be selected with the resource in the FROM clause: 'ad_group_ad.ad.id'");
  });

  it('gives the account-level daily cost as source totals', async () => {
    const totals = await connector.sourceTotals!(contextWith(fake.connectedCredentials()), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28').spendMinorByDay;
    expect(Object.fromEntries(totals.map((total) => [total.day, total.spendMinor]))).toEqual(expected);
    expect(totals.every((total) => total.currency === 'USD' && total.accountId === '1234567890')).toBe(true);
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
    // Tokens only: no account is chosen for the user.
    expect(Object.keys(credentials).sort()).toEqual(['accessToken', 'expiresAt', 'refreshToken']);
    await expect(connector.oauth!.exchangeCode(ctx, settings(), code, {})).rejects.toThrow(/already used/);

    const refreshed = await connector.oauth!.refresh!(contextWith(credentials), settings());
    await expect(connector.verify(contextWith(refreshed))).resolves.toMatchObject({ accountId: '1234567890' });
    await expect(connector.listAccounts!(contextWith(refreshed))).resolves.toEqual([
      { accountId: '1234567890', name: 'Fake Store Ads', currency: 'USD', timezone: 'America/New_York', isManager: false, access: {} },
    ]);
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

describe('googleads through a manager login (MCC)', () => {
  const MANAGER = '9876543210';
  const SUB_MANAGER = '7778889999';
  const US_CLIENT = '1112223333';
  const DE_CLIENT = '4445556666';
  const UK_CLIENT = '1010101010';
  const CANCELLED = '2020202020';
  const database = useTestDatabase();
  let mcc: GoogleAdsFake;
  beforeAll(async () => {
    mcc = await startGoogleAdsFake({
      campaigns: 1,
      customers: [
        { id: MANAGER, name: 'Agency', currency: 'USD', timeZone: 'America/New_York', manager: true, clients: [US_CLIENT, DE_CLIENT, SUB_MANAGER, CANCELLED] },
        { id: US_CLIENT, name: 'Shop US', currency: 'USD', timeZone: 'America/New_York' },
        { id: DE_CLIENT, name: 'Shop DE', currency: 'EUR', timeZone: 'Europe/Berlin' },
        { id: SUB_MANAGER, name: 'Agency UK', currency: 'GBP', timeZone: 'Europe/London', manager: true, clients: [UK_CLIENT] },
        { id: UK_CLIENT, name: 'Shop UK', currency: 'GBP', timeZone: 'Europe/London' },
        { id: CANCELLED, name: 'Old shop', currency: 'USD', timeZone: 'America/New_York', status: 'CANCELED' },
      ],
    });
  });
  afterAll(() => mcc.close());

  const at = (credentials: Record<string, string>, accounts?: PlatformAccount[]) => ({ ...contextWith(credentials), baseUrl: mcc.url, ...(accounts ? { accounts } : {}) });
  const metricsQueriesTo = (customerId: string) => mcc.queriesFor(customerId).filter((query) => /metrics\./.test(query));

  it('lists the manager (not selectable), its sub-manager and every enabled client, reached through the manager', async () => {
    const accounts = await connector.listAccounts!(at(mcc.loginCredentials()));
    const through = { loginCustomerId: MANAGER };
    expect(accounts).toEqual([
      { accountId: MANAGER, name: 'Agency', currency: 'USD', timezone: 'America/New_York', isManager: true, access: {} },
      { accountId: US_CLIENT, name: 'Shop US', currency: 'USD', timezone: 'America/New_York', isManager: false, access: through },
      { accountId: DE_CLIENT, name: 'Shop DE', currency: 'EUR', timezone: 'Europe/Berlin', isManager: false, access: through },
      { accountId: SUB_MANAGER, name: 'Agency UK', currency: 'GBP', timezone: 'Europe/London', isManager: true, access: through },
      { accountId: UK_CLIENT, name: 'Shop UK', currency: 'GBP', timezone: 'Europe/London', isManager: false, access: through },
    ]);
    // Before any choice, the connection shows the login's first account with metrics.
    await expect(connector.verify(at(mcc.loginCredentials()))).resolves.toEqual({ accountId: US_CLIENT, accountName: 'Shop US', currency: 'USD', timezone: 'America/New_York' });
    expect([...metricsQueriesTo(MANAGER), ...metricsQueriesTo(SUB_MANAGER)]).toEqual([]);
  });

  it('syncs two chosen clients, each in its own currency, and never asks a manager for metrics', async () => {
    const us = mcc.dataOf(US_CLIENT).campaignId(0);
    const de = mcc.dataOf(DE_CLIENT).campaignId(0);
    const figures = { impressions: 1000, clicks: 40, conversions: 2, conversionValueMinor: 5000 };
    mcc.updateMetric(us, '2026-03-01', { ...figures, spendMinor: 1250 }); // $12.50
    mcc.updateMetric(us, '2026-03-02', { ...figures, spendMinor: 725 }); // $7.25
    mcc.updateMetric(de, '2026-03-01', { ...figures, spendMinor: 2000 }); // €20.00
    mcc.updateMetric(de, '2026-03-02', { ...figures, spendMinor: 99 }); // €0.99
    const listed = await connector.listAccounts!(at(mcc.loginCredentials()));
    // The user ticks the manager's two shops (the manager itself cannot be synced; were it passed, it is skipped).
    const chosen = listed.filter((account) => [MANAGER, US_CLIENT, DE_CLIENT].includes(account.accountId));
    const ctx = at(mcc.loginCredentials(), chosen);
    const window = utcWindow('2026-03-01', '2026-03-03');

    const { rows, batches } = await readAll(ctx, window);
    expect(batches).toBe(2);
    // US: 1250 + 725 = 1975 US cents; DE: 2000 + 99 = 2099 euro cents, never added together.
    expect(await storeAdRows(database.orm, rows)).toEqual([
      { accountId: US_CLIENT, currency: 'USD', spendMinor: 1975, days: ['2026-03-01', '2026-03-02'] },
      { accountId: DE_CLIENT, currency: 'EUR', spendMinor: 2099, days: ['2026-03-01', '2026-03-02'] },
    ]);
    expect(await connector.sourceTotals!(ctx, window)).toEqual([
      { day: '2026-03-01', accountId: US_CLIENT, currency: 'USD', spendMinor: 1250 },
      { day: '2026-03-02', accountId: US_CLIENT, currency: 'USD', spendMinor: 725 },
      { day: '2026-03-01', accountId: DE_CLIENT, currency: 'EUR', spendMinor: 2000 },
      { day: '2026-03-02', accountId: DE_CLIENT, currency: 'EUR', spendMinor: 99 },
    ]);
    expect(mcc.requests.filter((request) => request.path.includes(`/customers/${DE_CLIENT}/`)).every((request) => request.headers['login-customer-id'] === MANAGER)).toBe(true);
    expect(metricsQueriesTo(MANAGER)).toEqual([]);
  });

  it('verifies a connection with chosen accounts by asking Google about the first one', async () => {
    const chosen = (await connector.listAccounts!(at(mcc.loginCredentials()))).filter((account) => account.accountId === DE_CLIENT);
    const before = mcc.requests.length;
    await expect(connector.verify(at(mcc.loginCredentials(), chosen))).resolves.toEqual({ accountId: DE_CLIENT, accountName: 'Shop DE', currency: 'EUR', timezone: 'Europe/Berlin' });
    expect(mcc.requests.slice(before).map((request) => [request.path, request.headers['login-customer-id']])).toEqual([[`/v23/customers/${DE_CLIENT}/googleAds:searchStream`, MANAGER]]);
    await expect(connector.verify(at({ accessToken: 'ya29-not-issued' }, chosen))).rejects.toThrow(ConnectorAuthError);
  });

  it('refuses metrics of a manager and a client called without its manager, as Google does', async () => {
    const ctx = at(mcc.loginCredentials());
    const login = { apiRoot: mcc.url, version: 'v23', accessToken: ctx.credentials.accessToken! };
    const managerMetrics = await searchStream(ctx.http, { ...login, customerId: MANAGER }, dailyCampaignQuery({ from: '2026-03-01', to: '2026-03-01' })).catch((error: unknown) => error);
    expect(managerMetrics).toBeInstanceOf(ConnectorRequestError);
    expect((managerMetrics as ConnectorRequestError).detail).toMatch(/manager account has no metrics.*Metrics cannot be requested for a manager account/);
    const direct = await searchStream(ctx.http, { ...login, customerId: US_CLIENT }, CUSTOMER_QUERY).catch((error: unknown) => error);
    expect(direct).toBeInstanceOf(ConnectorAuthError);
    expect((direct as ConnectorAuthError).reason).toMatch(/login-customer-id/);
  });

  it('a connection made before, which took the manager as its account, syncs nothing and says why', async () => {
    const ctx = at({ ...mcc.loginCredentials(), customerId: MANAGER });
    const before = mcc.requests.length;
    await expect(connector.fetchBatch(ctx, utcWindow('2026-03-01', '2026-03-03'), null)).rejects.toThrow(/9876543210 is a manager account.*choose its client accounts/);
    await expect(connector.sourceTotals!(ctx, utcWindow('2026-03-01', '2026-03-03'))).rejects.toThrow(AppError);
    const sent = mcc.requests.slice(before).map((request) => String((JSON.parse(request.rawBody) as { query: string }).query));
    expect(sent).toEqual([CUSTOMER_QUERY, CUSTOMER_QUERY]);
  });

  it('a chosen account that was cancelled fails the sync without disconnecting the login', async () => {
    const cancelled: PlatformAccount = { accountId: CANCELLED, name: 'Old shop', currency: 'USD', timezone: 'America/New_York', isManager: false, access: { loginCustomerId: MANAGER } };
    const error = await connector.fetchBatch(at(mcc.loginCredentials(), [cancelled]), utcWindow('2026-03-01', '2026-03-03'), null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorRequestError);
    expect((error as ConnectorRequestError).detail).toMatch(/not enabled/);
  });

  it('an access token works for an hour, then Google refuses it until the engine refreshes it', async () => {
    const credentials = mcc.loginCredentials();
    const [account] = (await connector.listAccounts!(at(credentials))).filter((candidate) => candidate.accountId === US_CLIENT);
    const window = utcWindow('2026-03-01', '2026-03-02');
    mcc.auth.advance(3_598_000);
    await expect(connector.fetchBatch(at(credentials, [account!]), window, null)).resolves.toMatchObject({ nextCursor: null });
    mcc.auth.advance(2_000); // 3,600 s after it was issued
    await expect(connector.fetchBatch(at(credentials, [account!]), window, null)).rejects.toThrow(/expired or access was revoked/);
    const refreshed = await connector.oauth!.refresh!(at(credentials), { ...settings(), authorizeBaseUrl: mcc.url });
    await expect(connector.fetchBatch(at(refreshed, [account!]), window, null)).resolves.toMatchObject({ nextCursor: null });
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
