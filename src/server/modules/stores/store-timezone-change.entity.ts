import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TIMEZONE_CHANGE_STATUSES } from '../../../shared/stores.ts';
import { Store } from './store.entity.ts';

/**
 * A change of a store's time zone that rebuilds its figures (store-timezone.service.ts): queued by
 * the request, run by the `stores.timezone` job. Progress (rows_done of rows_total, updated_at as the
 * heartbeat) is written from outside the job's transaction, so the screen can show it while readers
 * still see the old figures; the status turns 'succeeded' in the same commit as the new figures.
 * At most one change per store is queued or running (the partial unique index).
 */
export const StoreTimezoneChange = defineEntity({
  name: 'StoreTimezoneChange',
  tableName: 'store_timezone_changes',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.integer().primary().autoincrement(),
    fromTimezone: p.string().length(64),
    toTimezone: p.string().length(64),
    status: p.enum(TIMEZONE_CHANGE_STATUSES).default('queued'),
    rowsDone: p.integer().default(0),
    rowsTotal: p.integer().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    /** The last progress write: a running change that has not moved for long lost its worker. */
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
  primaryKeys: ['store', 'id'],
  uniques: [{ name: 'store_timezone_changes_pending_unique', properties: ['store'], where: `status in ('queued', 'running')` }],
});

export type StoreTimezoneChangeEntity = InferEntity<typeof StoreTimezoneChange>;
