import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { addDays } from '../src/server/modules/commerce/days.ts';
import { upsertFxRates, type FxRateRow } from '../src/server/modules/commerce/fx.ts';
import type { IngestOrder } from '../src/server/modules/commerce/ingest.ts';
import { sqlRunner } from '../src/server/modules/commerce/raw-sql.ts';
import { Store } from '../src/server/modules/stores/store.entity.ts';
import { User } from '../src/server/modules/users/user.entity.ts';
import type { Store as ApiStore } from '../src/shared/stores.ts';
import { grantTestPlan, signedInClient, type TestApp } from './harness.ts';

/** A store (with a throw-away owner) for service-level tests that need no HTTP session. */
export async function createCommerceStore(orm: MikroORM, options: { timezone?: string; currency?: string; name?: string } = {}) {
  const em = orm.em.fork();
  const username = `owner_${randomBytes(4).toString('hex')}`;
  const owner = em.create(User, { username, email: `${username}@example.com`, passwordHash: 'not-a-real-hash' });
  const store = em.create(Store, {
    owner,
    name: options.name ?? 'Commerce test store',
    currency: options.currency ?? 'GBP',
    timezone: options.timezone ?? 'Europe/London',
  });
  await em.flush();
  return { id: store.id, ownerId: owner.id, timezone: store.timezone, currency: store.currency };
}

export type StoreOwner = Awaited<ReturnType<typeof signedInClient>> & { store: ApiStore };

/**
 * A new account on the business plan, signed in, with one store of its own created through the API
 * (named "<prefix> store", in GBP and Europe/London, the defaults): the caller of router-level tests.
 */
export async function signedInStoreOwner(testApp: TestApp, prefix: string): Promise<StoreOwner> {
  const signedIn = await signedInClient(testApp.app, prefix);
  await grantTestPlan(testApp.orm, signedIn.credentials.username, 'business');
  const answer = await signedIn.client.post<ApiStore>('/api/stores', { name: `${prefix} store` });
  if (answer.status !== 201) throw new Error(`Store creation failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { ...signedIn, store: answer.body };
}

let orderCounter = 0;

/** An order with sensible defaults: paid, GBP, direct, no customer, no lines. */
export function testOrder(overrides: Partial<IngestOrder> & Pick<IngestOrder, 'placedAt'>): IngestOrder {
  orderCounter += 1;
  return {
    platform: 'shopify',
    externalId: `order-${orderCounter}`,
    currency: 'GBP',
    grossMinor: 10_000,
    status: 'paid',
    ...overrides,
  };
}

/** Sets exact rates for the listed days (replacing the synthetic seed there). */
export async function setFxRates(em: EntityManager, rows: FxRateRow[]): Promise<void> {
  await upsertFxRates(em, rows);
}

/**
 * The same rates (units per EUR) on every day from `from` to `to`: GBP 0.85 and USD 1.25, so
 * USD 1.00 = GBP 0.68 and GBP 1.00 = EUR 1.1765 (hand-computed fixtures rely on these figures).
 */
export async function setFlatFxRates(em: EntityManager, from: string, to: string): Promise<void> {
  const rows: FxRateRow[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) rows.push({ day, currency: 'GBP', rate: 0.85 }, { day, currency: 'USD', rate: 1.25 });
  await upsertFxRates(em, rows);
}

/** Removes every rate of these currencies (to test conversions without a rate). */
export async function clearFxRates(em: EntityManager, currencies: string[]): Promise<void> {
  await sqlRunner(em).run(`delete from fx_rates where currency = any($1::text[])`, [currencies]);
}

export interface RollupSnapshot {
  daily: Record<string, unknown>[];
  channel: Record<string, unknown>[];
  product: Record<string, unknown>[];
}

/** Every column of every rollup row of a store, in key order, as text (for exact comparisons). */
export async function readRollups(em: EntityManager, storeId: number): Promise<RollupSnapshot> {
  const q = sqlRunner(em);
  const daily = await q.rows<Record<string, unknown>>(
    `select to_jsonb(d) - 'store_id' as row from daily_rollups d where store_id = $1 order by day, currency`,
    [storeId],
  );
  const channel = await q.rows<Record<string, unknown>>(
    `select to_jsonb(c) - 'store_id' as row from channel_daily_rollups c where store_id = $1 order by day, channel, currency`,
    [storeId],
  );
  // Catalogue products by their platform id, not the database id: comparable across stores.
  const product = await q.rows<Record<string, unknown>>(
    `select to_jsonb(r) - 'store_id' || jsonb_build_object('product_key', k.product_key) as row
       from product_daily_rollups r
       left join products p on p.store_id = r.store_id and r.product_key = 'product:' || p.id
       cross join lateral (select coalesce('product:' || p.platform || ':' || p.external_id, r.product_key) as product_key) k
      where r.store_id = $1
      order by r.day, k.product_key, r.currency`,
    [storeId],
  );
  return {
    daily: daily.map((r) => r.row as Record<string, unknown>),
    channel: channel.map((r) => r.row as Record<string, unknown>),
    product: product.map((r) => r.row as Record<string, unknown>),
  };
}

/** One daily rollup row as numbers (absent: all zero). */
export async function dailyRollup(em: EntityManager, storeId: number, day: string, currency = 'GBP'): Promise<Record<string, number> | null> {
  const [row] = await sqlRunner(em).rows<{ row: Record<string, unknown> }>(
    `select to_jsonb(d) - 'store_id' - 'day' - 'currency' as row from daily_rollups d where store_id = $1 and day = $2::date and currency = $3`,
    [storeId, day, currency],
  );
  if (!row) return null;
  return Object.fromEntries(Object.entries(row.row).map(([key, value]) => [key, Number(value)]));
}

/** Channel rollup rows of a store on a day, keyed by channel. */
export async function channelRollups(em: EntityManager, storeId: number, day: string, currency = 'GBP'): Promise<Record<string, Record<string, number>>> {
  const rows = await sqlRunner(em).rows<{ channel: string; row: Record<string, unknown> }>(
    `select channel, to_jsonb(c) - 'store_id' - 'day' - 'currency' - 'channel' as row
       from channel_daily_rollups c where store_id = $1 and day = $2::date and currency = $3`,
    [storeId, day, currency],
  );
  return Object.fromEntries(rows.map((r) => [r.channel, Object.fromEntries(Object.entries(r.row).map(([key, value]) => [key, Number(value)]))]));
}
