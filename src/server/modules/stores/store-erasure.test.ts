import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCommerceStore, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { runAttribution } from '../attribution/credits.ts';
import { existsSync } from 'node:fs';
import { hashEmail, ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { recomputeLoyalty } from '../loyalty/loyalty-job.ts';
import { configurePrivacyFiles, createCustomerDataExport, privacyRequestFile } from '../privacy/privacy.service.ts';
import { deleteStore } from './stores.service.ts';
import { User } from '../users/user.entity.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';

const database = useTestDatabase();
const events = useEventWriter(() => database.url);
const DAY_MS = 86_400_000;
configurePrivacyFiles(path.join(os.tmpdir(), `storepulse-store-erasure-${process.pid}`));

/** Rows of the store in every table that has a store_id column (found in information_schema, not listed by hand). */
async function storeRows(storeId: number): Promise<Record<string, number>> {
  const q = sqlRunner(database.orm.em.fork());
  const tables = await q.rows<{ table_name: string }>(
    `select c.table_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
      where c.table_schema = 'public' and c.column_name = 'store_id' and t.table_type = 'BASE TABLE' order by 1`,
  );
  const found: Record<string, number> = {};
  for (const { table_name: table } of tables) {
    const [row] = await q.rows<{ n: number }>(`select count(*)::int as n from "${table}" where store_id = $1`, [storeId]);
    if (row!.n > 0) found[table] = row!.n;
  }
  return found;
}

/** A store with orders, refunds, customers, visits, touchpoints, attribution credits and loyalty scores. */
async function busyStore() {
  const store = await createCommerceStore(database.orm);
  const placed = Date.now() - 4 * DAY_MS;
  const customer = { externalId: 'c-1', email: 'ann@example.com', name: 'Ann Example' };
  await ingestOrders(database.orm.em.fork(), store.id, [
    testOrder({ externalId: 'o-1', placedAt: new Date(placed), grossMinor: 4_000, customer, landingSite: '/?gclid=g1' }),
    testOrder({ externalId: 'o-2', placedAt: new Date(placed + DAY_MS), grossMinor: 6_000, customer }),
  ]);
  await trackingSettingsOf(database.orm.em.fork(), store.id);
  await events.writer.write([
    trackingEvent(store.id, 'v-1', new Date(placed - 3_600_000), { url: 'https://shop.example/?gclid=g1' }),
    trackingEvent(store.id, 'v-1', new Date(placed + 60_000), { name: 'purchase', eventId: 'o-1', orderId: 'o-1', emailHash: hashEmail(customer.email), valueMinor: 4_000, currency: 'GBP' }),
  ], []);
  await buildSessions(database.orm.em.fork(), store.id, { settleMs: 0 });
  await runAttribution(database.orm.em.fork(), store.id);
  await recomputeLoyalty(database.orm.em.fork(), store.id);
  return store;
}

describe('erasing a store', () => {
  it('deleteStore leaves no row of the store in any table with a store_id', async () => {
    const store = await busyStore();
    const before = await storeRows(store.id);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['orders', 'customers', 'tracking_events', 'tracking_sessions', 'tracking_touchpoints', 'daily_rollups', 'customer_loyalty']));
    // An export made for a customer's data request: its file goes too.
    const em = database.orm.em.fork();
    const owner = await em.findOneOrFail(User, { id: store.ownerId });
    const q = sqlRunner(em);
    const [customer] = await q.rows<{ id: number }>(`select id from customers where store_id = $1`, [store.id]);
    const exported = await createCustomerDataExport(q, { storeId: store.id, customerIds: [customer!.id], orderIds: [], platformCustomerIds: ['c-1'], emailHashes: [] }, { kind: 'shopify_customer_data_request', shop: 'erase.myshopify.com', customerExternalId: 'c-1', platformRequestId: null });
    const file = (await privacyRequestFile(em, owner, false, exported.id)).path;
    expect(existsSync(file)).toBe(true);
    await deleteStore(em, await em.findOneOrFail(User, { id: store.ownerId }), store.id);
    expect(await storeRows(store.id)).toEqual({});
    expect(existsSync(file)).toBe(false);
  });
});
