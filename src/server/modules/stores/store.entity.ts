import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { User } from '../users/user.entity.ts';

export const Store = defineEntity({
  name: 'Store',
  tableName: 'stores',
  properties: {
    id: p.integer().primary().autoincrement(),
    owner: () => p.manyToOne(User).deleteRule('cascade'),
    name: p.string().length(100),
    currency: p.string().length(3).default('GBP'),
    /** IANA zone in which the store's days are bucketed. */
    timezone: p.string().length(64).default('Europe/London'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ properties: ['owner', 'id'] }],
});

export type StoreEntity = InferEntity<typeof Store>;
