import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';
import { Order } from './order.entity.ts';

/**
 * Money given back on an order, on its own day: it lowers net sales of `refundedDay`, not of the
 * order's day. The amount is the merchandise part (tax and shipping refunds are not net sales).
 */
export const Refund = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    order: () => p.manyToOne(Order).joinColumns('store_id', 'order_id').ownColumns('order_id').deleteRule('cascade'),
    platform: p.string().length(32),
    externalId: p.string().length(255),
    refundedAt: p.datetime(),
    refundedDay: p.date(),
    amountMinor: p.bigint('number'),
    currency: p.character().length(3),
    reason: p.text().nullable(),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'platform', 'externalId'] }],
  indexes: [{ properties: ['store', 'order'] }, { properties: ['store', 'refundedDay'] }],
});

export type RefundEntity = InferEntity<typeof Refund>;
