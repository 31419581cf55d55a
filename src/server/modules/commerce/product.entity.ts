import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

/** A product of a store's catalogue as its platform knows it; unit cost is the COGS per unit. */
export const Product = defineEntity({
  name: 'Product',
  tableName: 'products',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    platform: p.string().length(32),
    externalId: p.string().length(255),
    title: p.text(),
    sku: p.string().length(255).nullable(),
    priceMinor: p.bigint('number'),
    currency: p.character().length(3),
    /** Cost of goods per unit in `currency`; null when unknown (P&L then uses the store's default COGS %). */
    unitCostMinor: p.bigint('number').nullable(),
    imageUrl: p.text().nullable(),
    active: p.boolean().default(true),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'platform', 'externalId'] }],
});

export type ProductEntity = InferEntity<typeof Product>;
