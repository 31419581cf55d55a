import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKlaviyoFake, type KlaviyoFake, type KlaviyoFakeCampaign, type KlaviyoFakeMessageStats } from '../../../../test/fakes/klaviyo.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../connector.ts';
import { runWindow } from '../email-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import { classifyKlaviyo, KLAVIYO_REVISION, type KlaviyoCampaign, type KlaviyoReportResult } from './client.ts';
import { klaviyoConnector, reportTimeframes } from './index.ts';
import { campaignSendTime, findConversionMetric, statsByCampaign, toEmailMetric } from './map.ts';
import { klaviyoSignature, verifyKlaviyoWebhook } from './webhook.ts';

let fake: KlaviyoFake;
const year = utcWindow('2025-01-01', '2026-01-01');

function ctx(waits: number[] = [], apiKey = fake.options.apiKey, on: KlaviyoFake = fake) {
  return testContext('klaviyo', on.apiUrl, { apiKey }, { waits });
}

function comparable(rows: { campaignId: string; day: string; campaignName: string; sends?: number; opens?: number; clicks?: number; attributedOrders?: number; attributedRevenueMinor?: number }[]) {
  return rows
    .map(({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }) => ({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }))
    .sort((a, b) => a.campaignId.localeCompare(b.campaignId));
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
