import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Product } from '../commerce/product.entity.ts';
import { Store } from '../stores/store.entity.ts';

// The schema of the competitor price tracker (Migration20261129050000_price_tracker): the service
// reads and writes these tables with SQL (price-tracker.service.ts); the entities keep the snapshot
// true. `store_id` leads every key; a check and an alert reach their store through their tracked page.

/** A competitor page a store tracks against one of its products (or a name and price typed in). */
export const PriceTrackedUrl = defineEntity({
  name: 'PriceTrackedUrl',
  tableName: 'price_tracked_urls',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade').updateRule('no action').foreignKeyName('price_tracked_urls_store_id_fkey'),
    id: p.bigint('string').primary().autoincrement().columnType('bigint').generated('by default as identity'),
    url: p.text(),
    domain: p.string().length(255),
    product: () => p.manyToOne(Product).nullable().joinColumns('store_id', 'product_id').ownColumns('product_id')
      // A deleted product unlinks the page; only product_id is nulled, store_id stays (PostgreSQL 15+).
      .deleteRule('set null ("product_id")').updateRule('no action').foreignKeyName('price_tracked_urls_store_id_product_id_fkey'),
    ownName: p.string().length(200),
    ownPriceMinor: p.bigint('number').nullable(),
    cssSelector: p.string().length(300).nullable(),
    alertThresholdPercent: p.decimal('number').precision(5).scale(2).default(5),
    alertOutOfStock: p.boolean().default(true),
    emailAlerts: p.boolean().default(false),
    status: p.string().length(16).default('pending'),
    errorReason: p.string().length(32).nullable(),
    errorDetail: p.text().nullable(),
    errorStatus: p.smallint().nullable(),
    priceMinor: p.bigint('number').nullable(),
    currency: p.character().length(3).nullable(),
    availability: p.string().length(16).nullable(),
    method: p.string().length(16).nullable(),
    lastCheckedAt: p.datetime().nullable(),
    /** The scheduler's scan reads the pages due (index below); a bulk add saves them due now. */
    nextCheckAt: p.datetime().defaultRaw('now()').index('price_tracked_urls_next_check_at_index'),
    createdAt: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ name: 'price_tracked_urls_store_id_url_key', properties: ['store', 'url'] }],
  checks: [{ name: 'price_tracked_urls_status_check', expression: `"status" in ('pending', 'ok', 'error')` }],
});

/** One check of a tracked page: its price, or the reason it failed (the history the chart draws). */
export const PriceCheck = defineEntity({
  name: 'PriceCheck',
  tableName: 'price_checks',
  properties: {
    storeId: p.integer().primary(),
    id: p.bigint('string').primary().autoincrement().columnType('bigint').generated('by default as identity'),
    trackedUrl: () => p.manyToOne(PriceTrackedUrl).joinColumns('store_id', 'tracked_url_id').ownColumns('tracked_url_id').deleteRule('cascade').updateRule('no action').foreignKeyName('price_checks_store_id_tracked_url_id_fkey'),
    checkedAt: p.datetime().defaultRaw('now()'),
    priceMinor: p.bigint('number').nullable(),
    currency: p.character().length(3).nullable(),
    availability: p.string().length(16).nullable(),
    method: p.string().length(16).nullable(),
    errorReason: p.string().length(32).nullable(),
  },
  primaryKeys: ['storeId', 'id'],
  indexes: [{ name: 'price_checks_url_time_index', properties: ['storeId', 'trackedUrl', 'checkedAt'] }],
});

/** An alert a check raised: the competitor undercuts past the threshold, or sold out. */
export const PriceAlertRecord = defineEntity({
  name: 'PriceAlert',
  tableName: 'price_alerts',
  properties: {
    storeId: p.integer().primary(),
    id: p.bigint('string').primary().autoincrement().columnType('bigint').generated('by default as identity'),
    trackedUrl: () => p.manyToOne(PriceTrackedUrl).joinColumns('store_id', 'tracked_url_id').ownColumns('tracked_url_id').deleteRule('cascade').updateRule('no action').foreignKeyName('price_alerts_store_id_tracked_url_id_fkey'),
    kind: p.string().length(16),
    priceMinor: p.bigint('number').nullable(),
    currency: p.character().length(3).nullable(),
    differencePercent: p.decimal('number').precision(8).scale(1).nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    acknowledgedAt: p.datetime().nullable(),
  },
  primaryKeys: ['storeId', 'id'],
  indexes: [{ name: 'price_alerts_store_time_index', properties: ['storeId', 'createdAt'] }],
  checks: [{ name: 'price_alerts_kind_check', expression: `"kind" in ('undercut', 'out_of_stock')` }],
});

export type PriceTrackedUrlEntity = InferEntity<typeof PriceTrackedUrl>;
export type PriceCheckEntity = InferEntity<typeof PriceCheck>;
export type PriceAlertRecordEntity = InferEntity<typeof PriceAlertRecord>;
