import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

// The rollup tables are maintained by ingest.ts in the same transaction as the raw rows (see
// rollups.ts for what each order, refund and metric row contributes) and can be recomputed from
// scratch with `npm run admin -- rebuild-rollups --store <id>`. Money stays in the currency it was
// taken in (one row per currency); readers convert each row at its day's FX rate.

const counter = () => p.integer().default(0);
const money = () => p.bigint('number').default(0);

/** One store-day in one currency. Order columns count on the placed day, refund columns on the refund day. */
export const DailyRollup = defineEntity({
  name: 'DailyRollup',
  tableName: 'daily_rollups',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    day: p.date().primary(),
    currency: p.character().length(3).primary(),
    ordersCount: counter(),
    grossMinor: money(),
    discountsMinor: money(),
    refundsMinor: money(),
    shippingMinor: money(),
    taxesMinor: money(),
    /** gross - discounts of the day's orders, minus the refunds made that day. */
    netSalesMinor: money(),
    newCustomerOrders: counter(),
    returningCustomerOrders: counter(),
    /** gross - discounts - refunds (whenever refunded) of the day's orders from new and from returning customers. */
    newCustomerNetMinor: money(),
    returningCustomerNetMinor: money(),
    /** Known customers whose first order was placed that day. */
    newCustomers: counter(),
    units: counter(),
    /** Quantity x unit cost of the day's lines whose cost is known. */
    cogsMinor: money(),
    /** Net line value of the day's lines whose cost is unknown (for the P&L's default COGS %). */
    uncostedSalesMinor: money(),
    // Cohort columns, on the day of the customers' first order: net sales of those customers'
    // orders placed within N days of it (LTV = ltvNetN / newCustomers).
    ltvNet30Minor: money().fieldName('ltv_net_30_minor'),
    ltvNet60Minor: money().fieldName('ltv_net_60_minor'),
    ltvNet90Minor: money().fieldName('ltv_net_90_minor'),
    ltvNet180Minor: money().fieldName('ltv_net_180_minor'),
    ltvNet365Minor: money().fieldName('ltv_net_365_minor'),
    // The day's marketing in this currency, summed over its channel rows (so that a day's totals are
    // one row, not one per channel): ad and e-mail spend, the advertising part of it, clicks.
    spendMinor: money(),
    adSpendMinor: money(),
    clicks: money(),
  },
  primaryKeys: ['store', 'day', 'currency'],
});

export type DailyRollupEntity = InferEntity<typeof DailyRollup>;

/**
 * One store-day per channel in one currency: orders and net sales attributed to the channel, and
 * what the platform of the same key reported (spend, impressions, clicks, its own conversions).
 */
export const ChannelDailyRollup = defineEntity({
  name: 'ChannelDailyRollup',
  tableName: 'channel_daily_rollups',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    day: p.date().primary(),
    channel: p.string().length(32).primary(),
    currency: p.character().length(3).primary(),
    ordersCount: counter(),
    netSalesMinor: money(),
    newCustomers: counter(),
    spendMinor: money(),
    impressions: money(),
    clicks: money(),
    platformConversions: p.decimal('number').precision(20).scale(6).default(0),
    platformConversionValueMinor: money(),
  },
  primaryKeys: ['store', 'day', 'channel', 'currency'],
});

export type ChannelDailyRollupEntity = InferEntity<typeof ChannelDailyRollup>;

/**
 * One store-day per product in one currency: the lines of the day's counting orders, by catalogue
 * product ('product:<id>') or, for lines without one, by their title ('title:<title>'). Revenue by
 * product, the product distribution and product reports read these instead of every order line.
 */
export const ProductDailyRollup = defineEntity({
  name: 'ProductDailyRollup',
  tableName: 'product_daily_rollups',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    day: p.date().primary(),
    productKey: p.text().primary(),
    currency: p.character().length(3).primary(),
    /** Counting orders with at least one line of the product. */
    ordersCount: counter(),
    units: counter(),
    /** Quantity x unit price - discount of the lines. */
    netSalesMinor: money(),
    /** Quantity x unit cost of the lines whose cost is known, and their net value. */
    cogsMinor: money(),
    costedNetMinor: money(),
    costedLines: counter(),
  },
  primaryKeys: ['store', 'day', 'productKey', 'currency'],
});

export type ProductDailyRollupEntity = InferEntity<typeof ProductDailyRollup>;
