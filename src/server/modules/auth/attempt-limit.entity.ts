import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The counters of attempt-limiter.ts: per limiter (`scope`) and key (a client address, a username),
 * the times of the key's latest attempts in its window. Written and read with SQL only (the
 * limiter's statements check and count in one step); the entity keeps the schema in the snapshot.
 * Not tenant data: no store_id (under Citus it stays a local table on the coordinator).
 */
export const AttemptLimitCounter = defineEntity({
  name: 'AttemptLimitCounter',
  tableName: 'attempt_limits',
  properties: {
    scope: p.string().length(64).primary(),
    key: p.text().primary(),
    hits: p.type('Date[]').columnType('timestamptz[]'),
    /** When the latest attempt leaves its window: the row can go. */
    expiresAt: p.datetime().index(),
  },
});

export type AttemptLimitCounterEntity = InferEntity<typeof AttemptLimitCounter>;
