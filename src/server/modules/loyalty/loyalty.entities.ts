import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { LOYALTY_FALLBACK_REASONS, LOYALTY_MODELS, LOYALTY_SEGMENTS } from '../../../shared/loyalty.ts';
import { Store } from '../stores/store.entity.ts';

// The loyalty job's output (README, "Customer loyalty"), replaced per store in one transaction
// (loyalty-job.ts), read by the loyalty procedures. Written and read with set-based SQL; the
// entities describe the tables for the schema and the migration snapshot.

/** One customer's scores, as of `computedAt`. Money in the store's currency (minor units), times in days. */
export const CustomerLoyalty = defineEntity({
  name: 'CustomerLoyalty',
  tableName: 'customer_loyalty',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    /** customers.id (same store). */
    customerId: p.bigint('number').primary(),
    orders: p.integer(),
    spentMinor: p.bigint('number'),
    firstOrderAt: p.datetime(),
    lastOrderAt: p.datetime(),
    /** BG/NBD inputs in days: repeat order days x, last order t_x and age T from the first order. */
    repeatOrders: p.integer(),
    recencyDays: p.integer(),
    ageDays: p.integer(),
    r: p.smallint(),
    f: p.smallint(),
    m: p.smallint(),
    segment: p.enum(LOYALTY_SEGMENTS),
    pAlive: p.double().nullable(),
    churnRisk: p.double().nullable(),
    expectedOrders90d: p.double().nullable().fieldName('expected_orders_90d'),
    predictedValue12mMinor: p.bigint('number').nullable().fieldName('predicted_value_12m_minor'),
    valuePercentile: p.double().nullable(),
    loyaltyScore: p.smallint(),
    computedAt: p.datetime(),
  },
  primaryKeys: ['store', 'customerId'],
  indexes: [
    { name: 'customer_loyalty_segment_index', properties: ['store', 'segment', 'predictedValue12mMinor'] },
    { name: 'customer_loyalty_value_index', properties: ['store', 'predictedValue12mMinor'] },
  ],
});

export type CustomerLoyaltyEntity = InferEntity<typeof CustomerLoyalty>;

/** The store's model: BG/NBD + Gamma-Gamma, or RFM only with the reason; its holdout errors. */
export const LoyaltyModelRow = defineEntity({
  name: 'LoyaltyModelRow',
  tableName: 'loyalty_models',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    model: p.enum(LOYALTY_MODELS),
    fallbackReason: p.enum(LOYALTY_FALLBACK_REASONS).nullable(),
    /** r, alpha, a, b (alpha in days) and p, q, gamma (gamma in minor units), when fitted. */
    parameters: p.json<Record<string, number>>().nullable(),
    customers: p.integer(),
    historyDays: p.integer(),
    currency: p.character().length(3),
    holdoutMae: p.double().nullable(),
    baselineMae: p.double().nullable(),
    holdoutCustomers: p.integer().nullable(),
    fittedAt: p.datetime(),
  },
  primaryKeys: ['store'],
});

export type LoyaltyModelEntity = InferEntity<typeof LoyaltyModelRow>;
