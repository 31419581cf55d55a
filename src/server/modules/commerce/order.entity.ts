import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ORDER_STATUSES } from '../../../shared/commerce.ts';
import { Store } from '../stores/store.entity.ts';
import { Customer } from './customer.entity.ts';

/**
 * An order, written only by ingest.ts. Money is in minor units of `currency`; net sales are gross
 * minus discounts minus refunds (tax and shipping excluded). `placedDay` is the day in the store's
 * time zone. Cancelled and test orders are kept but count nowhere.
 */
export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    platform: p.string().length(32),
    externalId: p.string().length(255),
    orderNumber: p.string().length(64).nullable(),
    placedAt: p.datetime(),
    placedDay: p.date(),
    currency: p.character().length(3),
    grossMinor: p.bigint('number'),
    discountsMinor: p.bigint('number').default(0),
    shippingMinor: p.bigint('number').default(0),
    taxesMinor: p.bigint('number').default(0),
    /** Total refunded so far (the refunds table holds each refund on its own day). */
    refundsMinor: p.bigint('number').default(0),
    netSalesMinor: p.bigint('number'),
    customer: () => p.manyToOne(Customer).nullable().joinColumns('store_id', 'customer_id').ownColumns('customer_id').deleteRule('no action'),
    /** The customer's earliest counting order, or a guest checkout (which cannot be recognised later). */
    isNewCustomer: p.boolean().default(false),
    landingSite: p.text().nullable(),
    referrer: p.text().nullable(),
    utmSource: p.string().length(255).nullable(),
    utmMedium: p.string().length(255).nullable(),
    utmCampaign: p.string().length(255).nullable(),
    utmContent: p.string().length(255).nullable(),
    utmTerm: p.string().length(255).nullable(),
    gclid: p.text().nullable(),
    fbclid: p.text().nullable(),
    msclkid: p.text().nullable(),
    ttclid: p.text().nullable(),
    /** Derived by channel.ts from click ids, UTM fields and referrer. */
    channel: p.string().length(32),
    status: p.enum(ORDER_STATUSES),
    isTest: p.boolean().default(false),
    /** The platform's last change; an older version arriving late does not overwrite a newer one. */
    updatedAt: p.datetime(),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'platform', 'externalId'] }],
  indexes: [
    { properties: ['store', 'placedAt'] },
    { properties: ['store', 'placedDay'] },
    { properties: ['store', 'status', 'placedAt'] },
    { properties: ['store', 'customer'] },
  ],
});

export type OrderEntity = InferEntity<typeof Order>;
