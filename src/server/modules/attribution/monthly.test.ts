import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, setFxRates, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { ATTRIBUTION_MODELS } from '../../../shared/attribution.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { attributionReport, modelsSideBySide, monthSplit, setAttributionWindow } from './attribution.service.ts';
import { runAttribution } from './credits.ts';

// The monthly credit sums (attribution_monthly, kept by triggers on attribution_daily) and the
// report read from them: whole months from the sums, edge days from the days, every figure the same
// as from the days alone. Real orders in GBP, EUR and USD over August to October 2026 (rates that
// change every day), refunds in a later month than their order, and fractional credits.

const database = useTestDatabase();
let store: { id: number; currency: string };
const sql = () => sqlRunner(database.orm.em.fork());

/** attribution_daily summed per month, and attribution_monthly, as text in key order. */
async function monthsTwoWays(storeId: number) {
  const columns = `window_days, model, to_char(month, 'YYYY-MM-DD') as month, channel, campaign, currency, orders::text, revenue_minor::text, own_source_orders::text, own_source_revenue_minor::text`;
  const fromDays = await sql().rows<Record<string, unknown>>(
    `select ${columns} from (select window_days, model, date_trunc('month', day)::date as month, channel, campaign, currency, sum(orders) as orders, sum(revenue_minor) as revenue_minor,
            sum(own_source_orders) as own_source_orders, sum(own_source_revenue_minor) as own_source_revenue_minor
       from attribution_daily where store_id = $1 group by 1, 2, 3, 4, 5, 6) x order by 1, 2, 3, 4, 5, 6`,
    [storeId],
  );
  const kept = await sql().rows<Record<string, unknown>>(`select ${columns} from attribution_monthly where store_id = $1 order by 1, 2, 3, 4, 5, 6`, [storeId]);
  return { fromDays, kept };
}

beforeAll(async () => {
  store = await createCommerceStore(database.orm);
  await trackingSettingsOf(database.orm.em.fork(), store.id);
  await runAttribution(database.orm.em.fork(), store.id); // the store's state: nothing to credit yet
  // Rates (units per EUR) that differ from day to day, so a foreign amount converted at the wrong day's rate shows.
  const rates = [];
  for (let day = '2026-07-01', index = 0; day <= '2026-11-30'; day = addDays(day, 1), index += 1) {
    rates.push({ day, currency: 'GBP', rate: 0.8 + (index % 7) * 0.013 }, { day, currency: 'USD', rate: 1.1 + (index % 5) * 0.021 });
  }
  await setFxRates(database.orm.em.fork(), rates);
  const sources = ['/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome', '/?utm_source=facebook&utm_medium=paid&utm_campaign=autumn', '/?gclid=G&utm_campaign=brand', '/'];
  const orders = [];
  for (let day = '2026-08-01', index = 0; day <= '2026-10-31'; day = addDays(day, 2), index += 1) {
    orders.push(testOrder({
      externalId: `M-${index}`, placedAt: new Date(`${day}T${10 + (index % 8)}:00:00Z`), grossMinor: 1_001 + index * 37,
      currency: index % 5 === 1 ? 'EUR' : index % 7 === 2 ? 'USD' : 'GBP', landingSite: sources[index % sources.length],
    }));
  }
  await ingestOrders(database.orm.em.fork(), store.id, orders);
  expect((await runAttribution(database.orm.em.fork(), store.id)).credited).toBe(orders.length);
  // Refunds a few weeks later (some in the next month), of orders in every currency.
  await ingestRefunds(database.orm.em.fork(), store, orders.filter((_, index) => index % 4 === 0).map((order, index) => ({
    platform: 'shopify', externalId: `MR-${index}`, orderExternalId: order.externalId, refundedAt: new Date(new Date(order.placedAt).getTime() + 17 * 86_400_000), amountMinor: 300 + index, currency: order.currency,
  })));
  expect((await runAttribution(database.orm.em.fork(), store.id)).credited).toBeGreaterThan(0);
  // Fractional credits (a third of an order) on days of each edge.
  await sql().run(
    `insert into attribution_daily (store_id, window_days, model, day, channel, campaign, currency, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
     values ($1, 30, 'linear', '2026-08-31', 'metaads', 'autumn', 'EUR', 0.333333, 3333, 0, 0), ($1, 30, 'linear', '2026-09-01', 'metaads', 'autumn', 'EUR', 0.333333, 3334, 0, 0),
            ($1, 30, 'linear', '2026-09-30', 'googleads', 'brand', 'GBP', 0.333334, 3335, 0, 0), ($1, 30, 'linear', '2026-10-01', 'googleads', 'brand', 'GBP', 0.333333, 3336, 0, 0)`,
    [store.id],
  );
});

describe('attribution_monthly', () => {
  it('splits a range into whole months and edge days', () => {
    expect(monthSplit({ from: '2026-08-15', to: '2026-10-20' })).toEqual({
      months: { from: '2026-09-01', toExclusive: '2026-10-01' }, edges: [{ from: '2026-08-15', to: '2026-08-31' }, { from: '2026-10-01', to: '2026-10-20' }],
    });
    expect(monthSplit({ from: '2026-09-01', to: '2026-10-31' })).toEqual({ months: { from: '2026-09-01', toExclusive: '2026-11-01' }, edges: [] });
    expect(monthSplit({ from: '2026-01-31', to: '2026-02-28' })).toEqual({ months: { from: '2026-02-01', toExclusive: '2026-03-01' }, edges: [{ from: '2026-01-31', to: '2026-01-31' }] });
    expect(monthSplit({ from: '2026-09-03', to: '2026-09-29' })).toEqual({ months: null, edges: [{ from: '2026-09-03', to: '2026-09-29' }] });
    expect(monthSplit({ from: '2025-12-02', to: '2026-12-01' })).toEqual({
      months: { from: '2026-01-01', toExclusive: '2026-12-01' }, edges: [{ from: '2025-12-02', to: '2025-12-31' }, { from: '2026-12-01', to: '2026-12-01' }],
    });
  });

  it('equals the days summed per month after inserts, updates (refunds) and deletes (a window replaced)', async () => {
    let both = await monthsTwoWays(store.id);
    expect(both.kept.length).toBeGreaterThan(30);
    expect(both.kept).toEqual(both.fromDays);
    // Updates: another order on the day, source and currency of M-0 (its credit rows are added to),
    // and rows changed by hand.
    await ingestOrders(database.orm.em.fork(), store.id, [testOrder({ externalId: 'M-again', placedAt: new Date('2026-08-01T15:00:00Z'), grossMinor: 777, landingSite: '/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome' })]);
    expect((await runAttribution(database.orm.em.fork(), store.id)).credited).toBe(1);
    await sql().run(`update attribution_daily set revenue_minor = revenue_minor + 5, orders = orders + 0.25 where store_id = $1 and day between '2026-09-10' and '2026-10-03'`, [store.id]);
    both = await monthsTwoWays(store.id);
    expect(both.kept).toEqual(both.fromDays);
    // The orders credited again for a new window: its rows inserted beside, the old window's deleted.
    await setAttributionWindow(database.orm.em.fork(), store.id, 7, { runNow: true });
    both = await monthsTwoWays(store.id);
    expect(both.kept.map((row) => row.window_days)).not.toContain(30);
    expect(both.kept.length).toBeGreaterThan(30);
    expect(both.kept).toEqual(both.fromDays);
    await setAttributionWindow(database.orm.em.fork(), store.id, 30, { runNow: true });
    await sql().run(
      `insert into attribution_daily (store_id, window_days, model, day, channel, campaign, currency, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
       values ($1, 30, 'linear', '2026-08-31', 'metaads', 'autumn', 'EUR', 0.333333, 3333, 0, 0), ($1, 30, 'linear', '2026-09-01', 'metaads', 'autumn', 'EUR', 0.333333, 3334, 0, 0),
              ($1, 30, 'linear', '2026-09-30', 'googleads', 'brand', 'GBP', 0.333334, 3335, 0, 0), ($1, 30, 'linear', '2026-10-01', 'googleads', 'brand', 'GBP', 0.333333, 3336, 0, 0)`,
      [store.id],
    );
    both = await monthsTwoWays(store.id);
    expect(both.kept).toEqual(both.fromDays);
  });

  it('gives the same report, models side by side and GET /api/attribution figures as the days alone, for whole and partial months', async () => {
    const em = () => database.orm.em.fork();
    const ranges = [
      ['2026-08-15', '2026-10-20'], ['2026-09-01', '2026-09-30'], ['2026-08-01', '2026-10-31'], ['2026-09-03', '2026-09-17'],
      ['2026-08-31', '2026-10-01'], ['2026-07-20', '2026-11-10'], ['2026-09-01', '2026-10-05'],
    ];
    let monthsRead = 0;
    for (const [from, to] of ranges) {
      if (monthSplit({ from: from!, to: to! }).months) monthsRead += 1;
      for (const model of ATTRIBUTION_MODELS) {
        const input = { from: from!, to: to!, model, compare: 'previous_period' as const };
        const fromMonths = await attributionReport(em(), store, input);
        expect(fromMonths.fromRollups).toBe(true);
        expect(fromMonths, `${model} ${from}..${to}`).toEqual(await attributionReport(em(), store, input, { months: false }));
        expect(await attributionReport(em(), store, input, { campaigns: false })).toEqual(await attributionReport(em(), store, input, { campaigns: false, months: false }));
      }
      expect(await modelsSideBySide(em(), store, { from: from!, to: to! })).toEqual(await modelsSideBySide(em(), store, { from: from!, to: to! }, { months: false }));
    }
    expect(monthsRead).toBeGreaterThan(3);
    // Not vacuous: refunds, foreign currencies and fractional credits are in the figures compared.
    const whole = await attributionReport(em(), store, { from: '2026-08-01', to: '2026-10-31', model: 'linear' });
    expect(whole.current.total.orders % 1).not.toBe(0);
    const [mix] = await sql().rows<{ currencies: string; negative: string }>(
      `select count(distinct currency)::text as currencies, count(*) filter (where revenue_minor < 0)::text as negative from attribution_daily where store_id = $1 and window_days = 30`,
      [store.id],
    );
    expect(Number(mix!.currencies)).toBe(3);
    expect(Number(mix!.negative)).toBeGreaterThan(0);
  });
});
