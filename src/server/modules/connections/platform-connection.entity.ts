import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { PLATFORM_KEYS } from '../../../shared/platforms.ts';
import { Store } from '../stores/store.entity.ts';

/** One platform account linked to a store; the connectors fill it in, the header reports its health. */
export const PlatformConnection = defineEntity({
  name: 'PlatformConnection',
  tableName: 'platform_connections',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    platform: p.enum(PLATFORM_KEYS),
    connected: p.boolean().default(false),
    lastCheckedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['store', 'platform'] }],
});

export type PlatformConnectionEntity = InferEntity<typeof PlatformConnection>;
