import { beforeAll, describe, expect, it } from 'vitest';
import { readRollups } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { grantTestPlan, signedInAdmin, signedInClient, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { STORE_HAS_DATA_MESSAGE } from '../../../shared/demo.ts';
import { formatRatio, NO_VALUE } from '../../../shared/metrics.ts';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { rebuildRollups } from '../commerce/rollups.ts';
import { blackFriday, demoAdMetricBatches, demoEmailMetrics, demoOrderBatches, demoPlan, type DemoOptions } from './generator.ts';

const testApp = useTestApp();
const STORE = { currency: 'GBP', timezone: 'Europe/London' };
const NOW = new Date('2026-03-18T15:20:00Z');

/** What a user would total up from a generated demo, without a database. */
function summarize(options: DemoOptions) {
  const plan = demoPlan(STORE, options);
  const totals = { orders: 0, refunds: 0, gross: 0, refunded: 0, guests: 0, adSpend: 0, adRows: 0, emailRows: 0 };
  const ordersByDay = new Map<string, number>();
  for (const batch of demoOrderBatches(plan)) {
    for (const order of batch.orders) {
      totals.orders += 1;
      totals.gross += order.grossMinor;
      if (!order.customer) totals.guests += 1;
      const day = dayInZone(order.placedAt, STORE.timezone);
      ordersByDay.set(day, (ordersByDay.get(day) ?? 0) + 1);
    }
    totals.refunds += batch.refunds.length;
    for (const refund of batch.refunds) totals.refunded += refund.amountMinor;
  }
  for (const rows of demoAdMetricBatches(plan)) {
    totals.adRows += rows.length;
    for (const row of rows) totals.adSpend += row.spendMinor;
  }
  totals.emailRows = demoEmailMetrics(plan).length;
  return { plan, totals, ordersByDay };
}

describe('the demo generator', () => {
  it('is deterministic: the same seed and "now" give the same data; another seed does not', () => {
    const first = summarize({ seed: 7, now: NOW, orders: 3_000 });
    const second = summarize({ seed: 7, now: NOW, orders: 3_000 });
    const other = summarize({ seed: 8, now: NOW, orders: 3_000 });
    expect(second.totals).toEqual(first.totals);
    expect(other.totals.gross).not.toBe(first.totals.gross);
    expect(first.totals.orders).toBeGreaterThan(2_900);
    expect(first.totals.orders).toBeLessThan(3_100);
  });

  it('looks like a real year: Black Friday is the top day, Sunday beats Saturday, nothing lies after "now"', () => {
    const { plan, ordersByDay } = summarize({ now: NOW });
    const [topDay] = [...ordersByDay.entries()].sort((a, b) => b[1] - a[1])[0]!;
    expect(topDay).toBe(blackFriday(2025)); // 2025-11-28
    expect(topDay).toBe('2025-11-28');
    const weekdayTotals = [0, 0, 0, 0, 0, 0, 0];
    for (const [day, count] of ordersByDay) if (day !== plan.today) weekdayTotals[new Date(`${day}T00:00:00Z`).getUTCDay()]! += count;
    expect(weekdayTotals[0]).toBeGreaterThan(weekdayTotals[6]! * 1.2); // Sunday peak vs Saturday dip
    expect([...ordersByDay.keys()].sort().at(-1)).toBe('2026-03-18'); // today so far has orders
    expect([...ordersByDay.keys()].sort()[0]).toBe(plan.firstOrderDay);
    expect(plan.firstOrderDay).toBe('2025-03-19'); // 12 months
    for (const batch of demoOrderBatches(plan)) {
      for (const order of batch.orders) expect(Date.parse(String(order.placedAt))).toBeLessThanOrEqual(NOW.getTime());
    }
  });

  it("follows the store's time zone and currency: days bucketed locally, a second currency beside the store's", () => {
    const store = { currency: 'USD', timezone: 'America/Los_Angeles' };
    const now = new Date('2026-03-18T06:30:00Z'); // 23:30 on the 17th in Los Angeles
    const plan = demoPlan(store, { now, orders: 2_000 });
    expect(plan.today).toBe('2026-03-17');
    const currencies = new Set<string>();
    const days = new Set<string>();
    for (const batch of demoOrderBatches(plan)) {
      for (const order of batch.orders) {
        currencies.add(order.currency);
        days.add(dayInZone(order.placedAt, store.timezone));
      }
    }
    expect([...currencies].sort()).toEqual(['EUR', 'USD']);
    expect([...days].sort().at(-1)).toBe('2026-03-17');
    expect([...days].sort()[0]! >= plan.firstOrderDay).toBe(true);
    expect(demoPlan({ currency: 'EUR', timezone: 'Europe/Berlin' }, { now }).foreignCurrency).toBe('GBP');
  });

  it('sizes the ad history separately from the orders (benchmarks: 50 campaigns x 24 months)', () => {
    const plan = demoPlan(STORE, { now: NOW, orders: 1_000, months: 1, campaignsPerPlatform: 50, adHistoryMonths: 24 });
    let rows = 0;
    for (const batch of demoAdMetricBatches(plan)) rows += batch.length;
    expect(plan.campaigns).toHaveLength(150);
    expect(plan.days).toHaveLength(731);
    expect(rows).toBe(150 * 731);
  });
});

describe('demo.load', () => {
  function load(client: ApiClient) {
    return client.post('/trpc/demo.load', {});
  }

  let owner: Awaited<ReturnType<typeof ownerWithStore>>;
  let loaded: { orders: number; refunds: number; products: number; adMetricRows: number; emailMetricRows: number; milliseconds: number };

  beforeAll(async () => {
    owner = await ownerWithStore(testApp.app, testApp.orm, 'Demo shop');
    const answer = await load(owner.client);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    loaded = answer.body.result.data;
  });

  it('loads a year of orders, refunds, 200 products, 3 ad platforms and Klaviyo into the active store', async () => {
    expect(loaded.orders).toBeGreaterThan(9_500);
    expect(loaded.orders).toBeLessThan(10_500);
    expect(loaded.refunds / loaded.orders).toBeGreaterThan(0.03);
    expect(loaded.refunds / loaded.orders).toBeLessThan(0.05);
    expect(loaded.products).toBe(200);
    expect(loaded.adMetricRows).toBeGreaterThan(365 * 24 - 24);
    expect(loaded.emailMetricRows).toBeGreaterThan(365 * 3);

    const status = (await owner.client.get('/trpc/commerce.dataStatus')).body.result.data;
    expect(status).toMatchObject({ storeId: owner.store.id, hasData: true, adPlatforms: ['bingads', 'googleads', 'metaads'], emailPlatforms: ['klaviyo'] });
    expect(status.orders).toBeGreaterThan(9_500);
    // Up to the current hour: today has orders and spend (just after midnight, yesterday is the last).
    expect(status.lastDay >= addDays(dayInZone(new Date(), 'Europe/London'), -1)).toBe(true);
  });

  it('stores what a user would check: refunds after their orders, new and returning customers, some products without cost, EUR orders, cancelled and test orders', async () => {
    const q = sqlRunner(testApp.orm.em.fork());
    const [facts] = await q.rows<Record<string, number>>(
      `select
         (select count(*)::int from refunds r join orders o on o.store_id = r.store_id and o.id = r.order_id
           where r.store_id = $1 and r.refunded_at <= o.placed_at) as refunds_not_after_order,
         (select count(*)::int from orders where store_id = $1 and status = 'partially_refunded') as partially_refunded,
         (select count(*)::int from orders where store_id = $1 and status = 'refunded') as refunded,
         (select sum(new_customer_orders)::int from daily_rollups where store_id = $1) as new_orders,
         (select sum(returning_customer_orders)::int from daily_rollups where store_id = $1) as returning_orders,
         (select count(*)::int from products where store_id = $1) as products,
         (select count(*)::int from products where store_id = $1 and unit_cost_minor is null) as products_without_cost,
         (select count(*)::int from products where store_id = $1 and (unit_cost_minor < price_minor * 0.25 or unit_cost_minor > price_minor * 0.6)) as costs_out_of_range,
         (select count(*)::int from orders where store_id = $1 and currency = 'EUR') as eur_orders,
         (select count(*)::int from orders where store_id = $1 and status = 'cancelled') as cancelled,
         (select count(*)::int from orders where store_id = $1 and is_test) as test_orders,
         (select count(distinct channel)::int from orders where store_id = $1) as channels`,
      [owner.store.id],
    );
    expect(facts).toMatchObject({ refunds_not_after_order: 0, products: 200, costs_out_of_range: 0 });
    expect(facts!.partially_refunded).toBeGreaterThan(0);
    expect(facts!.refunded).toBeGreaterThan(facts!.partially_refunded!);
    expect(facts!.returning_orders).toBeGreaterThan(facts!.new_orders! * 0.25);
    expect(facts!.new_orders).toBeGreaterThan(facts!.returning_orders!);
    expect(facts!.products_without_cost).toBeGreaterThan(0);
    expect(facts!.products_without_cost).toBeLessThan(10);
    expect(facts!.eur_orders).toBeGreaterThan(100);
    expect(facts!.cancelled).toBeGreaterThan(50);
    expect(facts!.test_orders).toBeGreaterThan(5);
    expect(facts!.channels).toBe(8); // 3 ad platforms, klaviyo, organic search and social, referral, direct
  });

  it('every KPI of the last 30 days has a value (no "—"), and ads report more conversions than they brought', async () => {
    const today = dayInZone(new Date(), 'Europe/London');
    const input = { from: addDays(today, -29), to: today, compare: 'previous_period' };
    const answer = await owner.client.get(`/trpc/commerce.kpis?input=${encodeURIComponent(JSON.stringify(input))}`);
    const { kpis } = answer.body.result.data;
    for (const [key, value] of Object.entries(kpis) as [string, { current: number | null; previous: number | null }][]) {
      expect(formatRatio(value.current), key).not.toBe(NO_VALUE);
      expect(formatRatio(value.previous), key).not.toBe(NO_VALUE);
    }
    expect(kpis.roas.current).toBeGreaterThan(2);
    expect(kpis.roas.current).toBeLessThan(8);
    expect(kpis.mer.current).toBeGreaterThan(kpis.roas.current * 0.5);
    const quarter = { from: addDays(today, -89), to: today, compare: 'none' };
    const { channels } = (await owner.client.get(`/trpc/commerce.kpis?input=${encodeURIComponent(JSON.stringify(quarter))}`)).body.result.data;
    for (const platform of ['googleads', 'metaads', 'bingads']) {
      const channel = channels.find((entry: { channel: string }) => entry.channel === platform);
      expect(channel.platformConversions, platform).toBeGreaterThan(channel.orders);
      expect(channel.platformRoas, platform).toBeGreaterThan(channel.roas);
    }
  });

  it('gives Google Ads per-product shopping rows of the last 90 days, every item id one of the store\'s products, costing less than the shopping campaigns', async () => {
    const q = sqlRunner(testApp.orm.em.fork());
    const [figures] = await q.rows<{ rows: number; unmatched: number; days: number; cost: number; shopping: number }>(
      `select count(*)::int as rows,
              count(*) filter (where not exists (select 1 from products p where p.store_id = m.store_id and lower(p.external_id) = lower(m.product_item_id)))::int as unmatched,
              count(distinct day)::int as days, sum(cost)::float8 as cost,
              (select sum(spend_minor)::float8 / 100 from ad_metrics_daily a
                where a.store_id = $1 and a.platform = 'googleads' and a.day >= min(m.day) and (a.campaign_name like 'Shopping%' or a.campaign_name like 'PMax%')) as shopping
         from product_ad_metrics_daily m where m.store_id = $1`,
      [owner.store.id],
    );
    expect(figures!.rows).toBeGreaterThan(1000);
    expect(figures!.unmatched).toBe(0);
    expect(figures!.days).toBe(90);
    expect(figures!.cost).toBeGreaterThan(0);
    expect(figures!.cost).toBeLessThanOrEqual(figures!.shopping * 1.01);
  });

  it('leaves new-customer flags and customer aggregates equal to a computation from scratch', async () => {
    const q = sqlRunner(testApp.orm.em.fork());
    const [wrong] = await q.rows<{ flags: number; aggregates: number; customers: number }>(
      `with ranked as (
         select o.id, o.is_new_customer,
                (o.status <> 'cancelled' and not o.is_test)
                and (o.customer_id is null
                     or row_number() over (partition by o.customer_id order by (o.status <> 'cancelled' and not o.is_test) desc, o.placed_at, o.id) = 1) as expected
           from orders o where o.store_id = $1
       ),
       totals as (
         select o.customer_id, min(o.placed_at) as first_order_at, count(*)::int as orders_count,
                sum(case when o.currency = 'GBP' then o.net_sales_minor else 0 end) as gbp_spent, bool_and(o.currency = 'GBP') as all_gbp
           from orders o where o.store_id = $1 and o.customer_id is not null and o.status <> 'cancelled' and not o.is_test
          group by o.customer_id
       )
       select (select count(*)::int from ranked where is_new_customer <> expected) as flags,
              (select count(*)::int from customers c left join totals t on t.customer_id = c.id
                where c.store_id = $1
                  and (c.first_order_at is distinct from t.first_order_at or c.orders_count <> coalesce(t.orders_count, 0)
                       or (coalesce(t.all_gbp, true) and c.total_spent_minor <> coalesce(t.gbp_spent, 0)))) as aggregates,
              (select count(*)::int from customers where store_id = $1) as customers`,
      [owner.store.id],
    );
    expect(wrong).toMatchObject({ flags: 0, aggregates: 0 });
    expect(wrong!.customers).toBeGreaterThan(5_000);
  });

  it('leaves rollups equal to a rebuild from the raw rows', async () => {
    const em = testApp.orm.em.fork();
    const incremental = await readRollups(em, owner.store.id);
    await rebuildRollups(em, owner.store.id);
    expect(await readRollups(em, owner.store.id)).toEqual(incremental);
  });

  it('scores the demo customers at once: the customers have loyalty rows and the store its model (the loyalty screen needs no wait for the job)', async () => {
    const [scored] = await sqlRunner(testApp.orm.em.fork()).rows<{ customers: number; scored: number; models: number }>(
      `select (select count(*)::int from customers where store_id = $1) as customers,
              (select count(*)::int from customer_loyalty where store_id = $1) as scored,
              (select count(*)::int from loyalty_models where store_id = $1) as models`,
      [owner.store.id],
    );
    expect(scored!.scored).toBeGreaterThan(scored!.customers * 0.9);
    expect(scored!.models).toBe(1);
  });

  it('refuses a store that already has orders', async () => {
    const again = await load(owner.client);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(STORE_HAS_DATA_MESSAGE);
  });

  it('refuses guests: an admin viewing the owner, and a view-only member of the store', async () => {
    const other = await ownerWithStore(testApp.app, testApp.orm, 'Empty shop');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: other.user.id })).status).toBe(200);
    const asGuest = await load(admin.client);
    expect(asGuest.status).toBe(403);
    expect(asGuest.body.error.message).toBe('Guest mode is read-only');

    const member = await newGuestOf(testApp.app, testApp.orm, other, other.store.id);
    const asMember = await load(member.client);
    expect(asMember.status).toBe(403);
    expect(asMember.body.error.message).toBe('You have view-only access to this store');

    const status = (await other.client.get('/trpc/commerce.dataStatus')).body.result.data;
    expect(status).toMatchObject({ hasData: false, orders: 0 });
  });

  it('needs a signed-in subscriber with a store', async () => {
    const storeless = await signedInClient(testApp.app, 'demonostore');
    await grantTestPlan(testApp.orm, storeless.credentials.username, 'business');
    const answer = await load(storeless.client);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe('No active store selected');
  });
});
