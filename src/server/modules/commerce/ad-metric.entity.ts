import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

/** One campaign's day on an advertising platform, as the platform reports it (its own day and currency). */
export const AdMetricDaily = defineEntity({
  name: 'AdMetricDaily',
  tableName: 'ad_metrics_daily',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    platform: p.string().length(32).primary(),
    accountId: p.string().length(64).primary(),
    campaignId: p.string().length(64).primary(),
    day: p.date().primary(),
    campaignName: p.string().length(255),
    currency: p.character().length(3),
    impressions: p.bigint('number').default(0),
    clicks: p.bigint('number').default(0),
    spendMinor: p.bigint('number').default(0),
    /** The platform's own (often fractional, modelled) conversions. */
    conversions: p.double().default(0),
    conversionValueMinor: p.bigint('number').default(0),
  },
  primaryKeys: ['store', 'platform', 'accountId', 'campaignId', 'day'],
  indexes: [{ properties: ['store', 'platform', 'day'] }, { properties: ['store', 'currency', 'day'] }],
});

export type AdMetricDailyEntity = InferEntity<typeof AdMetricDaily>;
