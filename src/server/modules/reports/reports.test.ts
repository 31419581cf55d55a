import { beforeAll, describe, expect, it } from 'vitest';
import { setFlatFxRates, signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { startJobs } from '../../jobs/boss.ts';
import { REPORTS_DELIVER_QUEUE } from '../../jobs/queues.ts';
import { ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds, upsertProducts } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { isDue, latestOccurrence, zonedInstant } from './report-delivery.ts';

const testApp = useTestApp();

beforeAll(() => setFlatFxRates(testApp.orm.em.fork(), '2026-05-20', '2026-06-20'));

/**
 * Store in GBP, 1-14 June 2026:
 *   1 Jun  A GBP 100.00, Google click, customer c1 (new), 2 x Mug (P1) at 50.00; shipping 5.00
 *   2 Jun  B USD 50.00 = GBP 34.00, direct, customer c1 (returning)
 *   8 Jun  C GBP 30.00, Klaviyo e-mail, guest (new), 1 x Tee (P2)
 *   9 Jun  refund of A GBP 20.00
 *   spend: Google 1 Jun GBP 40.00 (campaign Brand, 100 clicks); Klaviyo 8 Jun GBP 5.00 (campaign June, 10 clicks)
 * Previous week (25-31 May): D GBP 10.00 on 28 May, direct.
 */
async function seedFixture(store: { id: number; currency: string; timezone: string }) {
  const em = testApp.orm.em.fork();
  await upsertProducts(em, store, [
    { platform: 'shopify', externalId: 'P1', title: 'Mug', priceMinor: 5_000, currency: 'GBP' },
    { platform: 'shopify', externalId: 'P2', title: 'Tee', priceMinor: 3_000, currency: 'GBP' },
  ]);
  await ingestOrders(em, store, [
    testOrder({ externalId: 'A', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, shippingMinor: 500, gclid: 'g', customer: { externalId: 'c1' }, lines: [{ externalId: 'l', productExternalId: 'P1', title: 'Mug', quantity: 2, unitPriceMinor: 5_000 }] }),
    testOrder({ externalId: 'B', placedAt: '2026-06-02T10:00:00Z', grossMinor: 5_000, currency: 'USD', customer: { externalId: 'c1' } }),
    testOrder({ externalId: 'C', placedAt: '2026-06-08T10:00:00Z', grossMinor: 3_000, utmSource: 'klaviyo', utmMedium: 'email', lines: [{ externalId: 'l', productExternalId: 'P2', title: 'Tee', quantity: 1, unitPriceMinor: 3_000 }] }),
    testOrder({ externalId: 'D', placedAt: '2026-05-28T10:00:00Z', grossMinor: 1_000 }),
  ]);
  await ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'r', orderExternalId: 'A', refundedAt: '2026-06-09T10:00:00Z', amountMinor: 2_000, currency: 'GBP' }]);
  await ingestAdMetrics(em, store, [{ platform: 'googleads', accountId: 'a', campaignId: 'brand', day: '2026-06-01', campaignName: 'Brand', currency: 'GBP', spendMinor: 4_000, impressions: 1_000, clicks: 100, conversions: 2 }]);
  await ingestEmailMetrics(em, store, [{ platform: 'klaviyo', campaignId: 'june', day: '2026-06-08', campaignName: 'June', currency: 'GBP', sends: 100, clicks: 10, attributedOrders: 1, spendMinor: 500 }]);
}

const FIXED = { from: '2026-06-01', to: '2026-06-14' };

describe('reports.run, hand-computed', () => {
  let owner: StoreOwner;
  beforeAll(async () => {
    owner = await signedInStoreOwner(testApp, 'rep');
    await seedFixture(owner.store);
  });
  const run = async (definition: Record<string, unknown>) => {
    const answer = await trpcQuery(owner.client, 'reports.run', definition);
    expect(answer.status).toBe(200);
    return answer.body.result.data;
  };

  it('net sales and orders by channel, best first, with totals', async () => {
    const result = await run({ metrics: ['netSales', 'orders', 'roas'], dimension: 'channel', range: FIXED });
    expect(result.rows.map((r: { key: string; values: object }) => [r.key, r.values])).toEqual([
      ['googleads', { netSales: 8_000, orders: 1, roas: 2 }], // (100.00 - 20.00 refund) / 40.00
      ['direct', { netSales: 3_400, orders: 1, roas: null }],
      ['klaviyo', { netSales: 3_000, orders: 1, roas: 6 }],
    ]);
    // Per channel row, ROAS is attributed (the channel's sales / its spend); the Total is the store's
    // blended ROAS whatever the grouping: 144.00 net sales / 40.00 ad spend (Klaviyo's 5.00 is e-mail).
    expect(result.totals.values).toEqual({ netSales: 14_400, orders: 3, roas: 3.6 });
  });

  it('the Total row does not depend on the grouping: day, week, channel, platform, campaign, product, customer type', async () => {
    const metrics = ['netSales', 'orders', 'aov', 'units', 'refunds', 'newCustomers', 'spend'] as const;
    const ratios = ['clicks', 'roas', 'mer', 'cac'] as const;
    // Hand-computed over 1-14 June, each order and each spend once:
    //   net sales = A 100.00 + B 34.00 + C 30.00 - refund 20.00 = 144.00; orders A, B, C = 3; AOV = 144.00 / 3 = 48.00
    //   units = A 2 + C 1 = 3 (B has no lines); refunds 20.00; new customers: c1 (A) = 1 (a guest checkout is a new order, not a customer)
    //   spend = Google 40.00 + Klaviyo 5.00 = 45.00; clicks 100 + 10 = 110
    //   ROAS (blended) = 144.00 / ad spend 40.00 = 3.6; MER = (144.00 + shipping 5.00) / 45.00; CAC = 45.00 / 1 = 45.00
    const expected = {
      current: { netSales: 14_400, orders: 3, aov: 4_800, units: 3, refunds: 2_000, newCustomers: 1, spend: 4_500 },
      ratios: { clicks: 110, roas: 3.6, mer: 14_900 / 4_500, cac: 4_500 },
      // Previous period 18-31 May: D 10.00 only (a guest), no spend.
      previous: { netSales: 1_000, orders: 1, aov: 1_000, units: 0, refunds: 0, newCustomers: 0, spend: 0 },
      previousRatios: { clicks: 0, roas: null, mer: null, cac: null },
    };
    for (const dimension of ['day', 'week', 'month', 'channel', 'platform', 'campaign', 'product', 'customer_type']) {
      for (const granularity of dimension === 'channel' ? ['total', 'week'] : ['total']) {
        const first = await run({ metrics: [...metrics], dimension, granularity, range: FIXED, compare: 'previous_period' });
        expect({ dimension, granularity, ...first.totals }).toEqual({ dimension, granularity, values: expected.current, previous: expected.previous });
        const second = await run({ metrics: [...ratios], dimension, granularity, range: FIXED, compare: 'previous_period' });
        expect({ dimension, granularity, ...second.totals }).toEqual({ dimension, granularity, values: expected.ratios, previous: expected.previousRatios });
      }
    }
  });

  it('by week with the previous period beside each row; blended ROAS and MER from metrics.ts', async () => {
    const result = await run({ metrics: ['netSales', 'spend', 'roas', 'mer', 'refunds'], dimension: 'week', range: FIXED, compare: 'previous_period' });
    expect(result.previousRange).toEqual({ from: '2026-05-18', to: '2026-05-31' });
    expect(result.rows.map((r: { key: string }) => r.key)).toEqual(['2026-06-01', '2026-06-08']);
    expect(result.rows[0].values).toEqual({ netSales: 13_400, spend: 4_000, roas: 3.35, mer: (13_400 + 500) / 4_000, refunds: 0 });
    expect(result.rows[1].values).toEqual({ netSales: 1_000, spend: 500, roas: null, mer: 2, refunds: 2_000 });
    expect(result.rows[0].previous).toEqual({ netSales: 0, spend: 0, roas: null, mer: null, refunds: 0 }); // week of 18 May
    expect(result.rows[1].previous).toMatchObject({ netSales: 1_000 }); // week of 25 May
    expect(result.totals.previous).toMatchObject({ netSales: 1_000 });
  });

  it('by product, by customer type and by campaign; metrics a dimension cannot have are null', async () => {
    const products = await run({ metrics: ['netSales', 'units', 'spend'], dimension: 'product', range: FIXED });
    expect(products.rows.map((r: { label: string; values: object }) => [r.label, r.values])).toEqual([
      ['Mug', { netSales: 10_000, units: 2, spend: null }],
      ['Tee', { netSales: 3_000, units: 1, spend: null }],
    ]);
    const types = await run({ metrics: ['netSales', 'orders', 'refunds'], dimension: 'customer_type', range: FIXED });
    expect(types.rows.map((r: { key: string; values: object }) => [r.key, r.values])).toEqual([
      ['new', { netSales: 11_000, orders: 2, refunds: 2_000 }], // A 100.00 + C 30.00 - refund 20.00
      ['returning', { netSales: 3_400, orders: 1, refunds: 0 }],
    ]);
    const campaigns = await run({ metrics: ['spend', 'clicks'], dimension: 'campaign', range: FIXED });
    expect(campaigns.rows.map((r: { label: string; values: object }) => [r.label, r.values])).toEqual([
      ['Google Ads · Brand', { spend: 4_000, clicks: 100 }],
      ['Klaviyo · June', { spend: 500, clicks: 10 }],
    ]);
  });

  it('channel split by week (granularity)', async () => {
    const result = await run({ metrics: ['netSales'], dimension: 'channel', range: FIXED, granularity: 'week' });
    expect(result.hasPeriod).toBe(true);
    expect(result.rows.map((r: { period: string; key: string; values: { netSales: number } }) => [r.period, r.key, r.values.netSales])).toEqual([
      ['2026-06-01', 'googleads', 10_000],
      ['2026-06-01', 'direct', 3_400],
      ['2026-06-08', 'klaviyo', 3_000],
      ['2026-06-08', 'googleads', -2_000],
    ]);
  });

  it('refuses bad definitions with clear messages', async () => {
    const noMetric = await trpcQuery(owner.client, 'reports.run', { metrics: [], dimension: 'channel', range: FIXED });
    expect(noMetric.status).toBe(400);
    expect(noMetric.body.error.message).toBe('Choose at least one metric');
    const backwards = await trpcQuery(owner.client, 'reports.run', { metrics: ['orders'], dimension: 'day', range: { from: '2026-06-10', to: '2026-06-01' } });
    expect(backwards.body.error.message).toBe('The start date must not be after the end date');
  });

  it('exports CSV: the same header and rows as the result, from a definition or a saved report', async () => {
    const definition = { metrics: ['netSales', 'orders'], dimension: 'channel', range: FIXED };
    const answer = await owner.client.get(`/api/reports/export.csv?definition=${encodeURIComponent(JSON.stringify(definition))}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-disposition']).toBe('attachment; filename="report-2026-06-01-to-2026-06-14.csv"');
    expect(String(answer.body).split('\r\n')).toEqual(['Channel,Net sales (GBP),Orders', 'Google Ads,80.00,1', 'Direct,34.00,1', 'Klaviyo,30.00,1', 'Total,144.00,3', '']);

    // With a comparison: each metric's change beside it, as on the page, not the previous period's raw figures.
    // Previous period 18-31 May: D 10.00, direct. Direct 34.00 vs 10.00 = +240.0 %; Google and Klaviyo had nothing (no change);
    // total 144.00 vs 10.00 = +1,340.0 %, orders 3 vs 1 = +200.0 %.
    const compared = await owner.client.get(`/api/reports/export.csv?definition=${encodeURIComponent(JSON.stringify({ ...definition, compare: 'previous_period' }))}`);
    expect(String(compared.body).split('\r\n')).toEqual([
      'Channel,Net sales (GBP),Net sales Δ %,Orders,Orders Δ %',
      'Google Ads,80.00,,1,',
      'Direct,34.00,240.0,1,0.0',
      'Klaviyo,30.00,,1,',
      'Total,144.00,1340.0,3,200.0',
      '',
    ]);

    const saved = (await trpcMutation(owner.client, 'reports.save', { name: 'Channels =SUM(1)', definition })).body.result.data;
    const fromSaved = await owner.client.get(`/api/reports/export.csv?reportId=${saved.id}`);
    expect(fromSaved.body).toBe(answer.body);
    expect(fromSaved.headers['content-disposition']).toContain('filename="Channels-SUM-1-');
    const missing = await owner.client.get('/api/reports/export.csv');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Give a reportId or a definition (JSON) to export');
  });
});

describe('saved reports', () => {
  it('save, list, rename, schedule, remove; validation; another user gets 404', async () => {
    const owner = await signedInStoreOwner(testApp, 'saver');
    const other = await signedInStoreOwner(testApp, 'snoop');
    const definition = { metrics: ['netSales', 'orders'], dimension: 'channel', range: { preset: 'last_30_days' }, granularity: 'total', compare: 'none' };
    const saved = await trpcMutation(owner.client, 'reports.save', { name: 'Channels', definition });
    expect(saved.status).toBe(200);
    expect(saved.body.result.data).toMatchObject({ name: 'Channels', definition, schedule: 'none', recipients: [], lastSentAt: null, createdBy: owner.credentials.username });
    const id = saved.body.result.data.id;

    expect((await trpcMutation(owner.client, 'reports.update', { id, name: 'Channel mix' })).body.result.data.name).toBe('Channel mix');
    const noRecipient = await trpcMutation(owner.client, 'reports.update', { id, schedule: 'weekly' });
    expect(noRecipient.status).toBe(400);
    expect(noRecipient.body.error.message).toBe('Add at least one recipient to schedule the report');
    const badEmail = await trpcMutation(owner.client, 'reports.update', { id, schedule: 'weekly', recipients: ['not-an-email'] });
    expect(badEmail.body.error.message).toBe('Enter valid e-mail addresses for the recipients');
    const tooMany = await trpcMutation(owner.client, 'reports.update', { id, schedule: 'weekly', recipients: Array.from({ length: 11 }, (_, i) => `r${i}@example.com`) });
    expect(tooMany.body.error.message).toBe('A report can be sent to at most 10 recipients');
    const scheduled = await trpcMutation(owner.client, 'reports.update', { id, schedule: 'weekly', recipients: ['Boss@Example.com'] });
    expect(scheduled.body.result.data).toMatchObject({ schedule: 'weekly', recipients: ['boss@example.com'] });
    const everyDay = await trpcMutation(owner.client, 'reports.update', { id, schedule: 'daily' });
    expect(everyDay.body.result.data).toMatchObject({ schedule: 'daily', recipients: ['boss@example.com'] });
    const unknown = await trpcMutation(owner.client, 'reports.update', { id, schedule: 'hourly' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('Schedule must be none, daily, weekly or monthly');
    await trpcMutation(owner.client, 'reports.update', { id, schedule: 'weekly' });
    expect((await trpcQuery(owner.client, 'reports.list')).body.result.data.map((r: { name: string }) => r.name)).toEqual(['Channel mix']);
    const emptyName = await trpcMutation(owner.client, 'reports.save', { name: '  ', definition });
    expect(emptyName.body.error.message).toBe('Report name is required');

    expect((await trpcQuery(other.client, 'reports.list')).body.result.data).toEqual([]);
    expect((await trpcQuery(other.client, 'reports.get', { id })).status).toBe(404);
    expect((await trpcMutation(other.client, 'reports.update', { id, name: 'Mine' })).status).toBe(404);
    expect((await trpcMutation(other.client, 'reports.remove', { id })).status).toBe(404);
    const theirExport = await other.client.get(`/api/reports/export.csv?reportId=${id}`);
    expect(theirExport.status).toBe(404);
    expect(theirExport.body).toEqual({ message: 'Report not found' });

    expect((await trpcMutation(owner.client, 'reports.remove', { id })).body.result.data).toEqual({ id });
    expect((await trpcQuery(owner.client, 'reports.list')).body.result.data).toEqual([]);
  });
});

describe('scheduled delivery', () => {
  it('occurrences: Monday / the 1st at 08:00 store time, DST included', () => {
    expect(zonedInstant('2026-06-01', 8, 'Europe/London').toISOString()).toBe('2026-06-01T07:00:00.000Z');
    expect(zonedInstant('2026-01-05', 8, 'America/New_York').toISOString()).toBe('2026-01-05T13:00:00.000Z');
    // Wednesday 10 June 2026, 12:00 UTC: the last Monday 08:00 London was 8 June.
    const wednesday = new Date('2026-06-10T12:00:00Z');
    expect(latestOccurrence('weekly', 'Europe/London', wednesday).toISOString()).toBe('2026-06-08T07:00:00.000Z');
    // Monday 8 June 06:30 UTC is 07:30 in London: still the week before.
    expect(latestOccurrence('weekly', 'Europe/London', new Date('2026-06-08T06:30:00Z')).toISOString()).toBe('2026-06-01T07:00:00.000Z');
    expect(latestOccurrence('monthly', 'Europe/London', wednesday).toISOString()).toBe('2026-06-01T07:00:00.000Z');
    // Daily: 08:00 store time today once it has passed, else yesterday's.
    expect(latestOccurrence('daily', 'Europe/London', wednesday).toISOString()).toBe('2026-06-10T07:00:00.000Z');
    expect(latestOccurrence('daily', 'Europe/London', new Date('2026-06-10T06:30:00Z')).toISOString()).toBe('2026-06-09T07:00:00.000Z');
    // 11:00 UTC is 07:00 in New York (EDT, UTC-4): today's 08:00 there (12:00 UTC) has not come yet.
    expect(latestOccurrence('daily', 'America/New_York', new Date('2026-06-10T11:00:00Z')).toISOString()).toBe('2026-06-09T12:00:00.000Z');
    // 23:30 UTC on 9 June is 09:30 on 10 June in Sydney (AEST, UTC+10): 10 June 08:00 there = 9 June 22:00 UTC.
    expect(latestOccurrence('daily', 'Australia/Sydney', new Date('2026-06-09T23:30:00Z')).toISOString()).toBe('2026-06-09T22:00:00.000Z');
    const daily = { schedule: 'daily' as const, recipients: ['a@example.com'], createdAt: new Date('2026-05-01T00:00:00Z') };
    expect(isDue({ ...daily, lastSentAt: new Date('2026-06-09T07:00:03Z') }, 'Europe/London', wednesday)).toBe(true); // yesterday's sent, today's owed
    expect(isDue({ ...daily, lastSentAt: new Date('2026-06-10T07:00:03Z') }, 'Europe/London', wednesday)).toBe(false);
    expect(latestOccurrence('monthly', 'Australia/Sydney', new Date('2026-06-01T00:00:00Z')).toISOString()).toBe('2026-05-31T22:00:00.000Z');
    const base = { schedule: 'weekly' as const, recipients: ['a@example.com'], createdAt: new Date('2026-05-01T00:00:00Z') };
    expect(isDue({ ...base, lastSentAt: null }, 'Europe/London', wednesday)).toBe(true);
    expect(isDue({ ...base, lastSentAt: new Date('2026-06-08T07:00:05Z') }, 'Europe/London', wednesday)).toBe(false);
    expect(isDue({ ...base, scheduledSince: new Date('2026-06-09T00:00:00Z') }, 'Europe/London', wednesday)).toBe(false);
    expect(isDue({ ...base, schedule: 'none' }, 'Europe/London', wednesday)).toBe(false);
  });

  it('through pg-boss: a due weekly report sends exactly one e-mail per recipient even when the job runs twice; a not-due one sends none', async () => {
    const owner = await signedInStoreOwner(testApp, 'sched');
    await seedFixture(owner.store);
    const definition = { metrics: ['netSales', 'orders'], dimension: 'channel', range: FIXED };
    const due = (await trpcMutation(owner.client, 'reports.save', { name: 'Weekly channels', definition, schedule: 'weekly', recipients: ['due@example.com'] })).body.result.data;
    const notDue = (await trpcMutation(owner.client, 'reports.save', { name: 'Already sent', definition, schedule: 'weekly', recipients: ['notdue@example.com'] })).body.result.data;
    // Scheduled two weeks ago, so the latest Monday 08:00 is owed; the other was delivered just now.
    const q = sqlRunner(testApp.orm.em.fork());
    await q.run(`update saved_reports set scheduled_since = now() - interval '14 days' where store_id = $1`, [owner.store.id]);
    await q.run(`update saved_reports set last_sent_at = now() where store_id = $1 and id = $2`, [owner.store.id, notDue.id]);

    const messages: string[] = [];
    const jobs = await startJobs({ databaseUrl: testApp.databaseUrl, orm: testApp.orm, baseUrl: 'https://app.example.com', schedule: false, logger: { info: (m) => messages.push(m), error: (_d, m) => messages.push(m) } });
    try {
      const ids = [await jobs.boss.send(REPORTS_DELIVER_QUEUE, {}), await jobs.boss.send(REPORTS_DELIVER_QUEUE, {})];
      const states = () => Promise.all(ids.map(async (id) => (await jobs.boss.findJobs(REPORTS_DELIVER_QUEUE, { id: id! }))[0]?.state));
      await expect.poll(states).toEqual(['completed', 'completed']);
    } finally {
      await jobs.stop();
    }

    const emails = await testApp.orm.em.fork().find(OutboundEmail, { template: 'scheduled_report', toAddress: { $in: ['due@example.com', 'notdue@example.com'] } });
    expect(emails.map((email) => email.toAddress)).toEqual(['due@example.com']);
    expect(emails[0]!.subject).toBe('Your weekly StorePulse report: Weekly channels (sched store)');
    expect(emails[0]!.textBody).toContain('Google Ads  ');
    expect(emails[0]!.textBody).toMatch(/Total\s+144\.00\s+3/);
    expect(emails[0]!.textBody).toContain(`https://app.example.com/reports?report=${due.id}`);
    const reports = (await trpcQuery(owner.client, 'reports.list')).body.result.data;
    expect(reports.find((r: { id: number }) => r.id === due.id).lastSentAt).not.toBeNull();
  });
});
