import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';
import { Order } from './order.entity.ts';

/**
 * Money given back on an order, on its own day: it lowers net sales of `refundedDay`, not of the
 * order's day. `amountMinor` is the merchandise part, net of tax (net sales); refunded shipping and
 * tax lower that day's shipping and taxes; adjustments (goodwill amounts, refund discrepancies) are
 * kept for the record and count in neither.
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
    shippingMinor: p.bigint('number').default(0),
    taxesMinor: p.bigint('number').default(0),
    adjustmentsMinor: p.bigint('number').default(0),
    currency: p.character().length(3),
    reason: p.text().nullable(),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'platform', 'externalId'] }],
  indexes: [{ properties: ['store', 'order'] }, { properties: ['store', 'refundedDay'] }],
});

export type RefundEntity = InferEntity<typeof Refund>;
