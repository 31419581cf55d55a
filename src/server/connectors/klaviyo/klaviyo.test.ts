import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKlaviyoFake, type KlaviyoFake } from '../../../../test/fakes/klaviyo.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../connector.ts';
import { runWindow } from '../email-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import type { KlaviyoCampaign, KlaviyoReportResult } from './client.ts';
import { klaviyoConnector, reportTimeframes } from './index.ts';
import { campaignSendDay, findConversionMetric, statsByCampaign, toEmailMetric } from './map.ts';
import { klaviyoSignature, verifyKlaviyoWebhook } from './webhook.ts';

let fake: KlaviyoFake;
const year = utcWindow('2025-01-01', '2026-01-01');

function ctx(waits: number[] = [], apiKey = fake.options.apiKey) {
  return testContext('klaviyo', fake.apiUrl, { apiKey }, { waits });
}

function comparable(rows: { campaignId: string; day: string; campaignName: string; sends?: number; opens?: number; clicks?: number; attributedOrders?: number; attributedRevenueMinor?: number }[]) {
  return rows
    .map(({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }) => ({ campaignId, day, campaignName, sends, opens, clicks, attributedOrders, attributedRevenueMinor }))
    .sort((a, b) => a.campaignId.localeCompare(b.campaignId));
}

beforeAll(async () => {
  fake = await startKlaviyoFake({ seed: 7, campaigns: 60 });
});
afterAll(() => fake.close());

describe('klaviyo map', () => {
  it('sums the documented report result per campaign with exact revenue', () => {
    const documented: KlaviyoReportResult = {
      groupings: { send_channel: 'email', campaign_id: '01GMRWDSA0ARTAKE1SFX8JGXAY', campaign_message_id: '01GMRWDSA0ARTAKE1SFX8JGXAY' },
      statistics: { recipients: 1000, delivered: 990, opens_unique: 98, clicks_unique: 31, conversions: 5, conversion_value: 412.5 },
    };
    const variantB: KlaviyoReportResult = { ...documented, groupings: { ...documented.groupings, campaign_message_id: 'B' }, statistics: { ...documented.statistics, conversion_value: 0.1 } };
    const stats = statsByCampaign([documented, variantB], 'USD').get('01GMRWDSA0ARTAKE1SFX8JGXAY');
    expect(stats).toEqual({ sends: 2000, opens: 196, clicks: 62, orders: 10, revenueMinor: 41_260 });
    expect(statsByCampaign([documented], 'JPY').get(documented.groupings.campaign_id)!.revenueMinor).toBe(413);
    expect(statsByCampaign([documented], 'USD', false).get(documented.groupings.campaign_id)).toMatchObject({ orders: 0, revenueMinor: 0 });
    expect(toEmailMetric({ id: 'c1', name: 'January', day: '2026-01-10' }, stats!, 'USD')).toEqual({
      platform: 'klaviyo', campaignId: 'c1', day: '2026-01-10', campaignName: 'January', currency: 'USD',
      sends: 2000, opens: 196, clicks: 62, attributedOrders: 10, attributedRevenueMinor: 41_260, spendMinor: 0,
    });
  });

  it("puts a campaign on its send day in the store's timezone and finds the Placed Order metric", () => {
    const campaign: KlaviyoCampaign = { id: 'c1', attributes: { name: 'Late', status: 'Sent', send_time: '2026-01-10T23:30:00+00:00', scheduled_at: null } };
    expect(campaignSendDay(campaign, 'UTC')).toBe('2026-01-10');
    expect(campaignSendDay(campaign, 'Europe/Berlin')).toBe('2026-01-11');
    expect(findConversionMetric([{ id: 'a', attributes: { name: 'Opened Email' } }, { id: 'RESQ6t', attributes: { name: 'Placed Order' } }])?.id).toBe('RESQ6t');
  });

  it('cuts windows longer than a year into report timeframes Klaviyo accepts', () => {
    const frames = reportTimeframes(utcWindow('2024-01-01', '2025-06-01'));
    expect(frames).toHaveLength(2);
    expect(frames[0]).toMatchObject({ start: '2024-01-01T00:00:00+00:00', end: '2024-12-30T23:59:59+00:00' });
    expect(frames[1]!.end).toBe('2025-05-31T23:59:59+00:00');
  });
});

describe('klaviyo connector against the fake', () => {
  it('verifies the key and names the account', async () => {
    await expect(klaviyoConnector.verify(ctx())).resolves.toEqual({ accountId: 'AbC123', accountName: 'Fake Outdoor Co', currency: 'USD' });
    const request = fake.requests.at(-1)!;
    expect(request.headers.authorization).toBe(`Klaviyo-API-Key ${fake.options.apiKey}`);
    expect(request.headers.revision).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('backfills every e-mail campaign of the window on its send day, A/B variants summed across report pages', async () => {
    const { rows, batches } = await runWindow(klaviyoConnector, ctx(), year);
    const expected = fake.expectedRows(year.since, year.until);
    expect(expected.length).toBeGreaterThan(40);
    expect(comparable(rows)).toEqual(comparable(expected));
    expect(rows.every((row) => row.platform === 'klaviyo' && row.currency === 'USD')).toBe(true);
    expect(batches.at(-1)!.batch.estimatedTotal).toBe(expected.length);
    const reportCalls = fake.requests.filter((request) => request.path === '/api/campaign-values-reports');
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

  it('waits as long as Retry-After says on 429 and backs off on 5xx', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: 'campaign-values-reports' });
    fake.injectFault('server_error', { pathIncludes: '/api/campaigns' });
    const { rows } = await runWindow(klaviyoConnector, ctx(waits), year);
    expect(rows.length).toBe(fake.expectedRows(year.since, year.until).length);
    expect(waits).toHaveLength(2);
    expect(waits).toContain(2000);
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
    const bare = await startKlaviyoFake({ seed: 3, campaigns: 12, withPlacedOrder: false });
    try {
      const window = utcWindow('2025-01-01', '2026-01-01');
      const { rows } = await runWindow(klaviyoConnector, testContext('klaviyo', bare.apiUrl, { apiKey: bare.options.apiKey }), window);
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
