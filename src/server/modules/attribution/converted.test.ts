import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, setFxRates, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { ATTRIBUTION_MODELS } from '../../../shared/attribution.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { ingestAdMetrics, ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { attributionReport, modelsSideBySide } from './attribution.service.ts';
import { ATTRIBUTION_JOB } from './attribution-jobs.ts';
import { runAttribution } from './credits.ts';

// The other-currency credits of whole months, converted at each day's rate and stored
// (attribution_converted_monthly), and the monthly spend: the report read from them gives the same
// figures as the per-day read (`months: false`), also after what must make a stored month stale:
// a new credit in a past month, a past exchange rate changed (also one that a later month's days
// without a rate take), a spend correction, a change of the store's currency.

const database = useTestDatabase();
let store: { id: number; currency: string };
const em = () => database.orm.em.fork();
const sql = () => sqlRunner(em());
const RANGES = [['2026-08-15', '2026-10-20'], ['2026-08-01', '2026-10-31'], ['2026-08-31', '2026-10-01'], ['2026-09-01', '2026-09-30']] as const;
const sources = ['/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome', '/?utm_source=facebook&utm_medium=paid&utm_campaign=autumn', '/?gclid=G&utm_campaign=brand', '/'];

/** Every model's report (with the previous period, with and without campaigns) and models side by side, from the stored months and from the days: equal. Returns the linear report of the first range. */
async function expectSameAsDays() {
  for (const [from, to] of RANGES) {
    for (const model of ATTRIBUTION_MODELS) {
      const input = { from, to, model, compare: 'previous_period' as const };
      expect(await attributionReport(em(), store, input), `${model} ${from}..${to}`).toEqual(await attributionReport(em(), store, input, { months: false }));
      expect(await attributionReport(em(), store, input, { campaigns: false })).toEqual(await attributionReport(em(), store, input, { campaigns: false, months: false }));
    }
    expect(await modelsSideBySide(em(), store, { from, to })).toEqual(await modelsSideBySide(em(), store, { from, to }, { months: false }));
  }
  return attributionReport(em(), store, { from: RANGES[0][0], to: RANGES[0][1], model: 'linear' });
}

/** The stored converted months of the store and whether each is valid for its currency now. */
async function convertedMonths() {
  return sql().rows<{ month: string; valid: boolean; rows: number }>(
    `select to_char(m.month, 'YYYY-MM-DD') as month, coalesce(m.converted_version = m.version and m.currency = s.currency, false) as valid,
            (select count(*)::int from attribution_converted_monthly c where c.store_id = m.store_id and c.window_days = m.window_days and c.month = m.month) as rows
       from attribution_converted_months m join stores s on s.id = m.store_id where m.store_id = $1 and m.window_days = 30 order by m.month`,
    [store.id],
  );
}

beforeAll(async () => {
  store = await createCommerceStore(database.orm);
  await trackingSettingsOf(em(), store.id);
  await runAttribution(em(), store.id);
  // A rate every day (different from day to day) except 2026-09-01 to -03: those take 08-31's.
  const rates = [];
  for (let day = '2026-06-01', index = 0; day <= '2026-12-31'; day = addDays(day, 1), index += 1) {
    if (day >= '2026-09-01' && day <= '2026-09-03') continue;
    rates.push({ day, currency: 'GBP', rate: 0.8 + (index % 7) * 0.013 }, { day, currency: 'USD', rate: 1.1 + (index % 5) * 0.021 });
  }
  await setFxRates(em(), rates);
  await sql().run(`delete from fx_rates where day between '2026-09-01' and '2026-09-03'`); // the synthetic seed's
  const orders = [];
  for (let day = '2026-07-01', index = 0; day <= '2026-10-31'; day = addDays(day, 1), index += 1) {
    orders.push(testOrder({
      externalId: `C-${index}`, placedAt: new Date(`${day}T${String(9 + (index % 9)).padStart(2, '0')}:00:00Z`), grossMinor: 1_003 + index * 41,
      currency: index % 3 === 1 ? 'EUR' : index % 7 === 2 ? 'USD' : 'GBP', landingSite: sources[index % sources.length],
    }));
  }
  await ingestOrders(em(), store.id, orders);
  await ingestRefunds(em(), store, orders.filter((_, index) => index % 5 === 0).map((order, index) => ({
    platform: 'shopify', externalId: `CR-${index}`, orderExternalId: order.externalId, refundedAt: new Date(new Date(order.placedAt).getTime() + 19 * 86_400_000), amountMinor: 250 + index, currency: order.currency,
  })));
  await runAttribution(em(), store.id);
  const spend = [];
  for (let day = '2026-06-01'; day <= '2026-10-31'; day = addDays(day, 1)) {
    spend.push({ platform: 'metaads', accountId: 'A1', campaignId: 'c-autumn', campaignName: 'autumn', day, currency: 'GBP', spendMinor: 1_500 + Number(day.slice(8)) * 3 });
    spend.push({ platform: 'googleads', accountId: 'G1', campaignId: 'c-brand', campaignName: 'brand', day, currency: 'USD', spendMinor: 900 + Number(day.slice(8)) });
  }
  await ingestAdMetrics(em(), store, spend);
});

describe('converted other-currency credits per month', () => {
  it('gives the per-day figures for whole and partial months, refunds and other currencies, and stores the months it converted', async () => {
    const report = await expectSameAsDays();
    expect(report.fromRollups).toBe(true);
    const months = await convertedMonths();
    expect(months.map((month) => month.month)).toEqual(expect.arrayContaining(['2026-09-01', '2026-10-01']));
    expect(months.filter((month) => month.month === '2026-09-01' || month.month === '2026-10-01').every((month) => month.valid)).toBe(true);
    expect(months.find((month) => month.month === '2026-09-01')!.rows).toBeGreaterThan(0);
    // Not vacuous: refunds and two other currencies in September's credits.
    const [mix] = await sql().rows<{ currencies: number; negative: number }>(
      `select count(distinct currency)::int as currencies, count(*) filter (where revenue_minor < 0)::int as negative
         from attribution_daily where store_id = $1 and window_days = 30 and day between '2026-09-01' and '2026-09-30' and currency <> 'GBP'`,
      [store.id],
    );
    expect(mix).toEqual({ currencies: 2, negative: expect.any(Number) });
    expect(mix!.negative).toBeGreaterThan(0);
  });

  it('converts a month again after a new credit in it (a refund of a foreign order)', async () => {
    const before = await expectSameAsDays();
    await ingestRefunds(em(), store, [{ platform: 'shopify', externalId: 'CR-late', orderExternalId: 'C-64', refundedAt: new Date('2026-09-15T12:00:00Z'), amountMinor: 2_000, currency: 'EUR' }]);
    await runAttribution(em(), store.id);
    const after = await expectSameAsDays();
    expect(after.current.total.revenueMinor).toBeLessThan(before.current.total.revenueMinor);
  });

  it('converts the months again after a past exchange rate changed, also a later month whose first days take it', async () => {
    const before = await expectSameAsDays();
    // The same rates loaded again (a source reloading its last days) leave the months valid.
    const [same] = await sql().rows<{ rate: number }>(`select rate::float8 as rate from fx_rates where day = '2026-09-18' and currency = 'GBP'`);
    await setFxRates(em(), [{ day: '2026-09-18', currency: 'GBP', rate: same!.rate }]);
    expect((await convertedMonths()).filter((month) => month.month === '2026-09-01' || month.month === '2026-10-01').map((month) => month.valid)).toEqual([true, true]);
    await setFxRates(em(), ['2026-09-17', '2026-09-18', '2026-09-19'].map((day) => ({ day, currency: 'GBP', rate: 0.4 })));
    const after = await expectSameAsDays();
    expect(after.current.total.revenueMinor).toBeLessThan(before.current.total.revenueMinor);
    // 09-01 to 09-03 have no rate: they take 08-31's, so September is stale when 08-31's changes.
    const september = () => attributionReport(em(), store, { from: '2026-09-01', to: '2026-09-30', model: 'first_click' });
    const old = await september();
    await setFxRates(em(), [{ day: '2026-08-31', currency: 'GBP', rate: 2.5 }]);
    expect((await september()).current.total.revenueMinor).toBeGreaterThan(old.current.total.revenueMinor);
    await expectSameAsDays();
  });

  it('reads past spend corrections, in the store\'s currency and another', async () => {
    const before = await expectSameAsDays();
    await ingestAdMetrics(em(), store, [{ platform: 'metaads', accountId: 'A1', campaignId: 'c-autumn', campaignName: 'autumn', day: '2026-09-10', currency: 'GBP', spendMinor: 990_000 }]);
    await ingestAdMetrics(em(), store, [{ platform: 'googleads', accountId: 'G1', campaignId: 'c-brand', campaignName: 'brand', day: '2026-09-11', currency: 'USD', spendMinor: 55_000 }]);
    const after = await expectSameAsDays();
    expect(after.current.total.spendMinor).toBeGreaterThan(before.current.total.spendMinor);
    // The monthly spend is the sum of its days.
    const columns = `platform, account_id, campaign_id, currency, to_char(month, 'YYYY-MM') as month, campaign_name, spend_minor::text, conversions, conversion_value_minor::text`;
    const fromDays = await sql().rows(
      `select ${columns} from (select platform, account_id, campaign_id, currency, date_trunc('month', day) as month, max(campaign_name) as campaign_name, sum(spend_minor) as spend_minor,
              sum(conversions) as conversions, sum(conversion_value_minor) as conversion_value_minor from ad_metrics_daily where store_id = $1 group by 1, 2, 3, 4, 5) x order by 1, 2, 3, 4, 5`,
      [store.id],
    );
    expect(fromDays.length).toBeGreaterThan(8);
    expect(await sql().rows(`select ${columns} from ad_metrics_monthly where store_id = $1 order by 1, 2, 3, 4, 5`, [store.id])).toEqual(fromDays);
  });

  it('converts into the new currency after the store changed its currency', async () => {
    const before = await expectSameAsDays();
    await sql().run(`update stores set currency = 'EUR' where id = $1`, [store.id]);
    store = { ...store, currency: 'EUR' };
    const after = await expectSameAsDays();
    expect(after.currency).toBe('EUR');
    expect(after.current.total.revenueMinor).not.toBe(before.current.total.revenueMinor);
    expect((await convertedMonths()).filter((month) => month.month === '2026-09-01' || month.month === '2026-10-01').every((month) => month.valid)).toBe(true);
  });

  it('has the attribution job convert the closed months that are not valid any more, not the current month', async () => {
    await setFxRates(em(), [{ day: '2026-08-20', currency: 'GBP', rate: 0.55 }, { day: '2026-10-08', currency: 'USD', rate: 1.9 }]);
    // A credit in another currency today: the current month is not valid either, and stays to the report.
    await sql().run(
      `insert into attribution_daily (store_id, window_days, model, day, channel, campaign, currency, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
       values ($1, 30, 'linear', current_date, 'metaads', 'autumn', 'USD', 1, 4321, 0, 0)`,
      [store.id],
    );
    const current = (await sql().rows<{ month: string }>(`select to_char(date_trunc('month', current_date), 'YYYY-MM-DD') as month`))[0]!.month;
    const stale = (await convertedMonths()).filter((month) => ['2026-09-01', '2026-10-01', current].includes(month.month));
    expect(stale.map((month) => month.valid)).toEqual([false, false, false]);
    const logged: string[] = [];
    await ATTRIBUTION_JOB.handle({ em: em(), baseUrl: 'http://localhost', log: (message) => logged.push(message) }, { storeId: store.id });
    expect(logged).toEqual([]);
    const months = await convertedMonths();
    expect(months.filter((month) => month.month >= '2026-08-01' && month.month <= '2026-10-01').map((month) => [month.month, month.valid]))
      .toEqual([['2026-08-01', true], ['2026-09-01', true], ['2026-10-01', true]]);
    expect(months.filter((month) => month.month < current).every((month) => month.valid)).toBe(true);
    expect(months.find((month) => month.month === current)!.valid).toBe(false);
    await expectSameAsDays();
  });
});
