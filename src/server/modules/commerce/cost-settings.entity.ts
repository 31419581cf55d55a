import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

/** Per-order costs for the P&L, in the store's currency; a store without a row uses the defaults. */
export const StoreCostSettings = defineEntity({
  name: 'StoreCostSettings',
  tableName: 'store_cost_settings',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    /** Payment processor's percentage fee in basis points: 290 = 2.9 %. */
    paymentFeePercentBasisPoints: p.integer().default(290),
    paymentFeeFixedMinor: p.integer().default(30),
    shippingCostPerOrderMinor: p.integer().default(0),
    /** COGS as a percentage of net sales for lines whose product has no unit cost; null = unknown (0). */
    defaultCogsPercent: p.decimal('number').precision(5).scale(2).nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type StoreCostSettingsEntity = InferEntity<typeof StoreCostSettings>;
