import { beforeAll, describe, expect, it } from 'vitest';
import { ownerWithStore } from '../../../../test/guests.ts';
import { useTestApp } from '../../../../test/harness.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { loadDemoData } from './demo.service.ts';

// The demo store's journeys (journeys.ts): visits and purchases through the collector's validation and
// writer, sessions and touchpoints by the sessions job, on real PostgreSQL.

const testApp = useTestApp();
const NOW = new Date('2026-11-20T15:20:00Z');
const OPTIONS = { seed: 17, now: NOW, orders: 2_000, months: 3 };

async function storeRow(id: number) {
  const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ id: number; currency: string; timezone: string }>(`select id, currency, timezone from stores where id = $1`, [id]);
  return row!;
}

/** What a user can count of a store's journeys. */
async function journeyCounts(storeId: number) {
  const q = sqlRunner(testApp.orm.em.fork());
  const [counts] = await q.rows(
    `select (select count(*)::int from tracking_events where store_id = $1) as events,
            (select count(*)::int from tracking_purchases where store_id = $1) as purchases,
            (select count(*)::int from tracking_sessions where store_id = $1) as sessions,
            (select count(*)::int from tracking_touchpoints where store_id = $1) as touchpoints,
            (select count(distinct visitor_key)::int from tracking_sessions where store_id = $1) as visitors,
            (select coalesce(sum(value_minor), 0)::text from tracking_purchases where store_id = $1) as value`,
    [storeId],
  );
  const channels = await q.rows<{ channel: string; n: number }>(`select channel, count(*)::int as n from tracking_touchpoints where store_id = $1 group by channel order by channel`, [storeId]);
  return { ...counts, channels };
}

describe('the demo store has journeys', () => {
  let first: { id: number; journeys: Awaited<ReturnType<typeof loadDemoData>>['journeys'] };
  let second: { id: number; journeys: Awaited<ReturnType<typeof loadDemoData>>['journeys'] };

  beforeAll(async () => {
    const a = await ownerWithStore(testApp.app, testApp.orm, 'Journeys A');
    const b = await ownerWithStore(testApp.app, testApp.orm, 'Journeys B');
    const loadedA = await loadDemoData(testApp.orm.em.fork(), await storeRow(a.store.id), OPTIONS);
    const loadedB = await loadDemoData(testApp.orm.em.fork(), await storeRow(b.store.id), OPTIONS);
    first = { id: a.store.id, journeys: loadedA.journeys };
    second = { id: b.store.id, journeys: loadedB.journeys };
  });

  it('matches at least 98 % of orders to their visits; phone orders have none; nothing is counted twice', async () => {
    const j = first.journeys;
    expect(j.orders).toBeGreaterThan(1_900);
    expect(j.ordersMatched / j.orders).toBeGreaterThanOrEqual(0.98);
    expect(j.ordersWithPurchase).toBe(j.orders - j.phoneOrders);
    expect(j.ordersMatched).toBe(j.ordersWithPurchase);
    expect(j.phoneOrders).toBeGreaterThan(0);
    expect(j.duplicatePurchasesSent).toBeGreaterThan(0);
    expect(j.doubleCounted).toBe(0);
    expect(j.eventsDropped).toBe(0);
    const q = sqlRunner(testApp.orm.em.fork());
    // Sessions and touchpoints exist for every order with a purchase: a touchpoint of its visitor at or before it.
    const [without] = await q.rows<{ n: number }>(
      `select count(*)::int as n from tracking_purchases p
        where p.store_id = $1 and not exists (select 1 from tracking_sessions s where s.store_id = p.store_id and s.visitor_key = p.anonymous_id and s.started_at <= p.occurred_at and s.last_event_at >= p.occurred_at)`,
      [first.id],
    );
    expect(without!.n).toBe(0);
  });

  it('has visitors who never buy, several times more visitors than buyers, and mixed channels', async () => {
    const q = sqlRunner(testApp.orm.em.fork());
    const [visitors] = await q.rows<{ visitors: number; buyers: number }>(
      `select count(distinct visitor_key)::int as visitors,
              count(distinct visitor_key) filter (where exists (select 1 from tracking_purchases p where p.store_id = s.store_id and p.anonymous_id = s.visitor_key))::int as buyers
         from tracking_sessions s where s.store_id = $1`,
      [first.id],
    );
    expect(visitors!.buyers).toBeGreaterThan(1_000);
    expect(visitors!.visitors).toBeGreaterThan(visitors!.buyers * 2);
    const buyerSessions = await q.rows<{ visitor_key: string; n: number }>(
      `select visitor_key, count(*)::int as n from tracking_sessions s where store_id = $1 and exists (select 1 from tracking_purchases p where p.store_id = s.store_id and p.anonymous_id = s.visitor_key) group by visitor_key`,
      [first.id],
    );
    const perBuyer = buyerSessions.reduce((sum, row) => sum + row.n, 0) / buyerSessions.length;
    expect(perBuyer).toBeGreaterThan(1.5); // several visits per buyer
    const channels = new Map((await journeyCounts(first.id)).channels.map((row) => [row.channel, row.n]));
    for (const channel of ['googleads', 'metaads', 'bingads', 'tiktokads', 'klaviyo', 'mailchimp', 'organic_search', 'organic_social', 'direct']) {
      expect(channels.get(channel) ?? 0, channel).toBeGreaterThan(10);
    }
    // A click id reaches its touchpoint.
    const [clicks] = await q.rows<{ n: number }>(`select count(distinct click_id_kind)::int as n from tracking_touchpoints where store_id = $1 and click_id is not null`, [first.id]);
    expect(clicks!.n).toBe(4); // gclid, fbclid, msclkid, ttclid
  });

  it("every purchase carries its order's total and currency, at the order's time", async () => {
    const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ joined: number; wrong: number }>(
      `select count(*)::int as joined,
              count(*) filter (where p.value_minor <> o.gross_minor - o.discounts_minor + o.shipping_minor + o.taxes_minor or p.currency <> o.currency or p.occurred_at <> o.placed_at)::int as wrong
         from tracking_purchases p join orders o on o.store_id = p.store_id and o.external_id = p.order_id
        where p.store_id = $1`,
      [first.id],
    );
    expect(row!.joined).toBe(first.journeys.ordersWithPurchase);
    expect(row!.wrong).toBe(0);
  });

  it('has no touchpoint after its order, nor before the demo range', async () => {
    const q = sqlRunner(testApp.orm.em.fork());
    // The order's own session holds the purchase: no touchpoint starts at a purchase, and none of a buyer lies after their last order.
    const [after] = await q.rows<{ n: number }>(
      `select count(*)::int as n from tracking_touchpoints t
         join (select anonymous_id, max(occurred_at) as last_order from tracking_purchases where store_id = $1 group by anonymous_id) p on p.anonymous_id = t.visitor_key
        where t.store_id = $1 and t.occurred_at >= p.last_order`,
      [first.id],
    );
    expect(after!.n).toBe(0);
    const [range] = await q.rows<{ first_touch: Date; first_order: Date; last_event: Date }>(
      `select (select min(occurred_at) from tracking_touchpoints where store_id = $1) as first_touch,
              (select (select min(placed_day) from orders where store_id = $1)::timestamp at time zone s.timezone from stores s where s.id = $1) as first_order,
              (select max(occurred_at) from tracking_events where store_id = $1) as last_event`,
      [first.id],
    );
    // Earlier visits start within the range; an order placed just after midnight has its landing visit up to 25 minutes before.
    expect(new Date(range!.first_touch).getTime()).toBeGreaterThanOrEqual(new Date(range!.first_order).getTime() - 25 * 60_000);
    expect(new Date(range!.last_event).getTime()).toBeLessThanOrEqual(NOW.getTime());
  });

  it('is deterministic: two demos of the same seed give identical journeys', async () => {
    expect(second.journeys).toEqual(first.journeys);
    expect(await journeyCounts(second.id)).toEqual(await journeyCounts(first.id));
  });
});
