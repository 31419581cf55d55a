import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

/** One e-mail campaign's day on an e-mail platform, with the orders and revenue the platform attributes to it. */
export const EmailMetricDaily = defineEntity({
  name: 'EmailMetricDaily',
  tableName: 'email_metrics_daily',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    platform: p.string().length(32).primary(),
    campaignId: p.string().length(64).primary(),
    day: p.date().primary(),
    campaignName: p.string().length(255),
    currency: p.character().length(3),
    sends: p.bigint('number').default(0),
    opens: p.bigint('number').default(0),
    clicks: p.bigint('number').default(0),
    attributedOrders: p.integer().default(0),
    attributedRevenueMinor: p.bigint('number').default(0),
    /** What the sends cost (per-send or SMS fees); 0 when the platform is paid as a flat subscription. */
    spendMinor: p.bigint('number').default(0),
  },
  primaryKeys: ['store', 'platform', 'campaignId', 'day'],
  indexes: [{ properties: ['store', 'platform', 'day'] }],
});

export type EmailMetricDailyEntity = InferEntity<typeof EmailMetricDaily>;
