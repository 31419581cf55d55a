import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { createCommerceStore, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { customerSearch, customerSearchSql, nameWords, openContact } from './customer-contacts.ts';
import { bulkLoad, ingestOrders } from './ingest.ts';
import { sqlRunner } from './raw-sql.ts';

const database = useTestDatabase();

function fork(): EntityManager {
  return database.orm.em.fork();
}

interface ContactRow {
  platform: string;
  external_id: string;
  contact_sealed: string | null;
  contact_digest: string | null;
  name_search: string[] | null;
  email_hash: string | null;
  whole_row: string;
}

async function contactRow(em: EntityManager, storeId: number, externalId: string): Promise<ContactRow> {
  const [row] = await sqlRunner(em).rows<ContactRow>(
    `select platform, external_id, contact_sealed, contact_digest, name_search, email_hash, row_to_json(c)::text as whole_row
       from customers c where store_id = $1 and external_id = $2`,
    [storeId, externalId],
  );
  return row!;
}

async function search(em: EntityManager, storeId: number, text: string): Promise<string[]> {
  const found = customerSearch(storeId, text);
  if (!found) return [];
  const condition = customerSearchSql(found, 2);
  const rows = await sqlRunner(em).rows<{ external_id: string }>(
    `select c.external_id from customers c where c.store_id = $1 and ${condition.sql} order by c.external_id`,
    [storeId, condition.parameter],
  );
  return rows.map((row) => row.external_id);
}

describe('customer names and e-mail addresses', () => {
  it('are stored sealed: the row holds neither in clear, and they open to what the order said', async () => {
    const store = await createCommerceStore(database.orm);
    await ingestOrders(fork(), store, [
      testOrder({ externalId: 'o1', placedAt: '2026-06-10T09:00:00Z', customer: { externalId: 'c1', email: ' Zoe.Quimby@Example.com ', name: 'Zoë Quimby-Hart' } }),
    ]);
    const row = await contactRow(fork(), store.id, 'c1');
    expect(row.whole_row.toLowerCase()).not.toContain('quimby');
    expect(row.whole_row.toLowerCase()).not.toContain('example.com');
    expect(openContact(store.id, row)).toEqual({ name: 'Zoë Quimby-Hart', email: 'Zoe.Quimby@Example.com' });
  });

  it('a sealed value copied to another customer does not open there', async () => {
    const store = await createCommerceStore(database.orm);
    await ingestOrders(fork(), store, [
      testOrder({ externalId: 'o1', placedAt: '2026-06-10T09:00:00Z', customer: { externalId: 'c1', email: 'a@example.com', name: 'Ada One' } }),
      testOrder({ externalId: 'o2', placedAt: '2026-06-10T10:00:00Z', customer: { externalId: 'c2', email: 'b@example.com', name: 'Bea Two' } }),
    ]);
    const first = await contactRow(fork(), store.id, 'c1');
    const second = await contactRow(fork(), store.id, 'c2');
    expect(() => openContact(store.id, { ...second, contact_sealed: first.contact_sealed })).toThrow(/could not be decrypted/);
  });

  it('are found by a name word or its first letters (accents and case ignored) and by the whole e-mail, only in their own store', async () => {
    const store = await createCommerceStore(database.orm);
    const other = await createCommerceStore(database.orm);
    await ingestOrders(fork(), store, [
      testOrder({ externalId: 'o1', placedAt: '2026-06-10T09:00:00Z', customer: { externalId: 'c1', email: 'zoe@example.com', name: 'Zoë Quimby-Hart' } }),
      testOrder({ externalId: 'o2', placedAt: '2026-06-10T10:00:00Z', customer: { externalId: 'c2', email: 'sam@example.com', name: 'Sam Hartley' } }),
      testOrder({ externalId: 'o3', placedAt: '2026-06-10T11:00:00Z', customer: { externalId: 'c3', email: 'no-name@example.com' } }),
    ]);
    await ingestOrders(fork(), other, [
      testOrder({ externalId: 'x1', placedAt: '2026-06-10T09:00:00Z', customer: { externalId: 'x1', email: 'zoe@example.com', name: 'Zoe Quimby' } }),
    ]);
    const em = fork();
    expect(await search(em, store.id, 'zoe')).toEqual(['c1']);
    expect(await search(em, store.id, 'QUIM')).toEqual(['c1']);
    expect(await search(em, store.id, 'hart')).toEqual(['c1', 'c2']);
    expect(await search(em, store.id, 'zoe hart')).toEqual(['c1']);
    expect(await search(em, store.id, 'artley')).toEqual([]);
    expect(await search(em, store.id, ' ZOE@example.com ')).toEqual(['c1']);
    expect(await search(em, store.id, 'no-name@example.com')).toEqual(['c3']);
    expect(await search(em, other.id, 'zoe')).toEqual(['x1']);
  });

  it('a later order without the customer\'s details keeps the stored ones; new details replace them and are found instead', async () => {
    const store = await createCommerceStore(database.orm);
    await ingestOrders(fork(), store, [
      testOrder({ externalId: 'o1', placedAt: '2026-06-10T09:00:00Z', customer: { externalId: 'c1', email: 'ada@example.com', name: 'Ada Lovelace' } }),
    ]);
    await ingestOrders(fork(), store, [testOrder({ externalId: 'o2', placedAt: '2026-06-11T09:00:00Z', customer: { externalId: 'c1' } })]);
    expect(openContact(store.id, await contactRow(fork(), store.id, 'c1'))).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });
    await ingestOrders(fork(), store, [
      testOrder({ externalId: 'o3', placedAt: '2026-06-12T09:00:00Z', customer: { externalId: 'c1', email: 'ada@example.com', name: 'Ada King' } }),
    ]);
    expect(openContact(store.id, await contactRow(fork(), store.id, 'c1'))).toEqual({ name: 'Ada King', email: 'ada@example.com' });
    expect(await search(fork(), store.id, 'king')).toEqual(['c1']);
    expect(await search(fork(), store.id, 'lovelace')).toEqual([]);
  });

  it('a bulk load stores them the same way, across its batches', async () => {
    const store = await createCommerceStore(database.orm);
    await bulkLoad(fork(), store, async (tx) => {
      await ingestOrders(tx, store, [
        testOrder({ externalId: 'o1', placedAt: '2026-06-10T09:00:00Z', customer: { externalId: 'c1', email: 'lea@example.com', name: 'Léa Dubois' } }),
      ]);
      await ingestOrders(tx, store, [
        testOrder({ externalId: 'o2', placedAt: '2026-06-11T09:00:00Z', customer: { externalId: 'c1', email: 'lea@example.com', name: 'Léa Dubois' } }),
      ]);
    });
    const row = await contactRow(fork(), store.id, 'c1');
    expect(openContact(store.id, row)).toEqual({ name: 'Léa Dubois', email: 'lea@example.com' });
    expect(await search(fork(), store.id, 'lea dub')).toEqual(['c1']);
  });

  it('splits names into words without accents', () => {
    expect(nameWords("Zoë O'Brien-Smith")).toEqual(['zoe', 'o', 'brien', 'smith']);
    expect(nameWords('  ')).toEqual([]);
  });
});
