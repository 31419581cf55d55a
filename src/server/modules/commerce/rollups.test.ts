import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { createCommerceStore, readRollups, setFxRates, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { runAdminCommand } from '../../../scripts/admin-commands.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { seededRandom } from '../../random.ts';
import {
  bulkLoad,
  hashEmail,
  INGEST_BATCH_SIZE,
  ingestAdMetrics,
  ingestEmailMetrics,
  ingestOrders,
  ingestRefunds,
  upsertProducts,
  type IngestAdMetric,
  type IngestOrder,
  type IngestRefund,
} from './ingest.ts';
import { sqlRunner } from './raw-sql.ts';
import { formatMillionths, parseMillionths, plannerStoreRows, rebuildRollups } from './rollups.ts';

const database = useTestDatabase();

/** A small deterministic PRNG (mulberry32), so the messy sequence is the same on every run. */
function random(seed: number) {
  const next = seededRandom(seed);
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
    shuffle: <T>(items: T[]): T[] => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i -= 1) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
  };
}

/** Incremental rollups, then a rebuild from raw rows: every column of every row must be equal. */
async function expectIncrementalEqualsRebuild(em: EntityManager, storeId: number) {
  const incremental = await readRollups(em, storeId);
  expect(incremental.daily.length).toBeGreaterThan(0);
  await rebuildRollups(em, storeId);
  const rebuilt = await readRollups(em, storeId);
  expect(incremental).toEqual(rebuilt);
}

/** The stored new-customer flags and customer aggregates equal a computation from scratch. */
async function expectDerivedFieldsConsistent(em: EntityManager, storeId: number, storeCurrency: string) {
  const q = sqlRunner(em);
  const flags = await q.rows<{ id: string }>(
    `with ranked as (
       select o.id, o.is_new_customer,
              (o.status <> 'cancelled' and not o.is_test) as counts,
              row_number() over (partition by o.customer_id order by (o.status <> 'cancelled' and not o.is_test) desc, o.placed_at, o.id) as rn
         from orders o where o.store_id = $1
     )
     select id::text from ranked
      where is_new_customer <> (counts and (rn = 1 or (select customer_id from orders x where x.store_id = $1 and x.id = ranked.id) is null))`,
    [storeId],
  );
  expect(flags).toEqual([]);
  const customers = await q.rows<{ id: string }>(
    `select c.id::text from customers c
       left join lateral (
         select min(o.placed_at) as first_at, count(*)::int as n,
                count(*) filter (where o.currency <> $2)::int as foreign_orders,
                coalesce(sum(o.net_sales_minor) filter (where o.currency = $2), 0) as same_currency_net
           from orders o where o.store_id = $1 and o.customer_id = c.id and o.status <> 'cancelled' and not o.is_test
       ) a on true
      where c.store_id = $1
        and (c.first_order_at is distinct from a.first_at or c.orders_count <> a.n
             or (a.foreign_orders = 0 and c.total_spent_minor <> a.same_currency_net))`,
    [storeId, storeCurrency],
  );
  expect(customers).toEqual([]);
  const orders = await q.rows<{ id: string }>(
    `select o.id::text from orders o
       left join lateral (select coalesce(sum(r.amount_minor), 0) as total from refunds r where r.store_id = $1 and r.order_id = o.id) r on true
      where o.store_id = $1 and (o.refunds_minor <> r.total or o.net_sales_minor <> o.gross_minor - o.discounts_minor - r.total)`,
    [storeId],
  );
  expect(orders).toEqual([]);
}

/**
 * A messy data set of a GBP store: 320 orders over 60 days across the change to BST, same customers
 * out of order, three currencies, guests, cancellations, test orders, lines with and without costs,
 * every channel; and the FX rates they need.
 */
function messyDataset(rng: ReturnType<typeof random>) {
  const firstDay = '2026-03-10'; // spans the change to BST on 29 March
  const days = 60;
  // Rates for every day of the sequence, so customers' totals convert whatever the date.
  const fxRows = [];
  for (let i = -5; i < days + 40; i += 1) {
    const day = addDays(firstDay, i);
    fxRows.push({ day, currency: 'USD', rate: 1.05 + i / 1000 }, { day, currency: 'GBP', rate: 0.85 - i / 2000 });
  }

  const products = Array.from({ length: 12 }, (_, i) => ({
    platform: 'shopify',
    externalId: `prod-${i}`,
    title: `Product ${i}`,
    priceMinor: 500 + i * 250,
    currency: i === 11 ? 'USD' : 'GBP',
    unitCostMinor: i % 3 === 0 ? null : 200 + i * 50,
  }));

  const attribution: Partial<IngestOrder>[] = [
    { gclid: 'g' },
    { fbclid: 'f' },
    { msclkid: 'm' },
    { utmSource: 'klaviyo', utmMedium: 'email' },
    { referrer: 'https://www.google.com/' },
    { referrer: 'https://www.instagram.com/' },
    { referrer: 'https://blog.example/' },
    {},
  ];
  const currencies = ['GBP', 'GBP', 'GBP', 'USD', 'EUR'];
  const orders: IngestOrder[] = [];
  for (let i = 0; i < 320; i += 1) {
    const day = addDays(firstDay, rng.int(0, days - 1));
    const hour = rng.pick([0, 7, 12, 22, 23]);
    const lines = Array.from({ length: rng.int(0, 3) }, (_, l) => {
      const product = rng.pick(products);
      return { externalId: `l${l}`, productExternalId: product.externalId, title: product.title, quantity: rng.int(1, 3), unitPriceMinor: product.priceMinor, discountMinor: rng.chance(0.2) ? 100 : 0 };
    });
    const gross = lines.reduce((sum, line) => sum + line.quantity * line.unitPriceMinor, 0) || rng.int(500, 20_000);
    orders.push(
      testOrder({
        externalId: `m-${i}`,
        placedAt: `${day}T${String(hour).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:00Z`,
        updatedAt: `${day}T23:59:59Z`,
        currency: rng.pick(currencies),
        grossMinor: gross,
        discountsMinor: rng.chance(0.3) ? Math.floor(gross / 10) : 0,
        shippingMinor: rng.pick([0, 399, 499]),
        taxesMinor: Math.floor(gross / 6),
        status: rng.chance(0.05) ? 'cancelled' : rng.chance(0.1) ? 'pending' : 'paid',
        isTest: rng.chance(0.02),
        customer: rng.chance(0.15) ? null : { externalId: `cust-${rng.int(0, 59)}`, email: rng.chance(0.5) ? `c${i}@example.com` : null },
        lines,
        ...rng.pick(attribution),
      }),
    );
  }

  return { firstDay, days, fxRows, products, orders };
}

describe('incremental rollups equal a rebuild from raw rows', () => {
  it('after a messy sequence: out-of-order orders of the same customers, edits, late refunds, cancellations, replays, three currencies, metrics', async () => {
    const store = await createCommerceStore(database.orm, { timezone: 'Europe/London', currency: 'GBP' });
    const em = database.orm.em.fork();
    const rng = random(20261121);
    const { firstDay, days, fxRows, products, orders } = messyDataset(rng);
    await setFxRates(em, fxRows);
    await upsertProducts(em, store, products);

    // Orders arrive shuffled, in uneven batches, and some batches twice.
    const shuffled = rng.shuffle(orders);
    const batches: IngestOrder[][] = [];
    for (let start = 0; start < shuffled.length; start += 37) batches.push(shuffled.slice(start, start + 37));
    for (const batch of batches) {
      await ingestOrders(em, store, batch);
      if (rng.chance(0.3)) await ingestOrders(em, store, rng.pick(batches));
    }
    await expectIncrementalEqualsRebuild(em, store.id);
    await expectDerivedFieldsConsistent(em, store.id, 'GBP');

    // Refunds on later days (some orders twice), some replayed, one corrected.
    const refunds: IngestRefund[] = [];
    for (const order of rng.shuffle(orders).slice(0, 70)) {
      const placedDay = String(order.placedAt).slice(0, 10);
      const count = rng.chance(0.3) ? 2 : 1;
      for (let r = 0; r < count; r += 1) {
        refunds.push({
          platform: 'shopify',
          externalId: `ref-${order.externalId}-${r}`,
          orderExternalId: order.externalId,
          refundedAt: `${addDays(placedDay, rng.int(0, 20))}T${rng.pick(['08', '23'])}:30:00Z`,
          amountMinor: Math.floor(order.grossMinor / (count + 1)),
          // Some refund shipping and tax too (which lower their day's shipping and taxes), some only those.
          ...(rng.chance(0.3) ? { shippingMinor: rng.int(0, 500), taxesMinor: rng.int(0, 300), adjustmentsMinor: rng.int(-100, 200) } : {}),
          currency: order.currency,
        });
      }
    }
    for (let start = 0; start < refunds.length; start += 13) await ingestRefunds(em, store, refunds.slice(start, start + 13));
    await ingestRefunds(em, store, rng.shuffle(refunds).slice(0, 20));
    await ingestRefunds(em, store, [{ ...refunds[0]!, amountMinor: 1 }]);
    await expectIncrementalEqualsRebuild(em, store.id);

    // Edits: new discounts, cancellations, un-cancellations, moved dates, other customers, new lines, stale versions.
    const edits = rng.shuffle(orders).slice(0, 90).map((order, index) => {
      const kind = index % 6;
      const updatedAt = kind === 5 ? '2026-01-01T00:00:00Z' : '2026-12-31T00:00:00Z';
      const changed: IngestOrder = { ...order, updatedAt };
      if (kind === 0) changed.discountsMinor = Math.floor(order.grossMinor / 4);
      if (kind === 1) changed.status = 'cancelled';
      if (kind === 2) changed.placedAt = `${addDays(String(order.placedAt).slice(0, 10), -rng.int(1, 30))}T23:30:00Z`;
      if (kind === 3) changed.customer = { externalId: `cust-${rng.int(0, 59)}` };
      if (kind === 4) changed.lines = [{ externalId: 'l9', productExternalId: 'prod-1', title: 'Product 1', quantity: 5, unitPriceMinor: 750 }];
      if (kind === 5) changed.grossMinor = order.grossMinor * 3; // older than what is stored: ignored
      return changed;
    });
    for (let start = 0; start < edits.length; start += 17) await ingestOrders(em, store, edits.slice(start, start + 17));
    // An un-cancelled order, and more new orders of known customers placed before their first ones.
    await ingestOrders(em, store, edits.filter((order) => order.status === 'cancelled').slice(0, 5).map((order) => ({ ...order, status: 'paid' as const, updatedAt: '2027-01-01T00:00:00Z' })));
    await ingestOrders(em, store, Array.from({ length: 25 }, (_, i) => testOrder({ externalId: `early-${i}`, placedAt: `${addDays(firstDay, -rng.int(1, 5))}T10:00:00Z`, customer: { externalId: `cust-${rng.int(0, 59)}` }, grossMinor: 1_000 + i })));
    await expectIncrementalEqualsRebuild(em, store.id);
    await expectDerivedFieldsConsistent(em, store.id, 'GBP');

    // Campaign metrics, then some rows replaced and some replayed.
    const adRows: IngestAdMetric[] = [];
    for (let d = 0; d < days; d += 1) {
      for (const platform of ['googleads', 'metaads', 'bingads']) {
        for (let c = 0; c < 3; c += 1) {
          adRows.push({
            platform,
            accountId: `${platform}-acct`,
            campaignId: `${platform}-${c}`,
            day: addDays(firstDay, d),
            campaignName: `Campaign ${c}`,
            currency: platform === 'metaads' ? 'USD' : 'GBP',
            spendMinor: rng.int(0, 5_000),
            impressions: rng.int(0, 10_000),
            clicks: rng.int(0, 300),
            conversions: Math.round(rng.next() * 1000) / 100,
            conversionValueMinor: rng.int(0, 20_000),
          });
        }
      }
    }
    for (let start = 0; start < adRows.length; start += 100) await ingestAdMetrics(em, store, adRows.slice(start, start + 100));
    await ingestAdMetrics(em, store, rng.shuffle(adRows).slice(0, 60).map((row) => ({ ...row, spendMinor: row.spendMinor + 7, conversions: (row.conversions ?? 0) + 0.33 })));
    await ingestAdMetrics(em, store, adRows.slice(0, 50));
    await ingestEmailMetrics(
      em,
      store,
      Array.from({ length: 30 }, (_, i) => ({ platform: i % 2 ? 'klaviyo' : 'omnisend', campaignId: `e${i % 4}`, day: addDays(firstDay, i), campaignName: 'News', currency: 'GBP', sends: 1_000, clicks: rng.int(0, 100), attributedOrders: rng.int(0, 5), attributedRevenueMinor: rng.int(0, 10_000), spendMinor: rng.int(0, 300) })),
    );
    await expectIncrementalEqualsRebuild(em, store.id);

    // Rebuilding twice gives the same rows.
    const once = await readRollups(em, store.id);
    await rebuildRollups(em, store.id);
    expect(await readRollups(em, store.id)).toEqual(once);
  });

  it(`splits a call of more than ${INGEST_BATCH_SIZE} orders into batches with the same result`, async () => {
    const store = await createCommerceStore(database.orm);
    const em = database.orm.em.fork();
    const orders = Array.from({ length: INGEST_BATCH_SIZE + 150 }, (_, i) =>
      testOrder({ externalId: `bulk-${i}`, placedAt: `${addDays('2026-01-01', i % 90)}T12:00:00Z`, customer: { externalId: `bulk-c-${i % 700}` }, grossMinor: 1_000 + (i % 13) }),
    );
    expect(await ingestOrders(em, store, orders.reverse())).toEqual({ inserted: orders.length, updated: 0, skipped: 0 });
    await expectIncrementalEqualsRebuild(em, store.id);
    await expectDerivedFieldsConsistent(em, store.id, 'GBP');
  });
});

describe('npm run admin -- rebuild-rollups --store <id>', () => {
  it('restores damaged rollups from the raw rows', async () => {
    const store = await createCommerceStore(database.orm);
    const em = database.orm.em.fork();
    await ingestOrders(em, store, [testOrder({ externalId: 'cli-1', placedAt: '2026-04-01T10:00:00Z', gclid: 'x' }), testOrder({ externalId: 'cli-2', placedAt: '2026-04-02T10:00:00Z' })]);
    const good = await readRollups(em, store.id);
    await sqlRunner(em).run(`update daily_rollups set net_sales_minor = 0 where store_id = $1`, [store.id]);
    await sqlRunner(em).run(`delete from channel_daily_rollups where store_id = $1`, [store.id]);
    const output = await runAdminCommand(['rebuild-rollups', '--store', String(store.id)], em);
    expect(output).toMatch(new RegExp(`^Rebuilt the rollups of store ${store.id}: 2 daily rows, 2 channel rows in \\d+ ms$`));
    expect(await readRollups(em, store.id)).toEqual(good);
  });

  it('answers "Store not found" for an unknown store and explains a missing --store', async () => {
    const em = database.orm.em.fork();
    await expect(runAdminCommand(['rebuild-rollups', '--store', '99999999'], em)).rejects.toThrow('Store not found');
    await expect(runAdminCommand(['rebuild-rollups'], em)).rejects.toThrow('--store is required');
  });
});

describe('exact fractional conversions', () => {
  it('parse and format millionths without floating-point error', () => {
    expect(parseMillionths('0.3')).toBe(300_000);
    expect(parseMillionths('12.345678')).toBe(12_345_678);
    expect(parseMillionths('-0.000001')).toBe(-1);
    expect(parseMillionths('7')).toBe(7_000_000);
    expect(formatMillionths(300_000)).toBe('0.300000');
    expect(formatMillionths(-1)).toBe('-0.000001');
    expect(formatMillionths(parseMillionths('0.1') + parseMillionths('0.2'))).toBe('0.300000');
  });
});

describe('bulkLoad', () => {
  it('stores the same orders, flags, customer totals and rollups as batch-by-batch ingest', async () => {
    const { fxRows, products, orders } = messyDataset(random(7));
    const refunds: IngestRefund[] = orders.filter((_, i) => i % 9 === 0).map((order, i) => ({
      platform: 'shopify',
      externalId: `ref-${order.externalId}`,
      orderExternalId: order.externalId,
      refundedAt: `${addDays(String(order.placedAt).slice(0, 10), 3 + (i % 10))}T09:00:00Z`,
      amountMinor: i % 4 === 3 ? 0 : Math.floor(order.grossMinor / 2),
      shippingMinor: i % 2 === 0 ? 495 : 0,
      taxesMinor: i % 3 === 0 ? 120 : 0,
      currency: order.currency,
    }));
    const adRows: IngestAdMetric[] = Array.from({ length: 40 }, (_, i) => ({
      platform: 'metaads', accountId: 'acct', campaignId: `c${i % 4}`, day: addDays('2026-03-10', i), campaignName: 'Spring', currency: 'USD',
      spendMinor: 1_000 + i, impressions: 5_000, clicks: 40 + i, conversions: 1.5, conversionValueMinor: 9_000,
    }));
    const em = database.orm.em.fork();
    await setFxRates(em, fxRows);

    const stores = [];
    for (const bulk of [false, true]) {
      const store = await createCommerceStore(database.orm, { timezone: 'Europe/London', currency: 'GBP' });
      const load = async (tx: EntityManager) => {
        await upsertProducts(tx, store, products);
        // The customers' later orders first: the flags and totals must still come out right.
        for (let start = orders.length; start > 0; start -= 50) await ingestOrders(tx, store, orders.slice(Math.max(0, start - 50), start));
        await ingestRefunds(tx, store, refunds);
        await ingestAdMetrics(tx, store, adRows);
      };
      if (bulk) await bulkLoad(em, store, load);
      else await load(em);
      stores.push(store.id);
    }

    const q = sqlRunner(em);
    const snapshot = async (storeId: number) => ({
      rollups: await readRollups(em, storeId),
      orders: await q.rows(`select external_id, is_new_customer, status, net_sales_minor::text from orders where store_id = $1 order by external_id`, [storeId]),
      customers: await q.rows(`select external_id, email_hash, first_order_at, orders_count, total_spent_minor::text from customers where store_id = $1 order by external_id`, [storeId]),
    });
    const [batchByBatch, bulk] = [await snapshot(stores[0]!), await snapshot(stores[1]!)];
    // Orders whose customer changed e-mail (or had none) came later: the last e-mail given is kept.
    expect(new Set(bulk.customers.map((customer) => (customer as { email_hash: string | null }).email_hash)).size).toBeGreaterThan(1);
    expect(bulk.orders).toHaveLength(orders.length);
    expect(bulk.orders.filter((order) => (order as { is_new_customer: boolean }).is_new_customer).length).toBeGreaterThan(0);
    expect(bulk).toEqual(batchByBatch);
    await expectDerivedFieldsConsistent(em, stores[1]!, 'GBP');
  });

  it("gives a customer added by two batches in flight at once one row, which both batches' orders point to", async () => {
    const em = database.orm.em.fork();
    const placed = (i: number) => `2026-05-${String(1 + (i % 20)).padStart(2, '0')}T10:00:00Z`;
    // Both batches bring the same twenty customers, new to the store.
    const batchOf = (half: number) =>
      Array.from({ length: 40 }, (_, i) =>
        testOrder({ externalId: `h${half}-${i}`, placedAt: placed(i + half), grossMinor: 1_000 + i, customer: { externalId: `shared-${i % 20}`, email: `shared-${i % 20}@example.com` } }),
      );
    const store = await createCommerceStore(database.orm, { timezone: 'Europe/London', currency: 'GBP' });
    await bulkLoad(em, store, (tx) => Promise.all([ingestOrders(tx, store, batchOf(0)), ingestOrders(tx, store, batchOf(1))]));

    const q = sqlRunner(em);
    const customers = await q.rows<{ external_id: string; orders_count: number; email_hash: string }>(
      `select external_id, orders_count, email_hash from customers where store_id = $1 order by external_id`,
      [store.id],
    );
    expect(customers).toHaveLength(20);
    expect(customers.every((customer) => customer.orders_count === 4 && customer.email_hash === hashEmail(`${customer.external_id}@example.com`))).toBe(true);
    const orders = await q.rows<{ external_id: string; customer: string | null }>(
      `select o.external_id, c.external_id as customer from orders o left join customers c on c.id = o.customer_id where o.store_id = $1`,
      [store.id],
    );
    expect(orders).toHaveLength(80);
    for (const order of orders) expect(order.customer, order.external_id).toBe(`shared-${Number(order.external_id.split('-')[1]) % 20}`);
    expect(await q.rows(`select count(*)::int as count from orders where store_id = $1 and is_new_customer`, [store.id])).toEqual([{ count: 20 }]);
    await expectDerivedFieldsConsistent(em, store.id, 'GBP');
  });

  it('writes nothing when the load fails, and a store being loaded cannot be deleted until the load ends', async () => {
    const store = await createCommerceStore(database.orm);
    const em = database.orm.em.fork();
    const other = database.orm.em.fork();
    const deleteStoreQuickly = () =>
      other.transactional(async (tx) => {
        await sqlRunner(tx).run(`set local lock_timeout = '200ms'`);
        await sqlRunner(tx).run(`delete from stores where id = $1`, [store.id]);
      });

    await expect(
      bulkLoad(em, store, async (tx) => {
        await ingestOrders(tx, store, [testOrder({ externalId: 'kept-out', placedAt: '2026-05-01T10:00:00Z', customer: { externalId: 'c1' } })]);
        // The load holds its store as a foreign-key check would: a delete waits (here: gives up).
        await expect(deleteStoreQuickly()).rejects.toThrow(/lock timeout/);
        throw new Error('the platform went away');
      }),
    ).rejects.toThrow('the platform went away');
    const q = sqlRunner(em);
    expect(await q.rows(`select 1 from orders where store_id = $1`, [store.id])).toEqual([]);
    expect(await q.rows(`select 1 from customers where store_id = $1`, [store.id])).toEqual([]);

    await bulkLoad(em, store, (tx) => ingestOrders(tx, store, [testOrder({ externalId: 'in', placedAt: '2026-05-01T10:00:00Z', lines: [{ title: 'Mug', quantity: 1, unitPriceMinor: 900 }] })]));
    await deleteStoreQuickly();
    for (const table of ['orders', 'order_lines', 'customers', 'daily_rollups']) {
      expect(await q.rows(`select 1 from ${table} where store_id = $1`, [store.id]), table).toEqual([]);
    }
  });
});

describe('statistics of a store that is filling up', () => {
  it("tell the planner of a new store's rows as they arrive, when other stores are known already", async () => {
    const em = database.orm.em.fork();
    const q = sqlRunner(em);
    const ordersOf = (count: number) =>
      Array.from({ length: count }, (_, i) => testOrder({ placedAt: `2026-04-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`, customer: { externalId: `buyer-${i % 300}` } }));
    const known = await createCommerceStore(database.orm);
    await ingestOrders(em, known, ordersOf(1_500));
    await q.run(`analyze orders, customers`);

    // Without statistics of its own a new store looks empty, and its orders may be looked up by
    // any index that starts with store_id (the whole store read once per order looked up).
    const added = await createCommerceStore(database.orm);
    await ingestOrders(em, added, ordersOf(400));
    expect(await plannerStoreRows(q, 'orders', added.id)).toBeGreaterThanOrEqual(200);
    expect(await plannerStoreRows(q, 'customers', added.id)).toBeGreaterThanOrEqual(150);
  });
});
