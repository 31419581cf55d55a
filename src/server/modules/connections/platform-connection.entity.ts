import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CONNECTION_STATUSES, DEFAULT_BACKFILL_MONTHS } from '../../../shared/integrations.ts';
import { PLATFORM_KEYS } from '../../../shared/platforms.ts';
import { Store } from '../stores/store.entity.ts';

/**
 * One platform account linked to a store. The integrations module connects and syncs it; the header
 * reports its health (`connected`, `lastCheckedAt`). Credentials are kept only sealed (AES-256-GCM,
 * bound to `connection:<id>:<platform>`) and are deleted on disconnect; the synced data stays.
 */
export const PlatformConnection = defineEntity({
  name: 'PlatformConnection',
  tableName: 'platform_connections',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    platform: p.enum(PLATFORM_KEYS),
    /** Whether the credentials work (status connected or syncing): what GET /api/connection-status says. */
    connected: p.boolean().default(false),
    status: p.enum(CONNECTION_STATUSES).default('not_connected'),
    lastCheckedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** credential-vault.ts output; null when disconnected. */
    sealedCredentials: p.text().nullable(),
    /** The platform's id of the account (Shopify shop domain, ad account id...): finds the connection of a webhook. */
    accountId: p.string().length(255).nullable(),
    accountName: p.string().length(255).nullable(),
    /** The account's own currency when the platform says (prices Shopify refund webhooks). */
    accountCurrency: p.character().length(3).nullable(),
    /** The account's IANA time zone when the platform says (a shop's days; an ad account's reporting days). */
    accountTimezone: p.string().length(64).nullable(),
    connectedAt: p.datetime().nullable(),
    /** End of the last successful run's window: where the next incremental sync starts (minus an overlap). */
    syncedUntil: p.datetime().nullable(),
    lastSyncAt: p.datetime().nullable(),
    rowsSynced: p.bigint('number').default(0),
    lastError: p.text().nullable(),
    disconnectReason: p.text().nullable(),
    backfillMonths: p.smallint().default(DEFAULT_BACKFILL_MONTHS),
    /**
     * Ads and e-mail platforms: when a sync last re-read the long restatement window (90 days); the
     * other incremental syncs re-read 28 days. Null: never.
     */
    deepRestatedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ['store', 'platform'] }],
  indexes: [{ properties: ['platform', 'accountId'] }],
});

export type PlatformConnectionEntity = InferEntity<typeof PlatformConnection>;
