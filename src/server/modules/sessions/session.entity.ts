import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    sid: p.string().length(128).primary(),
    data: p.json<Record<string, unknown>>(),
    expiresAt: p.datetime().index(),
  },
});

export type SessionEntity = InferEntity<typeof Session>;
