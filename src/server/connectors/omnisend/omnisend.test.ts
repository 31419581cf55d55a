import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOmnisendFake, type OmnisendFake } from '../../../../test/fakes/omnisend.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../connector.ts';
import { runWindow } from '../email-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import { classifyOmnisend, type OmnisendCampaign } from './client.ts';
import { omnisendConnector } from './index.ts';
import { campaignToEmailMetric } from './map.ts';
import { platformAnswer } from '../../../../test/fakes/platform-answer.ts';

let fake: OmnisendFake;
const year = utcWindow('2025-01-01', '2026-01-01');

function ctx(waits: number[] = [], apiKey = fake.options.apiKey) {
  return testContext('omnisend', fake.apiUrl, { apiKey }, { waits, currency: 'EUR' });
}

function comparable(rows: { campaignId: string; day: string; campaignName: string; sends?: number; opens?: number; clicks?: number }[]) {
  return rows.map(({ campaignId, day, campaignName, sends, opens, clicks }) => ({ campaignId, day, campaignName, sends, opens, clicks })).sort((a, b) => a.campaignId.localeCompare(b.campaignId));
}

beforeAll(async () => {
  fake = await startOmnisendFake({ seed: 11, campaigns: 150 });
});
afterAll(() => fake.close());

describe('omnisend map', () => {
  const documented: OmnisendCampaign = { campaignID: '5f0a0000000000000000abcd', name: 'Summer sale', status: 'sent', startDate: '2026-01-10T22:30:00Z', sent: 1000, opened: 420, clicked: 80 };

  it('maps a v3 campaign to its start day in the store timezone, in the store currency; paused and in-progress ones have sent', () => {
    expect(campaignToEmailMetric(documented, { timezone: 'UTC', currency: 'EUR' })).toEqual({
      platform: 'omnisend', campaignId: '5f0a0000000000000000abcd', day: '2026-01-10', campaignName: 'Summer sale', currency: 'EUR',
      sends: 1000, opens: 420, clicks: 80, attributedOrders: 0, attributedRevenueMinor: 0, spendMinor: 0,
    });
    expect(campaignToEmailMetric(documented, { timezone: 'Europe/Vilnius', currency: 'EUR' })!.day).toBe('2026-01-11');
    expect(campaignToEmailMetric({ ...documented, status: 'draft' }, { timezone: 'UTC', currency: 'EUR' })).toBeNull();
    expect(campaignToEmailMetric({ ...documented, status: 'scheduled' }, { timezone: 'UTC', currency: 'EUR' })).toBeNull();
    expect(campaignToEmailMetric({ ...documented, status: 'inProgress' }, { timezone: 'UTC', currency: 'EUR' })).toMatchObject({ sends: 1000 });
    expect(campaignToEmailMetric({ ...documented, status: 'paused' }, { timezone: 'UTC', currency: 'EUR' })).toMatchObject({ sends: 1000 });
  });

  it("waits a 429's X-Rate-Limit-Reset, else a 2026-03-15 problem's retryAfter, else backs off", () => {
    const response = (text: string, headers: Record<string, string> = {}) => platformAnswer(429, text, headers);
    // v3: "X-Rate-Limit-Reset - The number of seconds left in the current period"
    expect(classifyOmnisend(response('{"title":"Too Many Requests"}', { 'X-Rate-Limit-Reset': '37' }))).toMatchObject({ kind: 'retry', afterMs: 37_000 });
    expect(classifyOmnisend(response('{"title":"Too Many Requests","status":429,"retryAfter":60}'))).toMatchObject({ kind: 'retry', afterMs: 60_000 });
    expect(classifyOmnisend(response('{"title":"Too Many Requests","status":429}'))).toMatchObject({ kind: 'retry', afterMs: undefined });
  });
});

describe('omnisend connector against the fake', () => {
  it('verifies the key with X-API-KEY', async () => {
    await expect(omnisendConnector.verify(ctx())).resolves.toMatchObject({ accountId: expect.stringMatching(/^omnisend-[0-9a-f]{12}$/) });
    expect(fake.requests.at(-1)!.headers['x-api-key']).toBe(fake.options.apiKey);
  });

  it('backfills every campaign started in the window, following paging.next', async () => {
    const { rows, batches } = await runWindow(omnisendConnector, ctx(), year);
    const expected = fake.expectedRows(year.since, year.until);
    expect(expected.length).toBeGreaterThan(100);
    expect(comparable(rows)).toEqual(comparable(expected));
    expect(batches).toHaveLength(2);
    expect(rows.every((row) => row.currency === 'EUR')).toBe(true);
  });

  it('an incremental window brings only campaigns started in it', async () => {
    const april = utcWindow('2025-04-01', '2025-05-01');
    const { rows } = await runWindow(omnisendConnector, ctx(), april);
    expect(rows.length).toBeGreaterThan(0);
    expect(comparable(rows)).toEqual(comparable(fake.expectedRows(april.since, april.until)));
  });

  it('replaying a cursor returns the same rows', async () => {
    const { batches } = await runWindow(omnisendConnector, ctx(), year);
    expect(await omnisendConnector.fetchBatch(ctx(), year, batches[1]!.cursor)).toEqual(batches[1]!.batch);
  });

  it('backs off on 429 without headers and on 5xx, and gives up after the last attempt', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit');
    fake.injectFault('server_error');
    await expect(omnisendConnector.fetchBatch(ctx(waits), year, null)).resolves.toBeTruthy();
    expect(waits).toHaveLength(2);
    fake.injectFault('rate_limit', { times: 10 });
    await expect(omnisendConnector.fetchBatch(ctx(), year, null)).rejects.toBeInstanceOf(ConnectorRequestError);
    fake.clearFaults();
  });

  it('waits out the 400-a-minute limit for as long as X-Rate-Limit-Reset says', async () => {
    // One request a minute, on a clock at 12:00:20: the second page is refused until 12:01:00, 40 s on.
    const limited = await startOmnisendFake({ seed: 11, campaigns: 150, requestsPerMinute: 1, now: '2026-03-10T12:00:20Z' });
    try {
      const waits: number[] = [];
      const { rows, batches } = await runWindow(omnisendConnector, testContext('omnisend', limited.apiUrl, { apiKey: limited.options.apiKey }, { waits, currency: 'EUR' }), year);
      expect(batches).toHaveLength(2);
      expect(comparable(rows)).toEqual(comparable(limited.expectedRows(year.since, year.until)));
      expect(limited.throttles).toEqual([40]);
      // Before: a 0.25-0.5 s backoff (the header was not read), retried into the same closed minute.
      expect(waits).toEqual([40_000]);
    } finally {
      await limited.close();
    }
  });

  it('every request the connector sends is one Omnisend accepts; the fake refuses those it would not', async () => {
    await runWindow(omnisendConnector, ctx(), year);
    await omnisendConnector.verify(ctx());
    expect(fake.refusals).toEqual([]);
    const get = (query: string) => fetch(`${fake.apiUrl}/campaigns?${query}`, { headers: { 'x-api-key': fake.options.apiKey } });
    const ok = await get('limit=250&offset=0');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-rate-limit-limit')).toBe('400');
    expect((await get('limit=251')).status).toBe(400);
    expect((await get('limit=0')).status).toBe(400);
    expect((await get('offset=-1')).status).toBe(400);
    expect(fake.refusals).toHaveLength(3);
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    fake.injectFault('malformed');
    await expect(omnisendConnector.fetchBatch(ctx(), year, null)).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('a revoked key raises ConnectorAuthError with a reason the user understands', async () => {
    fake.injectFault('revoked');
    const error = await omnisendConnector.fetchBatch(ctx(), year, null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/refused the API key/);
  });
});
