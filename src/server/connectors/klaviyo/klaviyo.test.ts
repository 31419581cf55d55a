import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKlaviyoFake, type KlaviyoFake, type KlaviyoFakeCampaign, type KlaviyoFakeFlow, type KlaviyoFakeMessageStats } from '../../../../test/fakes/klaviyo.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../connector.ts';
import { runWindow } from '../email-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import { classifyKlaviyo, KLAVIYO_REVISION, type KlaviyoCampaign, type KlaviyoFlowSeriesResult, type KlaviyoReportResult } from './client.ts';
import { FLOWS_FORBIDDEN_WARNING, flowTimeframes, klaviyoConnector, reportCallsFor, reportTimeframes } from './index.ts';
import { campaignSendTime, findConversionMetric, flowCampaignId, seriesDay, statsByCampaign, statsByFlowDay, toEmailMetric } from './map.ts';
import { klaviyoSignature, verifyKlaviyoWebhook } from './webhook.ts';

let fake: KlaviyoFake;
const year = utcWindow('2025-01-01', '2026-01-01');

function ctx(waits: number[] = [], apiKey = fake.options.apiKey, on: KlaviyoFake = fake) {
  return testContext('klaviyo', on.apiUrl, { apiKey }, { waits });
}

function comparable(rows: { campaignId: string; day: string; campaignName: string; sends?: number; opens?: number; clicks?: number; attributedOrders?: number; attributedRevenueMinor?: number }[]) {
  return rows
    .map(({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }) => ({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }))
    .sort((a, b) => a.campaignId.localeCompare(b.campaignId) || a.day.localeCompare(b.day));
}

/** A message's statistics from the figures the tests reason with (delivered = recipients, totals = uniques). */
function stats(recipients: number, opens: number, clicks: number, conversions: number, value: number): KlaviyoFakeMessageStats {
  return { recipients, delivered: recipients, opens, opens_unique: opens, clicks, clicks_unique: clicks, conversions, conversion_value: value };
}

/** The account of the time-zone tests: New York (UTC-5 in January), four e-mail campaigns and a draft. */
const newYorkCampaigns: KlaviyoFakeCampaign[] = [
  // 2026-01-01 02:00 UTC = 2025-12-31 21:00 in New York
  { id: 'A', name: 'A new year', channel: 'email', sendTime: '2026-01-01T02:00:00.000Z', messages: [{ id: 'A1', statistics: stats(1000, 400, 50, 4, 200) }] },
  { id: 'B', name: 'B mid month', channel: 'email', sendTime: '2026-01-15T12:00:00.000Z', messages: [{ id: 'B1', statistics: stats(2000, 500, 80, 6, 350.5) }] },
  // 2026-02-01 03:00 UTC = 2026-01-31 22:00 in New York
  { id: 'C', name: 'C month end', channel: 'email', sendTime: '2026-02-01T03:00:00.000Z', messages: [{ id: 'C1', statistics: stats(3000, 900, 120, 10, 999.99) }] },
  // archived: Klaviyo's campaign list leaves it out, its report does not
  { id: 'D', name: 'D archived', channel: 'email', sendTime: '2026-01-20T10:00:00.000Z', archived: true, messages: [{ id: 'D1', statistics: stats(500, 100, 10, 1, 45) }] },
  { id: 'E', name: 'E draft', channel: 'email', sendTime: null, status: 'Draft', messages: [] },
];

beforeAll(async () => {
  fake = await startKlaviyoFake({ seed: 7, campaigns: 60, archivedEvery: 9, rateLimits: true });
});
afterAll(() => fake.close());

describe('klaviyo map', () => {
  it('sums the documented report result per campaign with exact revenue', () => {
    const documented: KlaviyoReportResult = {
      groupings: { send_channel: 'email', campaign_id: '01GMRWDSA0ARTAKE1SFX8JGXAY', campaign_message_id: '01GMRWDSA0ARTAKE1SFX8JGXAY' },
      statistics: { recipients: 1000, delivered: 990, opens_unique: 98, clicks_unique: 31, conversions: 5, conversion_value: 412.5 },
    };
    const variantB: KlaviyoReportResult = { ...documented, groupings: { ...documented.groupings, campaign_message_id: 'B' }, statistics: { ...documented.statistics, conversion_value: 0.1 } };
    const summed = statsByCampaign([documented, variantB], 'USD').get('01GMRWDSA0ARTAKE1SFX8JGXAY');
    // 1000 + 1000 recipients; 98 + 98 opens; 31 + 31 clicks; 5 + 5 orders; 412.50 + 0.10 = 412.60 USD
    expect(summed).toEqual({ sends: 2000, opens: 196, clicks: 62, orders: 10, revenueMinor: 41_260 });
    expect(statsByCampaign([documented], 'JPY').get(documented.groupings.campaign_id)!.revenueMinor).toBe(413);
    expect(statsByCampaign([documented], 'USD', false).get(documented.groupings.campaign_id)).toMatchObject({ orders: 0, revenueMinor: 0 });
    expect(toEmailMetric({ id: 'c1', name: 'January', day: '2026-01-10' }, summed!, 'USD')).toEqual({
      platform: 'klaviyo', campaignId: 'c1', day: '2026-01-10', campaignName: 'January', currency: 'USD',
      sends: 2000, opens: 196, clicks: 62, attributedOrders: 10, attributedRevenueMinor: 41_260, spendMinor: 0,
    });
  });

  it('dates a campaign by its send_time only and finds the Placed Order metric among nameless ones', () => {
    const sent: KlaviyoCampaign = { id: 'c1', attributes: { name: 'Late', status: 'Sent', send_time: '2026-01-10T23:30:00+00:00' } };
    expect(campaignSendTime(sent)).toBe('2026-01-10T23:30:00+00:00');
    // a draft is not sent, whatever it was scheduled for
    expect(campaignSendTime({ id: 'c2', attributes: { name: 'Draft', status: 'Draft', send_time: null } })).toBeNull();
    // metric names are nullable in Klaviyo's schema
    expect(findConversionMetric([{ id: 'x', attributes: { name: null } }, { id: 'a', attributes: { name: 'Opened Email' } }, { id: 'RESQ6t', attributes: { name: 'Placed Order' } }])?.id).toBe('RESQ6t');
  });

  it("writes report timeframes on the account's wall clock, at most a year each, end inclusive", () => {
    // January 2026 of a UTC store = [2026-01-01T00:00Z, 2026-02-01T00:00Z): in New York (UTC-5)
    // that is 2025-12-31 19:00:00 to 2026-01-31 18:59:59.
    expect(reportTimeframes(utcWindow('2026-01-01', '2026-02-01'), 'America/New_York')).toEqual([{ start: '2025-12-31T19:00:00-05:00', end: '2026-01-31T18:59:59-05:00' }]);
    // 517 days = one frame of 365 days and one of 152
    const frames = reportTimeframes(utcWindow('2024-01-01', '2025-06-01'), 'UTC');
    expect(frames).toEqual([
      { start: '2024-01-01T00:00:00+00:00', end: '2024-12-30T23:59:59+00:00' },
      { start: '2024-12-31T00:00:00+00:00', end: '2025-05-31T23:59:59+00:00' },
    ]);
  });

  it("stops at Klaviyo's daily report limit instead of waiting for hours, and waits for the short windows", () => {
    const throttled = (seconds: string) => platformAnswer(429, { errors: [{ id: 'e', code: 'throttled', title: 'Request was throttled.', detail: `Request was throttled. Expected available in ${seconds} seconds.` }] }, { 'retry-after': seconds });
    expect(classifyKlaviyo(throttled('42'))).toMatchObject({ kind: 'retry', afterMs: 42_000 });
    // 43,200 s = 12 h, longer than the 10 minutes a sync waits
    expect(classifyKlaviyo(throttled('43200'))).toMatchObject({ kind: 'fail', reason: expect.stringMatching(/225 a day.*720 minutes/) });
  });
});

describe('klaviyo connector against the fake', () => {
  it("verifies the key and names the account, its currency and time zone", async () => {
    await expect(klaviyoConnector.verify(ctx())).resolves.toEqual({ accountId: 'AbC123', accountName: 'Fake Outdoor Co', currency: 'USD', timezone: 'UTC' });
    const request = fake.requests.at(-1)!;
    expect(request.headers.authorization).toBe(`Klaviyo-API-Key ${fake.options.apiKey}`);
    expect(request.headers.revision).toBe(KLAVIYO_REVISION);
  });

  it('backfills every e-mail campaign of the window on its send day, A/B variants summed across report pages, archived ones included', async () => {
    const { rows, batches } = await runWindow(klaviyoConnector, ctx(), year);
    const expected = fake.expectedRows(year.since, year.until);
    expect(expected.length).toBeGreaterThan(40);
    expect(fake.allCampaigns().filter((campaign) => campaign.archived && campaign.channel === 'email').length).toBeGreaterThan(3);
    expect(comparable(rows)).toEqual(comparable(expected));
    expect(rows.every((row) => row.platform === 'klaviyo' && row.currency === 'USD')).toBe(true);
    expect(batches.at(-1)!.batch.estimatedTotal).toBe(expected.length);
    const reportCalls = fake.requests.filter((request) => request.path === '/api/campaign-values-reports' && !request.fault);
    expect(reportCalls.length).toBeGreaterThan(1);
    expect(JSON.parse(reportCalls[0]!.rawBody).data.attributes).toMatchObject({ conversion_metric_id: 'M00006', filter: 'equals(send_channel,"email")' });
  });

  it('an incremental window brings only the campaigns sent in it', async () => {
    const march = utcWindow('2025-03-01', '2025-04-01');
    const { rows } = await runWindow(klaviyoConnector, ctx(), march);
    const expected = fake.expectedRows(march.since, march.until);
    expect(expected.length).toBeGreaterThan(0);
    expect(comparable(rows)).toEqual(comparable(expected));
    expect(rows.every((row) => row.day.startsWith('2025-03'))).toBe(true);
  });

  it('replaying a stored cursor returns the same rows and the same next cursor', async () => {
    const { batches } = await runWindow(klaviyoConnector, ctx(), year);
    const reportBatch = batches.find(({ batch }) => (batch.emailMetrics?.length ?? 0) > 0)!;
    const replay = await klaviyoConnector.fetchBatch(ctx(), year, reportBatch.cursor);
    expect(replay).toEqual(reportBatch.batch);
  });

  it('resumes from any stored cursor without gaps or duplicates', async () => {
    const { batches, rows } = await runWindow(klaviyoConnector, ctx(), year);
    const half = Math.floor(batches.length / 2);
    const middle = batches[half]!.cursor;
    const first = await runWindow(klaviyoConnector, ctx(), year, null, half);
    expect(first.finished).toBe(false);
    expect(first.batches.at(-1)!.batch.nextCursor).toBe(middle);
    const rest = await runWindow(klaviyoConnector, ctx(), year, middle);
    const merged = new Map([...first.rows, ...rest.rows].map((row) => [`${row.campaignId}|${row.day}`, row]));
    expect(comparable([...merged.values()])).toEqual(comparable(rows));
  });

  it("waits exactly as long as Klaviyo's Retry-After says (reports: 1 a second, 2 a minute) and backs off on 5xx", async () => {
    const waits: number[] = [];
    const announced = fake.throttles.length;
    fake.injectFault('rate_limit', { pathIncludes: 'campaign-values-reports' });
    fake.injectFault('server_error', { pathIncludes: '/api/campaigns' });
    const { rows } = await runWindow(klaviyoConnector, ctx(waits), year);
    expect(rows.length).toBe(fake.expectedRows(year.since, year.until).length);
    // every 429 the fake sent (the injected one with Retry-After 2, and the report windows' own) was
    // waited out for exactly its Retry-After; the one 503 got a backoff of its own
    const throttles = fake.throttles.slice(announced).map((seconds) => seconds * 1000);
    expect(throttles).toContain(2000);
    expect(throttles.length).toBeGreaterThanOrEqual(3);
    expect(waits.filter((wait) => throttles.includes(wait)).length).toBeGreaterThanOrEqual(throttles.length);
    expect(waits).toHaveLength(throttles.length + 1);
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    const { batches } = await runWindow(klaviyoConnector, ctx(), year);
    const reportCursor = batches.find(({ batch }) => (batch.emailMetrics?.length ?? 0) > 0)!.cursor;
    fake.injectFault('malformed');
    await expect(klaviyoConnector.fetchBatch(ctx(), year, reportCursor)).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('a revoked key raises ConnectorAuthError with a reason the user understands', async () => {
    const error = await klaviyoConnector.verify(ctx([], 'pk_wrong')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/private API key.*revoked/);
    await expect(klaviyoConnector.verify(testContext('klaviyo', fake.apiUrl, {}))).rejects.toBeInstanceOf(ConnectorAuthError);
  });

  it('gives up with ConnectorRequestError when throttling never ends', async () => {
    fake.injectFault('rate_limit', { times: 10 });
    await expect(klaviyoConnector.verify(ctx())).rejects.toBeInstanceOf(ConnectorRequestError);
    fake.clearFaults();
  });

  it('without a Placed Order metric still brings sends, opens and clicks', async () => {
    const bare = await startKlaviyoFake({ seed: 3, campaigns: 12, withPlacedOrder: false, rateLimits: true });
    try {
      const window = utcWindow('2025-01-01', '2026-01-01');
      const { rows } = await runWindow(klaviyoConnector, ctx([], bare.options.apiKey, bare), window);
      expect(comparable(rows)).toEqual(comparable(bare.expectedRows(window.since, window.until)));
      expect(rows.every((row) => row.attributedOrders === 0 && row.sends! > 0)).toBe(true);
    } finally {
      await bare.close();
    }
  });

  it('refuses a cursor it did not write', async () => {
    await expect(klaviyoConnector.fetchBatch(ctx(), year, '{"phase":"nope"}')).rejects.toThrow(/cursor/);
  });
});

describe("klaviyo: the account's time zone, archived campaigns and Klaviyo's limits", () => {
  let newYork: KlaviyoFake;
  beforeAll(async () => {
    newYork = await startKlaviyoFake({ fixture: newYorkCampaigns, timezone: 'America/New_York', rateLimits: true });
  });
  afterAll(() => newYork.close());

  it("puts each campaign on its own day although Klaviyo reads report timeframes on the account's clock", async () => {
    const january = utcWindow('2026-01-01', '2026-02-01');
    const { rows, batches } = await runWindow(klaviyoConnector, ctx([], newYork.options.apiKey, newYork), january);
    // A (sent 2026-01-01 02:00 UTC), B (01-15) and the archived D (01-20) are January's; C (02-01 03:00
    // UTC, still January 31 in New York) is February's; the draft E was never sent.
    // Before: the timeframe 2026-01-01T00:00:00+00:00..2026-01-31T23:59:59+00:00 was read as New York
    // time, so A was missing, and C and D (not in the campaign list) were put on January 1 as
    // "Klaviyo campaign C/D": sends 2000 + 3000 + 500 = 5500, revenue 350.50 + 999.99 + 45.00 = 1395.49.
    expect(comparable(rows)).toEqual([
      { campaignId: 'A', day: '2026-01-01', campaignName: 'A new year', sends: 1000, opens: 400, clicks: 50, attributedOrders: 4, attributedRevenueMinor: 20_000 },
      { campaignId: 'B', day: '2026-01-15', campaignName: 'B mid month', sends: 2000, opens: 500, clicks: 80, attributedOrders: 6, attributedRevenueMinor: 35_050 },
      { campaignId: 'D', day: '2026-01-20', campaignName: 'D archived', sends: 500, opens: 100, clicks: 10, attributedOrders: 1, attributedRevenueMinor: 4_500 },
    ]);
    // January: sends 1000 + 2000 + 500 = 3500; revenue 200.00 + 350.50 + 45.00 = 595.50 USD
    expect(rows.reduce((sum, row) => sum + row.sends!, 0)).toBe(3500);
    expect(rows.reduce((sum, row) => sum + row.attributedRevenueMinor!, 0)).toBe(59_550);
    expect(batches.at(-1)!.batch.estimatedTotal).toBe(3);
    const report = newYork.requests.filter((request) => request.path === '/api/campaign-values-reports' && !request.fault).at(-1)!;
    expect(JSON.parse(report.rawBody).data.attributes.timeframe).toEqual({ start: '2025-12-31T19:00:00-05:00', end: '2026-01-31T18:59:59-05:00' });

    const february = utcWindow('2026-02-01', '2026-03-01');
    // Before: February had no row at all (C fell out of both months).
    expect(comparable((await runWindow(klaviyoConnector, ctx([], newYork.options.apiKey, newYork), february)).rows)).toEqual([
      { campaignId: 'C', day: '2026-02-01', campaignName: 'C month end', sends: 3000, opens: 900, clicks: 120, attributedOrders: 10, attributedRevenueMinor: 99_999 },
    ]);
    // the same campaigns on a store in New York: A is December 31's, C is January 31's
    const storeInNewYork = { ...ctx([], newYork.options.apiKey, newYork), store: { timezone: 'America/New_York', currency: 'USD' } };
    const newYorkJanuary = { since: new Date('2026-01-01T05:00:00Z'), until: new Date('2026-02-01T05:00:00Z') };
    const local = await runWindow(klaviyoConnector, storeInNewYork, newYorkJanuary);
    expect(comparable(local.rows).map(({ campaignId, day }) => `${campaignId} ${day}`)).toEqual(['B 2026-01-15', 'C 2026-01-31', 'D 2026-01-20']);
    expect(newYork.refusals).toEqual([]);
  });

  it('reads an account whose metrics include one without a name', async () => {
    const nameless = await startKlaviyoFake({ seed: 5, campaigns: 10, withNamelessMetric: true, rateLimits: true });
    try {
      const { rows } = await runWindow(klaviyoConnector, ctx([], nameless.options.apiKey, nameless), year);
      // Before: the metrics page failed to parse (MalformedResponseError: name expected string).
      expect(comparable(rows)).toEqual(comparable(nameless.expectedRows(year.since, year.until)));
      expect(rows.some((row) => row.attributedOrders! > 0)).toBe(true);
    } finally {
      await nameless.close();
    }
  });

  it("stops after one refusal when the day's 225 reports are used up", async () => {
    // A daily limit of 1 report, on a clock at noon UTC: the second report waits until midnight, 12 h.
    const daily = await startKlaviyoFake({ fixture: newYorkCampaigns, timezone: 'America/New_York', rateLimits: true, now: '2026-03-10T12:00:00Z', reportLimits: { daily: 1 } });
    try {
      await runWindow(klaviyoConnector, ctx([], daily.options.apiKey, daily), utcWindow('2026-01-01', '2026-02-01'));
      const waits: number[] = [];
      const error = await runWindow(klaviyoConnector, ctx(waits, daily.options.apiKey, daily), utcWindow('2026-02-01', '2026-03-01')).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConnectorRequestError);
      expect((error as ConnectorRequestError).detail).toMatch(/225 a day.*720 minutes/);
      // one refused report, not retried (before: 4 attempts, each refused, with waits capped at 120 s);
      // the only wait is the accounts endpoint's burst window (1 a second), 1 s
      expect(daily.requests.filter((request) => request.path === '/api/campaign-values-reports')).toHaveLength(2);
      expect(waits.every((wait) => wait <= 1000)).toBe(true);
    } finally {
      await daily.close();
    }
  });

  it('every request the connector sends is one Klaviyo accepts; the fake refuses those it would not', async () => {
    // The whole year of the seeded account and the New York months above: no refusal at all.
    await runWindow(klaviyoConnector, ctx(), year);
    expect(fake.refusals).toEqual([]);
    expect(newYork.refusals).toEqual([]);

    // The fake refuses what Klaviyo documents as invalid, so a connector sending it fails the test above.
    const strict = await startKlaviyoFake({ fixture: newYorkCampaigns, rateLimits: false });
    try {
      const headers = { authorization: `Klaviyo-API-Key ${strict.options.apiKey}`, revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' };
      const report = (attributes: object) =>
        fetch(`${strict.apiUrl}/campaign-values-reports`, { method: 'POST', headers, body: JSON.stringify({ data: { type: 'campaign-values-report', attributes } }) });
      const valid = { statistics: ['recipients'], timeframe: { start: '2026-01-01T00:00:00-05:00', end: '2026-01-31T23:59:59-05:00' }, conversion_metric_id: 'M00006' };
      const emailFilter = `filter=${encodeURIComponent("equals(messages.channel,'email')")}`;
      expect((await report(valid)).status).toBe(200);
      expect((await fetch(`${strict.apiUrl}/campaigns?${emailFilter}&page%5Bsize%5D=100`, { headers })).status).toBe(200);
      expect(strict.refusals).toEqual([]);
      expect((await fetch(`${strict.apiUrl}/campaigns?${emailFilter}&page%5Bsize%5D=101`, { headers })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/campaigns?${emailFilter}&fields%5Bcampaign%5D=name,send_date`, { headers })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/campaigns`, { headers })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/accounts`, { headers: { ...headers, revision: '' } })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/accounts`, { headers: { ...headers, revision: '2099-01-15' } })).status).toBe(400);
      expect((await report({ ...valid, statistics: ['revenue'] })).status).toBe(400);
      expect((await report({ ...valid, timeframe: { start: '2025-01-01T00:00:00+00:00', end: '2026-01-02T00:00:00+00:00' } })).status).toBe(400);
      expect((await report({ ...valid, conversion_metric_id: 'nope' })).status).toBe(400);
      expect((await report({ statistics: ['recipients'], timeframe: valid.timeframe })).status).toBe(400);
      expect(strict.refusals).toHaveLength(9);
    } finally {
      await strict.close();
    }
  });
});

describe('klaviyo flows', () => {
  it('reads a flow series: one value per day of date_times, summed per flow and day, e-mail only, exact revenue', () => {
    // The documented response's shape (PostFlowSeriesResponseDTO): two messages of flow XVTP5Q over three days.
    const dateTimes = ['2024-01-05T00:00:00+00:00', '2024-01-06T00:00:00+00:00', '2024-01-07T00:00:00+00:00'];
    const message = (id: string, channel: string, recipients: number[], value: number[]): KlaviyoFlowSeriesResult => ({
      groupings: { flow_id: 'XVTP5Q', send_channel: channel, flow_message_id: id },
      statistics: { recipients, delivered: recipients, opens_unique: [123, 156, 144], clicks_unique: [10, 0, 4], conversions: [1, 0, 2], conversion_value: value },
    });
    const byFlow = statsByFlowDay(
      [message('01GMRWDSA0ARTAKE1SFX8JGXAY', 'email', [200, 0, 180], [19.99, 0, 0.1]), message('01GJTHNWVG93F3KNX71SJ4FDBB', 'email', [100, 0, 90], [5, 0, 20]), message('SMS1', 'sms', [50, 50, 50], [100, 100, 100])],
      dateTimes,
      'UTC',
      'USD',
    );
    // January 5: 200 + 100 sends, 123 + 123 opens, 10 + 10 clicks, 1 + 1 orders, 19.99 + 5.00 = 24.99 USD
    // January 6: both messages sent nothing, but 156 + 156 opens came in: kept
    // January 7: 180 + 90 sends, 144 + 144 opens, 4 + 4 clicks, 2 + 2 orders, 0.10 + 20.00 = 20.10 USD; the SMS is left out
    expect(Object.fromEntries(byFlow.get('XVTP5Q')!)).toEqual({
      '2024-01-05': { sends: 300, opens: 246, clicks: 20, orders: 2, revenueMinor: 2_499 },
      '2024-01-06': { sends: 0, opens: 312, clicks: 0, orders: 0, revenueMinor: 0 },
      '2024-01-07': { sends: 270, opens: 288, clicks: 8, orders: 4, revenueMinor: 2_010 },
    });
    expect(statsByFlowDay([message('m', 'email', [0, 0, 0], [0, 0, 0])].map((result) => ({ ...result, statistics: { ...result.statistics, opens_unique: [0, 0, 0], clicks_unique: [0, 0, 0], conversions: [0, 0, 0] } })), dateTimes, 'UTC', 'USD').size).toBe(0);
    expect(() => statsByFlowDay([message('m', 'email', [1, 2], [0, 0])], dateTimes, 'UTC', 'USD')).toThrow(MalformedResponseError);
    expect(flowCampaignId('XVTP5Q')).toBe('flow:XVTP5Q');
  });

  it("reads a series day as the account's calendar day whether date_times is a wall clock or an instant", () => {
    // A New York midnight: as the wall clock (Klaviyo's example form), with its offset, or as the UTC instant
    expect(seriesDay('2026-01-05T00:00:00+00:00', 'America/New_York')).toBe('2026-01-05');
    expect(seriesDay('2026-01-05T00:00:00-05:00', 'America/New_York')).toBe('2026-01-05');
    expect(seriesDay('2026-01-05T05:00:00+00:00', 'America/New_York')).toBe('2026-01-05');
    // A Tokyo midnight as the UTC instant is the day before in UTC (15:00)
    expect(seriesDay('2026-01-04T15:00:00+00:00', 'Asia/Tokyo')).toBe('2026-01-05');
    expect(seriesDay('2026-01-05T00:00:00Z', 'Asia/Tokyo')).toBe('2026-01-05');
    expect(seriesDay('not a date', 'UTC')).toBeNull();
  });

  it('cuts a window into flow reports of 59 days on the account clock; the report budget of each sync', () => {
    // January 2026 for an account in New York: one frame, the account's midnights
    expect(flowTimeframes(utcWindow('2026-01-01', '2026-02-01'), 'America/New_York')).toEqual([
      { firstDay: '2026-01-01', lastDay: '2026-01-31', start: '2026-01-01T00:00:00-05:00', end: '2026-01-31T23:59:59-05:00' },
    ]);
    // Across the end of daylight saving time (November 1, 2026): 59 days = September 10 to November 7,
    // 58 days 23:59:59 on the wall clock and one hour more in elapsed time, under 60 days both ways.
    const autumn = flowTimeframes(utcWindow('2026-09-10', '2026-11-20'), 'America/New_York');
    expect(autumn).toEqual([
      { firstDay: '2026-09-10', lastDay: '2026-11-07', start: '2026-09-10T00:00:00-04:00', end: '2026-11-07T23:59:59-05:00' },
      { firstDay: '2026-11-08', lastDay: '2026-11-19', start: '2026-11-08T00:00:00-05:00', end: '2026-11-19T23:59:59-05:00' },
    ]);
    expect(Date.parse(autumn[0]!.end) - Date.parse(autumn[0]!.start)).toBeLessThan(60 * 86_400_000);
    // Report calls per sync (one page each): the hourly incremental (28 days + today = 29), the weekly
    // deep one (90 + 1 = 91: 59 + 32 days), a 12-month backfill (366 days: 7 x 59 >= 366 > 6 x 59;
    // campaign reports hold 365 days, so 2)
    expect(reportCallsFor(utcWindow('2026-10-29', '2026-11-27'), 'UTC')).toEqual({ campaignReports: 1, flowReports: 1 });
    expect(reportCallsFor(utcWindow('2026-08-28', '2026-11-27'), 'UTC')).toEqual({ campaignReports: 1, flowReports: 2 });
    // So a day of hourly syncs costs 24 x (1 + 1) = 48 report calls, 49 with the deep re-read, of the 225.
    expect(reportCallsFor(utcWindow('2025-11-26', '2026-11-27'), 'UTC')).toEqual({ campaignReports: 2, flowReports: 7 });
  });

  /** A Tokyo account: a live flow, a live draft without sends, an archived one and a deleted one, in January 2026. */
  const tokyoFlows: KlaviyoFakeFlow[] = [
    {
      id: 'LIVE01',
      name: 'Welcome series',
      messages: [
        { id: 'L1', channel: 'email', days: { '2026-01-05': stats(10, 5, 1, 1, 19.99) } },
        { id: 'L2', channel: 'email', days: { '2026-01-05': stats(4, 2, 0, 0, 0), '2026-02-01': stats(9, 9, 9, 9, 9) } },
      ],
    },
    { id: 'DRAFT1', name: 'Draft', status: 'draft', messages: [] },
    { id: 'ARCH01', name: 'Old abandoned cart', archived: true, messages: [{ id: 'A1', channel: 'email', days: { '2026-01-12': stats(20, 8, 3, 2, 55.1) } }] },
    { id: 'GONE01', name: 'Deleted browse abandonment', deleted: true, messages: [{ id: 'G1', channel: 'email', days: { '2026-01-20': stats(7, 3, 1, 1, 12.5) } }] },
  ];
  const tokyoRows = [
    { campaignId: 'flow:ARCH01', day: '2026-01-12', campaignName: 'Old abandoned cart', sends: 20, opens: 8, clicks: 3, attributedOrders: 2, attributedRevenueMinor: 5_510 },
    // deleted: GET /api/flows/GONE01 is 404, its figures stay under a placeholder name
    { campaignId: 'flow:GONE01', day: '2026-01-20', campaignName: 'Klaviyo flow GONE01 (deleted)', sends: 7, opens: 3, clicks: 1, attributedOrders: 1, attributedRevenueMinor: 1_250 },
    // L1 + L2: 10 + 4 sends, 5 + 2 opens, 1 + 0 clicks, 1 order, 19.99 USD; February 1 is outside the window
    { campaignId: 'flow:LIVE01', day: '2026-01-05', campaignName: 'Welcome series', sends: 14, opens: 7, clicks: 1, attributedOrders: 1, attributedRevenueMinor: 1_999 },
  ];

  it('brings active, archived and deleted flows by name on their days, whichever form date_times takes', async () => {
    const january = utcWindow('2026-01-01', '2026-02-01');
    for (const dateTimes of ['wall-clock', 'instant'] as const) {
      const tokyo = await startKlaviyoFake({ fixture: [], flowFixture: tokyoFlows, timezone: 'Asia/Tokyo', dateTimes, flowsPageSize: 1, rateLimits: true });
      try {
        const { rows, batches } = await runWindow(klaviyoConnector, ctx([], tokyo.options.apiKey, tokyo), january);
        expect(comparable(rows)).toEqual(tokyoRows);
        expect(comparable(tokyo.expectedRows(january.since, january.until))).toEqual(tokyoRows);
        expect(batches.at(-1)!.batch.estimatedTotal).toBe(3);
        const flowLists = tokyo.requests.filter((request) => request.path === '/api/flows').map((request) => new URLSearchParams(request.query));
        // active flows on two pages of one (the fake's page), then the archived one
        expect(flowLists.map((query) => [query.get('filter'), query.get('page[size]'), query.get('fields[flow]')])).toEqual([
          ['equals(archived,false)', '50', 'name,archived'],
          ['equals(archived,false)', '50', 'name,archived'],
          ['equals(archived,true)', '50', 'name,archived'],
        ]);
        expect(tokyo.requests.filter((request) => request.path.startsWith('/api/flows/')).map((request) => request.path)).toEqual(['/api/flows/GONE01']);
        const series = JSON.parse(tokyo.requests.find((request) => request.path === '/api/flow-series-reports')!.rawBody).data;
        expect(series).toEqual({
          type: 'flow-series-report',
          attributes: {
            statistics: ['recipients', 'delivered', 'opens_unique', 'clicks_unique', 'conversions', 'conversion_value'],
            timeframe: { start: '2026-01-01T00:00:00+09:00', end: '2026-01-31T23:59:59+09:00' },
            interval: 'daily',
            conversion_metric_id: 'M00006',
            filter: 'equals(send_channel,"email")',
          },
        });
        expect(tokyo.refusals).toEqual([]);
      } finally {
        await tokyo.close();
      }
    }
  });

  it('a key without flows:read keeps syncing campaigns and says flows are missing, without disconnecting', async () => {
    const noFlows = await startKlaviyoFake({ fixture: newYorkCampaigns, flowFixture: tokyoFlows, timezone: 'America/New_York', flowsScope: false, rateLimits: true });
    try {
      const january = utcWindow('2026-01-01', '2026-02-01');
      const { rows, batches } = await runWindow(klaviyoConnector, ctx([], noFlows.options.apiKey, noFlows), january);
      expect(comparable(rows).map((row) => row.campaignId)).toEqual(['A', 'B', 'D']);
      expect(batches.at(-1)!.batch).toMatchObject({ nextCursor: null, warnings: [FLOWS_FORBIDDEN_WARNING], estimatedTotal: 3 });
      expect(FLOWS_FORBIDDEN_WARNING).toMatch(/flows:read/);
    } finally {
      await noFlows.close();
    }
  });

  it('every flow request the connector sends is one Klaviyo accepts; the fake refuses those it would not', async () => {
    // A seeded year (three flows, one archived) and a New York autumn across the end of daylight saving time.
    const autumn = await startKlaviyoFake({ fixture: [], flows: 4, start: '2026-08-01', days: 150, timezone: 'America/New_York', rateLimits: true });
    const strict = await startKlaviyoFake({ fixture: [], flowFixture: tokyoFlows, timezone: 'America/New_York' });
    try {
      const { rows } = await runWindow(klaviyoConnector, ctx(), year);
      expect(rows.filter((row) => row.campaignId.startsWith('flow:')).length).toBeGreaterThan(300);
      expect(comparable(rows)).toEqual(comparable(fake.expectedRows(year.since, year.until)));
      expect(fake.refusals).toEqual([]);
      const autumnWindow = utcWindow('2026-08-01', '2026-12-29');
      const autumnRows = (await runWindow(klaviyoConnector, ctx([], autumn.options.apiKey, autumn), autumnWindow)).rows;
      expect(comparable(autumnRows)).toEqual(comparable(autumn.expectedRows(autumnWindow.since, autumnWindow.until)));
      expect(autumn.refusals).toEqual([]);

      const headers = { authorization: `Klaviyo-API-Key ${strict.options.apiKey}`, revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' };
      const series = (attributes: object) =>
        fetch(`${strict.apiUrl}/flow-series-reports`, { method: 'POST', headers, body: JSON.stringify({ data: { type: 'flow-series-report', attributes } }) });
      // 60 days on the wall clock across the start of daylight saving time (60 days less an hour elapsed)
      const valid = { statistics: ['recipients'], timeframe: { start: '2026-03-01T00:00:00-05:00', end: '2026-04-30T00:00:00-04:00' }, interval: 'daily', conversion_metric_id: 'M00006' };
      expect((await series(valid)).status).toBe(200);
      expect((await fetch(`${strict.apiUrl}/flows?page%5Bsize%5D=50&filter=${encodeURIComponent('equals(archived,true)')}`, { headers })).status).toBe(200);
      expect(strict.refusals).toEqual([]);
      // 61 days with the daily interval
      expect((await series({ ...valid, timeframe: { start: '2026-03-01T00:00:00-05:00', end: '2026-05-01T00:00:00-04:00' } })).status).toBe(400);
      // 60 days on the wall clock across the end of daylight saving time: an hour longer in elapsed time
      expect((await series({ ...valid, timeframe: { start: '2026-10-01T00:00:00-04:00', end: '2026-11-30T00:00:00-05:00' } })).status).toBe(400);
      // 8 days hourly
      expect((await series({ ...valid, interval: 'hourly', timeframe: { start: '2026-03-01T00:00:00-05:00', end: '2026-03-09T00:00:00-04:00' } })).status).toBe(400);
      const { interval: _interval, ...withoutInterval } = valid;
      expect((await series(withoutInterval)).status).toBe(400);
      expect((await series({ ...valid, group_by: ['flow_id', 'send_channel'] })).status).toBe(400);
      expect((await series({ ...valid, statistics: ['revenue'] })).status).toBe(400);
      expect((await series({ ...valid, conversion_metric_id: undefined })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/flows?page%5Bsize%5D=51`, { headers })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/flows?fields%5Bflow%5D=name,definition`, { headers })).status).toBe(400);
      expect((await fetch(`${strict.apiUrl}/flows/GONE01`, { headers })).status).toBe(404);
      expect(strict.refusals).toHaveLength(9);
    } finally {
      await Promise.all([autumn.close(), strict.close()]);
    }
  });
});

describe('klaviyo system webhook signature', () => {
  const secret = 'whsec_klaviyo_0123456789abcdef';
  const timestamp = '1767225600';
  const body = JSON.stringify({ data: [{ external_id: 'e1', payload: {}, topic: 'event:klaviyo.email_delivered' }], meta: { klaviyo_account_id: 'AbC123', klaviyo_webhook_id: 'wh_1', timestamp } });
  const now = new Date(1_767_225_600_000 + 30_000);
  const headers = (signature: string, extra: Record<string, string> = {}) => ({ 'Klaviyo-Signature': signature, 'Klaviyo-Timestamp': timestamp, 'Klaviyo-Webhook-Id': 'wh_1', ...extra });

  it('accepts a delivery signed over body + timestamp', () => {
    const verdict = verifyKlaviyoWebhook({ rawBody: body, headers: headers(klaviyoSignature(secret, body, timestamp)), secret, now });
    expect(verdict).toMatchObject({ ok: true, webhookId: 'wh_1', accountId: 'AbC123' });
  });

  it('refuses forged, tampered, replayed and mismatched deliveries', () => {
    const good = klaviyoSignature(secret, body, timestamp);
    expect(verifyKlaviyoWebhook({ rawBody: body, headers: headers(klaviyoSignature('other-secret', body, timestamp)), secret, now }).ok).toBe(false);
    expect(verifyKlaviyoWebhook({ rawBody: body.replace('AbC123', 'Evil99'), headers: headers(good), secret, now }).ok).toBe(false);
    expect(verifyKlaviyoWebhook({ rawBody: body, headers: headers(good), secret, now: new Date(now.getTime() + 3_600_000) })).toMatchObject({ ok: false, reason: expect.stringMatching(/replayed/) });
    expect(verifyKlaviyoWebhook({ rawBody: body, headers: headers(good, { 'Klaviyo-Webhook-Id': 'wh_2' }), secret, now })).toMatchObject({ ok: false });
    expect(verifyKlaviyoWebhook({ rawBody: body, headers: {}, secret, now }).ok).toBe(false);
  });
});
