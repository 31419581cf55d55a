import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBingAdsFake, zipArchive, type BingAdsFake } from '../../../../test/fakes/bingads.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type Connector, type ConnectorContext } from '../connector.ts';
import { PlatformHttp } from '../http.ts';
import { adConnectorTestKit, readAllRows, spendByDay, storeAdRows } from '../ads-shared/test-support.ts';
import { utcWindow } from '../test-support.ts';
import { accessFor, bingVerdict, customerManagementRoot, CAMPAIGN_REPORT_COLUMNS, reportRequest, runReport } from './client.ts';
import { parseCsv, reportRecords } from './csv-report.ts';
import { bingadsConnector, createBingAdsConnector } from './index.ts';
import { REPORT_TIME_ZONES, TIME_ZONE_TYPES, ianaZoneOf, reportTimeZoneOf } from './time-zones.ts';
import { mapCampaignRow } from './map.ts';
import { readZip } from './zip.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';

const connector = bingadsConnector;
const BACKFILL = utcWindow('2026-01-01', '2026-03-01');

let fake: BingAdsFake;
beforeAll(async () => {
  fake = await startBingAdsFake({ seed: 3, campaigns: 8, pollsBeforeReady: 2 });
});
afterAll(() => fake.close());

const { contextWith, readAll, settings, expectIncrementalReadsChange, expectReplayedBatchUnchanged } = adConnectorTestKit(connector, () => fake);


describe('bingads connector against the fake', () => {
  it('backfills the window with one report per 31 days: submit, poll while pending, download the ZIP', async () => {
    const waits: number[] = [];
    const { rows, batches } = await readAll(contextWith(fake.connectedCredentials(), waits), BACKFILL);
    const expected = fake.expectedTotals('2026-01-01', '2026-02-28');
    expect(batches).toBe(2);
    expect(waits).toHaveLength(4);
    expect(rows).toHaveLength(expected.rows);
    expect(new Set(rows.map((row) => `${row.campaignId}|${row.day}`)).size).toBe(rows.length);
    expect(spendByDay(rows)).toEqual(expected.spendMinorByDay);
    expect(rows[0]).toMatchObject({ platform: 'bingads', accountId: '123456789', currency: 'USD' });
    const submit = fake.requests.find((request) => request.path.endsWith('/GenerateReport/Submit'))!;
    expect(submit.headers).toMatchObject({ developertoken: 'FAKEDEVTOKEN123', customerid: '170000001', customeraccountid: '123456789' });
    // The account's own zone (its TimeZone, from GetAccount for a connection made before accounts could be chosen).
    expect(JSON.parse(submit.rawBody).ReportRequest).toMatchObject({
      Type: 'CampaignPerformanceReportRequest',
      Aggregation: 'Daily',
      Format: 'Csv',
      Time: { CustomDateRangeStart: { Day: 1, Month: 1, Year: 2026 }, CustomDateRangeEnd: { Day: 31, Month: 1, Year: 2026 }, ReportTimeZone: 'GreenwichMeanTimeDublinEdinburghLisbonLondon' },
    });
    const download = fake.requests.find((request) => request.path === '/ReportDownload/Download.aspx')!;
    expect(download.headers.authorization).toBeUndefined();
  });

  it('reads only the days of an incremental window, with changes made since', async () => {
    await expectIncrementalReadsChange(utcWindow('2026-02-20', '2026-02-22'), ['2026-02-20', '2026-02-21'], 1, { spendMinor: 123_456, conversions: 2.5 });
  });

  it('returns the same rows when a batch is replayed with the same cursor', async () => {
    const { second } = await expectReplayedBatchUnchanged(BACKFILL);
    expect(second.nextCursor).toBeNull();
  });

  it('returns no rows when Microsoft answers Success without a download URL', async () => {
    const window = { since: new Date('2026-01-05T00:00:00Z'), until: new Date('2026-01-06T00:00:00Z') };
    for (let index = 0; index < 8; index++) {
      const campaignId = String(555_000_111 + index);
      fake.updateMetric(campaignId, '2026-01-05', null);
    }
    await expect(connector.fetchBatch(contextWith(fake.connectedCredentials()), window, null)).resolves.toMatchObject({ adMetrics: [], nextCursor: null });
  });

  it('retries fault 207 (too many reports), internal errors and a failed download', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: '/Submit' });
    fake.injectFault('server_error', { pathIncludes: '/Submit' });
    fake.injectFault('server_error', { pathIncludes: '/ReportDownload' });
    const batch = await connector.fetchBatch(contextWith(fake.connectedCredentials(), waits), BACKFILL, null);
    expect(batch.adMetrics!.length).toBeGreaterThan(0);
    expect(waits).toHaveLength(2 + 2 + 1);
  });

  it('raises MalformedResponseError for a malformed answer or a download that is not a ZIP', async () => {
    fake.injectFault('malformed', { pathIncludes: '/Poll' });
    await expect(connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null)).rejects.toThrow(MalformedResponseError);
    fake.injectFault('malformed', { pathIncludes: '/ReportDownload' });
    await expect(connector.fetchBatch(contextWith(fake.connectedCredentials()), BACKFILL, null)).rejects.toThrow(/not a ZIP archive|damaged ZIP/);
  });

  it('turns expired and revoked tokens into ConnectorAuthError, and a refresh after revocation too', async () => {
    const credentials = fake.connectedCredentials();
    fake.injectFault('expired_token', { pathIncludes: '/Submit' });
    const expired = await connector.fetchBatch(contextWith(credentials), BACKFILL, null).catch((caught: unknown) => caught);
    expect((expired as ConnectorAuthError).reason).toMatch(/access token has expired/);
    const refreshed = await connector.oauth!.refresh!(contextWith(credentials), settings());
    expect(refreshed.refreshToken).not.toBe(credentials.refreshToken);
    await expect(connector.verify(contextWith(refreshed))).resolves.toMatchObject({ accountId: '123456789' });

    fake.revokeToken();
    const revoked = await connector.fetchBatch(contextWith(refreshed), BACKFILL, null).catch((caught: unknown) => caught);
    expect((revoked as ConnectorAuthError).reason).toMatch(/refused the credentials/);
    const refreshError = await connector.oauth!.refresh!(contextWith(refreshed), settings()).catch((caught: unknown) => caught);
    expect((refreshError as ConnectorAuthError).reason).toMatch(/revoked or has expired/);
  });

  it('gives up with ConnectorRequestError when a report stays pending through every poll', async () => {
    fake.pollsBeforeReady = 1_000;
    const waits: number[] = [];
    try {
      const error = await connector.fetchBatch(contextWith(fake.connectedCredentials(), waits), BACKFILL, null).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConnectorRequestError);
      expect((error as ConnectorRequestError).detail).toMatch(/still being generated/);
      expect(waits).toHaveLength(29);
      expect(Math.max(...waits)).toBeLessThanOrEqual(30_000);
    } finally {
      fake.pollsBeforeReady = 2;
    }
  });

  it('verifies the account with its name and currency', async () => {
    await expect(connector.verify(contextWith(fake.connectedCredentials()))).resolves.toEqual({ accountId: '123456789', accountName: 'Fake Store – Microsoft', currency: 'USD', timezone: 'Europe/London' });
  });

  it('gives the account performance report as source totals', async () => {
    const totals = await connector.sourceTotals!(contextWith(fake.connectedCredentials()), BACKFILL);
    expect(Object.fromEntries(totals.map((total) => [total.day, total.spendMinor]))).toEqual(fake.expectedTotals('2026-01-01', '2026-02-28').spendMinorByDay);
  });

  it('connects through the consent page, the code exchange (with the user lookup) and a refresh', async () => {
    const url = new URL(connector.oauth!.authorizeUrl(settings(), 'st-1', {}));
    expect(url.pathname).toBe('/common/oauth2/v2.0/authorize');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: fake.auth.clientId,
      redirect_uri: settings().redirectUri,
      scope: 'https://ads.microsoft.com/msads.manage offline_access',
      state: 'st-1',
      response_type: 'code',
    });
    const page = await (await fetch(url)).text();
    expect(page).toContain('StorePulse (fake)');
    const allow = new URL(/id="allow" role="button" href="([^"]+)"/.exec(page)![1]!.replaceAll('&#38;', '&'));
    expect(allow.searchParams.get('state')).toBe('st-1');
    const credentials = await connector.oauth!.exchangeCode(contextWith({}), settings(), allow.searchParams.get('code')!, { developerToken: 'FAKEDEVTOKEN123' });
    // Tokens only: the user (a Super Admin, whose GetUser lists no AccountIds) chooses among listAccounts.
    expect(Object.keys(credentials).sort()).toEqual(['accessToken', 'developerToken', 'expiresAt', 'refreshToken']);
    await expect(connector.verify(contextWith(credentials))).resolves.toEqual({ accountId: '123456789', accountName: 'Fake Store – Microsoft', currency: 'USD', timezone: 'Europe/London' });
    const named = await connector.oauth!.exchangeCode(contextWith({}), settings(), fake.auth.issueCode(fake.auth.clientId, settings().redirectUri), { developerToken: 'FAKEDEVTOKEN123', accountId: '987654321' });
    expect(named).toMatchObject({ customerId: '170000001', accountId: '987654321', developerToken: 'FAKEDEVTOKEN123' });
    await expect(connector.oauth!.exchangeCode(contextWith({}), settings(), 'made-up', { developerToken: 'FAKEDEVTOKEN123' })).rejects.toThrow(ConnectorAuthError);
    await expect(connector.oauth!.exchangeCode(contextWith({}), settings(), 'x', {})).rejects.toThrow(/developer token/);
  });
});

describe('bingads accounts, days and tokens', () => {
  const AUCKLAND = '200000001';
  const LOS_ANGELES = '200000002';
  const database = useTestDatabase();
  let multi: BingAdsFake;
  let clocked: Connector;
  beforeAll(async () => {
    multi = await startBingAdsFake({
      campaigns: 1,
      pollsBeforeReady: 0,
      accounts: [
        { id: AUCKLAND, name: 'Shop NZ', currency: 'NZD', timeZone: 'AucklandWellington' },
        { id: LOS_ANGELES, name: 'Shop US', currency: 'USD', timeZone: 'PacificTimeUSCanadaTijuana' },
      ],
    });
    // 11:30 UTC on 1 March 2026: already 2 March (00:30) in Auckland, still 1 March (03:30) in Los Angeles and London.
    multi.auth.advance(Date.parse('2026-03-01T11:30:00Z') - multi.auth.now());
    clocked = createBingAdsConnector({ now: () => new Date(multi.auth.now()) });
  });
  afterAll(() => multi.close());

  const at = (credentials: Record<string, string>, extra: Partial<ConnectorContext> = {}): ConnectorContext => ({ ...contextWith(credentials), baseUrl: multi.url, ...extra });

  it("lists every account the user reaches with its currency and time zone, though GetUser names none (a Super Admin's)", async () => {
    expect(await clocked.listAccounts!(at(multi.loginCredentials()))).toEqual([
      { accountId: AUCKLAND, name: 'Shop NZ', currency: 'NZD', timezone: 'Pacific/Auckland', isManager: false, access: { customerId: '170000001', timeZone: 'AucklandWellington' } },
      { accountId: LOS_ANGELES, name: 'Shop US', currency: 'USD', timezone: 'America/Los_Angeles', isManager: false, access: { customerId: '170000001', timeZone: 'PacificTimeUSCanadaTijuana' } },
    ]);
  });

  it("requests each account's own days up to its own today, with no London ReportTimeZone, and stores them as reported", async () => {
    const nz = multi.dataOf(AUCKLAND).campaignId(0);
    const us = multi.dataOf(LOS_ANGELES).campaignId(0);
    const figures = { impressions: 800, clicks: 30, conversions: 1, conversionValueMinor: 4000 };
    multi.updateMetric(nz, '2026-02-28', { ...figures, spendMinor: 1234 }); // NZ$12.34
    multi.updateMetric(nz, '2026-03-01', { ...figures, spendMinor: 500 }); // NZ$5.00
    multi.updateMetric(nz, '2026-03-02', { ...figures, spendMinor: 725 }); // NZ$7.25, Auckland's today
    multi.updateMetric(us, '2026-02-28', { ...figures, spendMinor: 1000 }); // $10.00
    multi.updateMetric(us, '2026-03-01', { ...figures, spendMinor: 250 }); // $2.50, Los Angeles' today
    multi.updateMetric(us, '2026-03-02', { ...figures, spendMinor: 999 }); // not a day yet in Los Angeles: never asked for
    const credentials = multi.loginCredentials();
    const ctx = at(credentials, { accounts: await clocked.listAccounts!(at(credentials)) });
    const submittedBefore = multi.submittedReports().length;

    const rows = await readAllRows(clocked, ctx, utcWindow('2026-02-28', '2026-03-03'));
    const times = multi.submittedReports().slice(submittedBefore).map((report) => report.Time);
    expect(times).toEqual([
      { CustomDateRangeStart: { Day: 28, Month: 2, Year: 2026 }, CustomDateRangeEnd: { Day: 2, Month: 3, Year: 2026 }, ReportTimeZone: 'AucklandWellington' },
      { CustomDateRangeStart: { Day: 28, Month: 2, Year: 2026 }, CustomDateRangeEnd: { Day: 1, Month: 3, Year: 2026 }, ReportTimeZone: 'PacificTimeUSCanadaTijuana' },
    ]);
    // NZ: 1234 + 500 + 725 = 2459 NZ cents over its three days; US: 1000 + 250 = 1250 US cents over its two.
    expect(await storeAdRows(database.orm, rows)).toEqual([
      { accountId: AUCKLAND, currency: 'NZD', spendMinor: 2459, days: ['2026-02-28', '2026-03-01', '2026-03-02'] },
      { accountId: LOS_ANGELES, currency: 'USD', spendMinor: 1250, days: ['2026-02-28', '2026-03-01'] },
    ]);
    expect(await clocked.sourceTotals!(ctx, utcWindow('2026-02-28', '2026-03-03'))).toEqual([
      { day: '2026-02-28', accountId: AUCKLAND, currency: 'NZD', spendMinor: 1234 },
      { day: '2026-03-01', accountId: AUCKLAND, currency: 'NZD', spendMinor: 500 },
      { day: '2026-03-02', accountId: AUCKLAND, currency: 'NZD', spendMinor: 725 },
      { day: '2026-02-28', accountId: LOS_ANGELES, currency: 'USD', spendMinor: 1000 },
      { day: '2026-03-01', accountId: LOS_ANGELES, currency: 'USD', spendMinor: 250 },
    ]);
    // The request London pinned before: 2 March is still the future in London, so Microsoft refuses it.
    const [auckland] = ctx.accounts!;
    const london = reportRequest('CampaignPerformanceReportRequest', CAMPAIGN_REPORT_COLUMNS, AUCKLAND, { from: '2026-02-28', to: '2026-03-02' }, 'GreenwichMeanTimeDublinEdinburghLisbonLondon');
    await expect(runReport(ctx.http, accessFor(ctx, auckland!), london, new Map())).rejects.toThrow(/2010 ReportingServiceInvalidCustomDateRangeEnd/);
  });

  it('polls the same report again after the engine refreshes a token that expired mid-poll', async () => {
    const credentials = multi.loginCredentials();
    const [account] = await clocked.listAccounts!(at(credentials));
    // The engine's clock and the fake's move together: every wait between polls passes on the fake.
    const ctx = at(credentials, { accounts: [account!], http: new PlatformHttp({ platform: 'bingads', maxAttempts: 4, sleep: async (ms) => multi.auth.advance(ms) }) });
    multi.auth.advance(3_599_000); // one second of the token's hour left
    multi.pollsBeforeReady = 4; // four Pending answers, each followed by a wait of at least 250, 500, 1,000, 2,000 ms
    const submittedBefore = multi.submittedReports().length;
    const window = utcWindow('2026-02-28', '2026-03-02');
    try {
      const expired = await clocked.fetchBatch(ctx, window, null).catch((caught: unknown) => caught);
      expect((expired as ConnectorAuthError).reason).toMatch(/access token has expired/);
      // What the engine does: refresh, then the same batch again with the same context.
      ctx.credentials = { ...ctx.credentials, ...(await clocked.oauth!.refresh!(ctx, { ...settings(), clientId: multi.auth.clientId, authorizeBaseUrl: multi.url })) };
      const batch = await clocked.fetchBatch(ctx, window, null);
      expect(spendByDay(batch.adMetrics!)).toEqual(multi.dataOf(AUCKLAND).expectedTotals('2026-02-28', '2026-03-01').spendMinorByDay);
      expect(multi.submittedReports().length - submittedBefore).toBe(1);
    } finally {
      multi.pollsBeforeReady = 0;
    }
  });
});

describe('bingads report parsing and mapping', () => {
  // The CSV of platform-apis.md §5.2 step 3, with the header block and footer Microsoft can add.
  const documentedCsv = [
    '\uFEFF"Report Name: daily-campaign"',
    '"Report Time: 1/1/2026,1/31/2026"',
    '',
    '"TimePeriod","AccountId","CampaignId","CampaignName","CurrencyCode","Impressions","Clicks","Spend","Conversions","Revenue"',
    '"2026-01-15","123456789","555000111","Brand - Exact","USD","5000","120","250.00","15","750.00"',
    '"2026-01-15","123456789","555000112","Say ""hi"", world","USD","0","0","0.00","0.00","0.00"',
    '',
    '"©2026 Microsoft Corporation. All rights reserved. "',
  ].join('\r\n');

  it('reads the rows between the column header and the footer', () => {
    const rows = reportRecords(documentedCsv, CAMPAIGN_REPORT_COLUMNS);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.CampaignName).toBe('Say "hi", world');
    expect(mapCampaignRow(rows[0]!)).toEqual({
      platform: 'bingads',
      accountId: '123456789',
      campaignId: '555000111',
      day: '2026-01-15',
      campaignName: 'Brand - Exact',
      currency: 'USD',
      impressions: 5000,
      clicks: 120,
      spendMinor: 25000,
      conversions: 15,
      conversionValueMinor: 75000,
    });
    expect(parseCsv('a,"b\nc",d\r\n')).toEqual([['a', 'b\nc', 'd']]);
    expect(() => reportRecords('"Nope"\r\n', CAMPAIGN_REPORT_COLUMNS)).toThrow(MalformedResponseError);
    expect(() => mapCampaignRow({ ...rows[0]!, TimePeriod: '2026-01-15|13' })).toThrow(MalformedResponseError);
  });

  it('opens a ZIP archive and refuses what is not one', () => {
    const zip = zipArchive([{ name: 'report.csv', content: Buffer.from(documentedCsv) }]);
    expect(readZip(zip, 'bingads')).toEqual([{ name: 'report.csv', content: Buffer.from(documentedCsv) }]);
    expect(() => readZip(Buffer.from('hello, not a zip at all, really not'), 'bingads')).toThrow(MalformedResponseError);
  });

  it('reads the documented faults', () => {
    const response = (status: number, body: unknown) => platformAnswer(status, body);
    const faultOf = (Code: number, ErrorCode: string) => ({ OperationErrors: [{ Code, ErrorCode, Message: 'm' }], BatchErrors: [], Type: 'ApiFaultDetail' });
    expect(bingVerdict(response(400, faultOf(117, 'CallRateExceeded')))).toMatchObject({ kind: 'retry', afterMs: 60_000 });
    expect(bingVerdict(response(400, faultOf(207, 'ConcurrentRequestOverLimit')))).toMatchObject({ kind: 'retry' });
    expect(bingVerdict(response(401, faultOf(105, 'InvalidCredentials')))).toMatchObject({ kind: 'auth' });
    expect(bingVerdict(response(400, faultOf(100, 'NullRequest')))).toMatchObject({ kind: 'fail' });
    expect(customerManagementRoot('https://reporting.api.bingads.microsoft.com/')).toBe('https://clientcenter.api.bingads.microsoft.com');
  });

  it("maps each of Microsoft's 75 time zones to an IANA zone, and to the ReportTimeZone spelling of the same zone", () => {
    expect(Object.keys(TIME_ZONE_TYPES)).toHaveLength(75);
    expect(Object.keys(REPORT_TIME_ZONES)).toHaveLength(75);
    for (const zone of Object.values(TIME_ZONE_TYPES)) expect(() => new Intl.DateTimeFormat('en', { timeZone: zone })).not.toThrow();
    expect(ianaZoneOf('AucklandWellington')).toBe('Pacific/Auckland');
    expect(ianaZoneOf('PacificTimeUSCanadaTijuana')).toBe('America/Los_Angeles');
    expect(reportTimeZoneOf('IslamabadKarachiTashkent')).toBe('IslandamabadKarachiTashkent');
    expect(reportTimeZoneOf('SolomonIslandNewCaledonia')).toBe('MagadanSolomonIslandNewCaledonia');
    expect(reportTimeZoneOf('EasternTimeUSCanada')).toBe('EasternTimeUSCanada');
    expect(reportTimeZoneOf('Atlantis')).toBeNull();
  });
});
