import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ReconciliationExplanation } from '../../../shared/integrations.ts';
import { SYNC_RUN_KINDS, SYNC_RUN_STATUSES } from '../../../shared/integrations.ts';
import { PLATFORM_KEYS } from '../../../shared/platforms.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/**
 * One sync of a connection: a window of the platform's history read page by page. `cursor` is the
 * connector's opaque position after the last page whose rows were ingested, so a job retried after a
 * crash continues there (re-reading at most one page, which ingest makes harmless).
 */
export const SyncRun = defineEntity({
  name: 'SyncRun',
  tableName: 'sync_runs',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    connection: () => p.manyToOne(PlatformConnection).deleteRule('cascade'),
    kind: p.enum(SYNC_RUN_KINDS),
    status: p.enum(SYNC_RUN_STATUSES).default('queued'),
    windowSince: p.datetime(),
    windowUntil: p.datetime(),
    cursor: p.text().nullable(),
    rowsDone: p.integer().default(0),
    estimatedTotal: p.integer().nullable(),
    /** Set by cancelSync; the runner checks it between pages. */
    cancelRequested: p.boolean().default(false),
    error: p.text().nullable(),
    /** What the platform let us know without stopping the sync (a missing permission, a token about to expire). */
    warnings: p.json<string[]>().defaultRaw(`'[]'`),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    /** Last progress written: a running run that stops moving for long was lost with its worker. */
    heartbeatAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['store', 'connection', 'createdAt'] }, { properties: ['status'] }],
});
export type SyncRunEntity = InferEntity<typeof SyncRun>;

/** An OAuth authorization in progress: the random `state` sent to the platform, usable once within 10 minutes. */
export const OAuthState = defineEntity({
  name: 'OAuthState',
  tableName: 'oauth_states',
  properties: {
    state: p.string().length(64).primary(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    platform: p.enum(PLATFORM_KEYS),
    /** Shopify: the shop the user typed. */
    shop: p.string().length(255).nullable(),
    redirectUri: p.text(),
    /** SHA-256 of the session id of the browser that started the flow: only that session may finish it. */
    sessionKey: p.string().length(64).nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['store', 'expiresAt'] }],
});
export type OAuthStateEntity = InferEntity<typeof OAuthState>;

/** A webhook delivery we accepted (signature valid): stored before answering, processed by a job. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    connection: () => p.manyToOne(PlatformConnection).deleteRule('cascade'),
    platform: p.enum(PLATFORM_KEYS),
    /** The platform's id of the delivery (X-Shopify-Webhook-Id, X-WC-Webhook-Delivery-ID): the same on its retries. */
    deliveryId: p.string().length(255),
    topic: p.string().length(100),
    payload: p.text(),
    receivedAt: p.datetime().onCreate(() => new Date()),
    processedAt: p.datetime().nullable(),
    error: p.text().nullable(),
  },
  uniques: [{ properties: ['store', 'platform', 'deliveryId'] }],
});
export type WebhookDeliveryEntity = InferEntity<typeof WebhookDelivery>;

export interface ReconciliationDay {
  day: string;
  ourOrders: number;
  sourceOrders: number | null;
  ourNetSales: number;
  sourceNetSales: number | null;
  ourSpend?: number;
  sourceSpend?: number | null;
  /** Ads: the account the day is of (a connection may sync several), and the currency of its figures. */
  accountId?: string;
  currency?: string;
}

/** The latest comparison of a connection's figures with the platform's own (one row per connection). */
export const ReconciliationResult = defineEntity({
  name: 'ReconciliationResult',
  tableName: 'reconciliation_results',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    connection: () => p.manyToOne(PlatformConnection).deleteRule('cascade'),
    checkedAt: p.datetime(),
    fromDay: p.date(),
    toDay: p.date(),
    matches: p.boolean(),
    currency: p.character().length(3),
    ourOrders: p.integer(),
    sourceOrders: p.integer().nullable(),
    ourNetSalesMinor: p.bigint('number'),
    sourceNetSalesMinor: p.bigint('number').nullable(),
    ourSpendMinor: p.bigint('number').nullable(),
    sourceSpendMinor: p.bigint('number').nullable(),
    /** Only the days that differ. */
    days: p.json<ReconciliationDay[]>(),
    explanations: p.json<ReconciliationExplanation[]>(),
  },
  uniques: [{ properties: ['store', 'connection'] }],
});
export type ReconciliationResultEntity = InferEntity<typeof ReconciliationResult>;

/**
 * An account the connection's login reaches on an advertising platform, as last listed by the
 * platform, and whether the user chose to sync it. Managers are listed (their clients are reached
 * through them) but never synced. `access` holds what calls for the account need besides its id.
 */
export const ConnectionAccount = defineEntity({
  name: 'ConnectionAccount',
  tableName: 'connection_accounts',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    connection: () => p.manyToOne(PlatformConnection).deleteRule('cascade'),
    accountId: p.string().length(255),
    name: p.string().length(255),
    currency: p.character().length(3).nullable(),
    timezone: p.string().length(64).nullable(),
    isManager: p.boolean().default(false),
    selected: p.boolean().default(false),
    access: p.json<Record<string, string>>().nullable(),
    listedAt: p.datetime(),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ properties: ['store', 'connection', 'accountId'] }],
});
export type ConnectionAccountEntity = InferEntity<typeof ConnectionAccount>;
