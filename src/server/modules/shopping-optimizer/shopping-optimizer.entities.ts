import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { FEED_ATTRIBUTES, PAGE_CHECK_STATUSES, type PageCheckResult } from '../../../shared/shopping-optimizer.ts';
import { Store } from '../stores/store.entity.ts';

/** A store's shopping feed: the secret of its public address and the defaults its suggestions use. */
export const ShoppingFeedSettings = defineEntity({
  name: 'ShoppingFeedSettings',
  tableName: 'shopping_feed_settings',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    /** The random part of /feeds/google/<storeId>-<secret>.xml. */
    secret: p.string().length(64),
    linkTemplate: p.text().default(''),
    defaultBrand: p.string().length(70).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

/** An accepted or edited feed value of one product; the shop itself is never changed. */
export const ShoppingFeedOverride = defineEntity({
  name: 'ShoppingFeedOverride',
  tableName: 'shopping_feed_overrides',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    /** products.id of the same store. */
    productId: p.bigint('number').primary(),
    attribute: p.enum(FEED_ATTRIBUTES).primary(),
    value: p.text(),
    source: p.enum(['rules', 'llm', 'user'] as const),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  primaryKeys: ['store', 'productId', 'attribute'],
});

export type ShoppingFeedSettingsEntity = InferEntity<typeof ShoppingFeedSettings>;
export type ShoppingFeedOverrideEntity = InferEntity<typeof ShoppingFeedOverride>;

/** A store's last "Check product pages" run: its progress, and per product what the page said. */
export const ShoppingPageCheck = defineEntity({
  name: 'ShoppingPageCheck',
  tableName: 'shopping_page_checks',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    status: p.enum(PAGE_CHECK_STATUSES).default('queued'),
    checked: p.integer().default(0),
    total: p.integer().default(0),
    results: p.json<PageCheckResult[]>().default('[]'),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The run's last sign of life (queued, or a page read): a run silent for long was lost with its process. */
    updatedAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
});
export type ShoppingPageCheckEntity = InferEntity<typeof ShoppingPageCheck>;
