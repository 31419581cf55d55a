import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Daily exchange rates, ECB convention: units of `currency` per 1 EUR (EUR itself is 1 and has no rows).
 * Shared by all stores. Days without a row (weekends, holidays) use the latest earlier rate.
 */
export const FxRate = defineEntity({
  name: 'FxRate',
  tableName: 'fx_rates',
  properties: {
    day: p.date().primary(),
    currency: p.character().length(3).primary(),
    rate: p.decimal('number').precision(20).scale(10),
    /** Where the rate came from: 'synthetic' (the seed in fx.ts), 'ecb', 'manual'. Real rates replace synthetic ones. */
    source: p.string().length(16).default('synthetic'),
  },
  primaryKeys: ['day', 'currency'],
  indexes: [{ properties: ['currency', 'day'] }],
});

export type FxRateEntity = InferEntity<typeof FxRate>;
