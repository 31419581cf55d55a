import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

/**
 * A buyer as the store platform knows them. The e-mail is kept only as a SHA-256 hash. The three
 * aggregates are maintained by ingest from the customer's counting orders (not cancelled, not test).
 */
export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    platform: p.string().length(32),
    externalId: p.string().length(255),
    /** SHA-256 (hex) of the trimmed, lower-cased e-mail address. */
    emailHash: p.character().length(64).nullable(),
    /** Name and e-mail sealed with the credential key (customer-contacts.ts), null when no order carried them. */
    contactSealed: p.text().nullable(),
    /** A keyed digest of the sealed pair: tells a change without opening it. */
    contactDigest: p.string().length(32).nullable(),
    /** The name's blind index: keyed digests of its words' prefixes (customer-contacts.ts). */
    nameSearch: p.array().nullable(),
    firstOrderAt: p.datetime().nullable(),
    ordersCount: p.integer().default(0),
    /** Net sales of the customer's orders, converted into the store's currency at each order's day. */
    totalSpentMinor: p.bigint('number').default(0),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'platform', 'externalId'] }],
  indexes: [
    { properties: ['store', 'firstOrderAt'] },
    { name: 'customers_name_search_index', expression: 'create index "customers_name_search_index" on "customers" using gin ("name_search")' },
  ],
});

export type CustomerEntity = InferEntity<typeof Customer>;
