import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

/**
 * One product's day in an ad account's shopping reports (Google Ads shopping_performance_view), as the
 * platform reports it: its own day and currency, the product by the item id the platform gives (the
 * Merchant Center offer id, the feed's g:id). Cost and conversion value are exact decimals of the
 * account's currency (cost_micros / 1e6).
 */
export const ProductAdMetricDaily = defineEntity({
  name: 'ProductAdMetricDaily',
  tableName: 'product_ad_metrics_daily',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    platform: p.string().length(32).primary(),
    accountId: p.string().length(64).primary(),
    productItemId: p.string().length(150).primary(),
    day: p.date().primary(),
    currency: p.character().length(3),
    clicks: p.bigint('number').default(0),
    impressions: p.bigint('number').default(0),
    cost: p.decimal('number').precision(20).scale(6).default(0),
    /** The platform's own (often fractional, modelled) conversions. */
    conversions: p.double().default(0),
    conversionValue: p.decimal('number').precision(20).scale(6).default(0),
  },
  primaryKeys: ['store', 'platform', 'accountId', 'productItemId', 'day'],
  indexes: [{ properties: ['store', 'day'] }],
});

export type ProductAdMetricDailyEntity = InferEntity<typeof ProductAdMetricDaily>;
