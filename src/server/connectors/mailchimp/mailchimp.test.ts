import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailchimpFake, type MailchimpFake } from '../../../../test/fakes/mailchimp.ts';
import { ConnectorAuthError, MalformedResponseError } from '../connector.ts';
import { runWindow } from '../email-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import { dataCentreOf, type MailchimpReport } from './client.ts';
import { mailchimpConnector } from './index.ts';
import { reportToEmailMetric } from './map.ts';

let fake: MailchimpFake;
const year = utcWindow('2025-01-01', '2026-01-01');

function ctx(waits: number[] = [], apiKey = fake.options.apiKey) {
  return testContext('mailchimp', fake.apiUrl, { apiKey }, { waits });
}

function comparable(rows: { campaignId: string; day: string; campaignName: string; sends?: number; opens?: number; clicks?: number; attributedOrders?: number; attributedRevenueMinor?: number }[]) {
  return rows
    .map(({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }) => ({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }))
    .sort((a, b) => a.campaignId.localeCompare(b.campaignId));
}

beforeAll(async () => {
  fake = await startMailchimpFake({ seed: 5, reports: 250 });
});
afterAll(() => fake.close());

describe('mailchimp map', () => {
  it('maps the documented campaign report exactly, on its send day', () => {
    const documented: MailchimpReport = {
      id: '42694e9e57', campaign_title: 'January Newsletter', type: 'regular', subject_line: 'New in', send_time: '2026-01-10T15:00:00+00:00',
      emails_sent: 1000,
      opens: { opens_total: 600, unique_opens: 420 },
      clicks: { clicks_total: 150, unique_clicks: 90, unique_subscriber_clicks: 80 },
      ecommerce: { total_orders: 12, total_spent: 980.5, total_revenue: 850.0, currency_code: 'USD' },
    };
    expect(reportToEmailMetric(documented, { timezone: 'UTC', fallbackCurrency: 'EUR' })).toEqual({
      platform: 'mailchimp', campaignId: '42694e9e57', day: '2026-01-10', campaignName: 'January Newsletter', currency: 'USD',
      sends: 1000, opens: 420, clicks: 80, attributedOrders: 12, attributedRevenueMinor: 85_000, spendMinor: 0,
    });
    expect(reportToEmailMetric({ ...documented, send_time: '2026-01-10T23:30:00+00:00' }, { timezone: 'Asia/Tokyo', fallbackCurrency: 'EUR' }).day).toBe('2026-01-11');
    const noStore = reportToEmailMetric({ ...documented, campaign_title: '', ecommerce: null }, { timezone: 'UTC', fallbackCurrency: 'EUR' });
    expect(noStore).toMatchObject({ campaignName: 'New in', currency: 'EUR', attributedOrders: 0, attributedRevenueMinor: 0 });
  });

  it('finds the data centre in the key and builds the API root from it', () => {
    expect(dataCentreOf('0123abcd-us21')).toBe('us21');
    expect(dataCentreOf('0123abcd')).toBeNull();
    expect(mailchimpConnector.defaultBaseUrl({ apiKey: 'xxx-us21' })).toBe('https://us21.api.mailchimp.com/3.0');
    expect(() => mailchimpConnector.defaultBaseUrl({ apiKey: 'xxx' })).toThrow(ConnectorAuthError);
  });
});

describe('mailchimp connector against the fake', () => {
  it("verifies the key with Basic auth and names the account and its time zone", async () => {
    await expect(mailchimpConnector.verify(ctx())).resolves.toEqual({ accountId: '8d3a3db4d97663a9074efcc16', accountName: 'Fake Outdoor Co', timezone: 'UTC' });
    const header = String(fake.requests.at(-1)!.headers.authorization);
    expect(Buffer.from(header.replace('Basic ', ''), 'base64').toString()).toMatch(new RegExp(`:${fake.options.apiKey}$`));
  });

  it('backfills every report of the window, paging by offset until total_items', async () => {
    const before = fake.requests.length;
    const { rows, batches } = await runWindow(mailchimpConnector, ctx(), year);
    const expected = fake.expectedRows(year.since, year.until);
    expect(comparable(rows)).toEqual(comparable(expected));
    expect(batches).toHaveLength(Math.ceil(expected.length / 100));
    expect(batches[0]!.batch.estimatedTotal).toBe(expected.length);
    const query = new URLSearchParams(fake.requests[before]!.query);
    // Mailchimp's documented form (2015-10-21T15:41:36+00:00), a second before the window's start
    expect(query.get('since_send_time')).toBe('2024-12-31T23:59:59+00:00');
    expect(query.get('before_send_time')).toBe('2026-01-01T00:00:00+00:00');
    expect(query.get('count')).toBe('100');
  });

  it('an incremental window brings only campaigns sent in it', async () => {
    const week = utcWindow('2025-06-01', '2025-06-08');
    const { rows } = await runWindow(mailchimpConnector, ctx(), week);
    expect(rows.length).toBeGreaterThan(0);
    expect(comparable(rows)).toEqual(comparable(fake.expectedRows(week.since, week.until)));
  });

  it('replaying a cursor returns the same page; a later change shows up on the next sync', async () => {
    const { batches } = await runWindow(mailchimpConnector, ctx(), year);
    const second = batches[1]!;
    expect(await mailchimpConnector.fetchBatch(ctx(), year, second.cursor)).toEqual(second.batch);

    const target = second.batch.emailMetrics![0]!;
    fake.updateReport(target.campaignId, { emails_sent: 123_456 });
    const again = await mailchimpConnector.fetchBatch(ctx(), year, second.cursor);
    expect(again.emailMetrics!.find((row) => row.campaignId === target.campaignId)!.sends).toBe(123_456);
  });

  it('retries 429, a bare 403 and 5xx with backoff', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit');
    fake.injectFault('server_error');
    fake.shedLoadWithBare403(1);
    await expect(mailchimpConnector.fetchBatch(ctx(waits), year, null)).resolves.toMatchObject({ estimatedTotal: expect.any(Number) });
    expect(waits).toHaveLength(3);
  });

  it('keeps at most 10 requests in flight per key', async () => {
    const slow = await startMailchimpFake({ latencyMs: 25 });
    try {
      const context = testContext('mailchimp', slow.apiUrl, { apiKey: slow.options.apiKey });
      const waits: number[] = [];
      await Promise.all(Array.from({ length: 25 }, () => mailchimpConnector.verify({ ...context, http: testContext('mailchimp', slow.apiUrl, {}, { waits }).http })));
      expect(slow.maxInFlight).toBeLessThanOrEqual(10);
      expect(waits).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    fake.injectFault('malformed');
    await expect(mailchimpConnector.fetchBatch(ctx(), year, null)).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it("counts a campaign sent at the window's first second, whichever way Mailchimp reads since_send_time", async () => {
    const edge = await startMailchimpFake({ seed: 9, reports: 28, start: '2025-05-25', days: 28 });
    try {
      const week = utcWindow('2025-06-01', '2025-06-08');
      const target = edge.expectedRows(utcWindow('2025-06-08', '2025-06-15').since, utcWindow('2025-06-08', '2025-06-15').until)[0]!;
      edge.updateReport(target.campaignId, { send_time: '2025-06-01T00:00:00+00:00' });
      const expected = edge.expectedRows(week.since, week.until);
      // 7 reports a week (28 over 28 days) plus the one moved to 2025-06-01 00:00:00
      expect(expected).toHaveLength(8);
      const { rows } = await runWindow(mailchimpConnector, testContext('mailchimp', edge.apiUrl, { apiKey: edge.options.apiKey }), week);
      // The fake reads since_send_time as strictly after. Before: since_send_time=2025-06-01T00:00:00.000Z
      // (refused: not the documented form; read as "after", the campaign sent at 00:00:00 was left
      // out: 7 rows). Now: 2025-05-31T23:59:59+00:00, and the connector keeps [since, until) itself.
      expect(comparable(rows)).toEqual(comparable(expected));
      expect(rows.find((row) => row.campaignId === target.campaignId)).toMatchObject({ day: '2025-06-01', sends: target.sends });
      expect(edge.refusals).toEqual([]);
    } finally {
      await edge.close();
    }
  });

  it('every request the connector sends is one Mailchimp accepts; the fake refuses those it would not', async () => {
    await runWindow(mailchimpConnector, ctx(), year);
    await runWindow(mailchimpConnector, ctx(), utcWindow('2025-06-01', '2025-06-08'));
    expect(fake.refusals).toEqual([]);
    const authorization = `Basic ${Buffer.from(`any:${fake.options.apiKey}`).toString('base64')}`;
    const get = (query: string) => fetch(`${fake.apiUrl}/reports?${query}`, { headers: { authorization } });
    expect((await get('count=1000&since_send_time=2025-01-01T00:00:00%2B00:00')).status).toBe(200);
    expect((await get('count=1001')).status).toBe(400);
    expect((await get('since_send_time=2025-01-01T00:00:00.000Z')).status).toBe(400);
    expect((await get('since_send_time=2025-01-01')).status).toBe(400);
    expect((await get('type=automation')).status).toBe(400);
    expect(fake.refusals).toHaveLength(4);
  });

  it('a revoked key raises ConnectorAuthError with a reason the user understands', async () => {
    fake.injectFault('revoked');
    const error = await mailchimpConnector.fetchBatch(ctx(), year, null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/refused the API key/);
    await expect(mailchimpConnector.verify(ctx([], 'wrong-us21'))).rejects.toBeInstanceOf(ConnectorAuthError);
  });
});
