import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';
import { Order } from './order.entity.ts';
import { Product } from './product.entity.ts';

/** One line of an order; its unit cost is a snapshot taken at ingest (the product's cost may change later). */
export const OrderLine = defineEntity({
  name: 'OrderLine',
  tableName: 'order_lines',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    order: () => p.manyToOne(Order).joinColumns('store_id', 'order_id').ownColumns('order_id').deleteRule('cascade'),
    product: () => p.manyToOne(Product).nullable().joinColumns('store_id', 'product_id').ownColumns('product_id').deleteRule('no action'),
    externalId: p.string().length(255),
    title: p.text(),
    sku: p.string().length(255).nullable(),
    quantity: p.integer(),
    unitPriceMinor: p.bigint('number'),
    /** Discount on the whole line (all units). */
    discountMinor: p.bigint('number').default(0),
    unitCostMinor: p.bigint('number').nullable(),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'order', 'externalId'] }],
  indexes: [{ properties: ['store', 'product'] }],
});

export type OrderLineEntity = InferEntity<typeof OrderLine>;
