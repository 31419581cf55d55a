import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobDefinition } from '../../jobs/queues.ts';
import { DEFAULT_RETENTION_MONTHS } from '../../../shared/tracking.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { partitionOf } from './event-writer.ts';
import { deleteOldSalts } from './privacy.ts';
import { buildAllSessions } from './sessions.ts';

// The tracking jobs (pg-boss, jobs/queues.ts): sessions every minute; once a day the month partitions
// ahead, each store's retention, and the expired salts.

export const TRACKING_SESSIONS_QUEUE = 'tracking.sessions';
export const TRACKING_MAINTENANCE_QUEUE = 'tracking.maintenance';
/** Months of partitions made ahead of the current one, so that writes never wait for DDL. */
export const PARTITIONS_AHEAD = 2;

function addMonths(date: Date, months: number): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
}

/** The partitions of this month and the next PARTITIONS_AHEAD (the collector makes any other at write time). */
export async function ensurePartitionsAhead(em: EntityManager, now = new Date()): Promise<string[]> {
  const partitions = Array.from({ length: PARTITIONS_AHEAD + 1 }, (_, index) => partitionOf(addMonths(now, index)));
  await em.transactional(async (tx) => {
    const sql = sqlRunner(tx);
    await sql.run(`select pg_advisory_xact_lock(hashtext('storepulse.tracking-partitions'))`);
    for (const partition of partitions) {
      await sql.run(`create table if not exists "${partition.name}" partition of tracking_events for values from ('${partition.from}') to ('${partition.to}')`);
    }
  });
  return partitions.map((partition) => partition.name);
}

/**
 * Each store's retention (default 25 months): its events, purchases, sessions and touchpoints older
 * than that are deleted; month partitions wholly older than every store's retention are dropped.
 */
export async function applyRetention(em: EntityManager, now = new Date()): Promise<{ deleted: number; droppedPartitions: string[] }> {
  const sql = sqlRunner(em);
  const stores = await sql.rows<{ store_id: number; retention_months: number }>(`select store_id, retention_months from tracking_settings`);
  let deleted = 0;
  for (const store of stores) {
    const before = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - store.retention_months, now.getUTCDate(), now.getUTCHours(), now.getUTCMinutes()));
    for (const [table, column] of [['tracking_events', 'occurred_at'], ['tracking_purchases', 'occurred_at'], ['tracking_touchpoints', 'occurred_at'], ['tracking_sessions', 'last_event_at']] as const) {
      deleted += await sql.run(`delete from ${table} where store_id = $1 and ${column} < $2`, [store.store_id, before]);
    }
  }
  const longest = Math.max(DEFAULT_RETENTION_MONTHS, ...stores.map((store) => store.retention_months));
  const oldestKept = addMonths(now, -longest);
  const partitions = await sql.rows<{ name: string; upper: string }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as upper from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'tracking_events'::regclass`,
  );
  const droppedPartitions: string[] = [];
  for (const partition of partitions) {
    const match = /^tracking_events_y(\d{4})m(\d{2})$/.exec(partition.name);
    if (!match) continue;
    const end = new Date(Date.UTC(Number(match[1]), Number(match[2]), 1));
    if (end <= oldestKept) {
      await sql.run(`drop table if exists "${partition.name}"`);
      droppedPartitions.push(partition.name);
    }
  }
  return { deleted, droppedPartitions };
}

/**
 * Deletes everything tracked of one customer of a store, by the SHA-256 of their e-mail (GDPR
 * erasure; the platforms' redact webhooks call it): the events carrying the hash, and every event,
 * purchase, session and touchpoint of the browsers (anonymous ids) that ever carried it.
 */
export async function deleteTrackedCustomer(em: EntityManager, storeId: number, emailHash: string): Promise<{ events: number; purchases: number; sessions: number; touchpoints: number }> {
  return em.transactional(async (tx) => {
    const sql = sqlRunner(tx);
    const ids = (
      await sql.rows<{ anonymous_id: string }>(
        `select distinct anonymous_id from tracking_events where store_id = $1 and email_hash = $2 and anonymous_id is not null
         union select anonymous_id from tracking_purchases where store_id = $1 and email_hash = $2 and anonymous_id is not null
         union select anonymous_id from tracking_sessions where store_id = $1 and email_hash = $2 and anonymous_id is not null`,
        [storeId, emailHash],
      )
    ).map((row) => row.anonymous_id);
    const emailKey = `e:${emailHash.slice(0, 62)}`;
    const events = await sql.run(`delete from tracking_events where store_id = $1 and (email_hash = $2 or anonymous_id = any($3::text[]))`, [storeId, emailHash, ids]);
    const purchases = await sql.run(`delete from tracking_purchases where store_id = $1 and (email_hash = $2 or anonymous_id = any($3::text[]))`, [storeId, emailHash, ids]);
    const touchpoints = await sql.run(`delete from tracking_touchpoints where store_id = $1 and (anonymous_id = any($2::text[]) or visitor_key = $3)`, [storeId, ids, emailKey]);
    const sessions = await sql.run(`delete from tracking_sessions where store_id = $1 and (email_hash = $2 or anonymous_id = any($3::text[]) or visitor_key = $4)`, [storeId, emailHash, ids, emailKey]);
    return { events, purchases, sessions, touchpoints };
  });
}

export const TRACKING_JOBS: readonly JobDefinition[] = [
  {
    queue: TRACKING_SESSIONS_QUEUE,
    cron: '* * * * *',
    retryLimit: 2,
    retryDelaySeconds: 30,
    expireInSeconds: 15 * 60,
    deleteAfterSeconds: 3600,
    handle: (context) => buildAllSessions(() => context.em.fork(), context.log),
  },
  {
    queue: TRACKING_MAINTENANCE_QUEUE,
    cron: '17 3 * * *',
    retryLimit: 3,
    handle: async (context) => {
      await ensurePartitionsAhead(context.em.fork());
      await applyRetention(context.em.fork());
      await deleteOldSalts(context.em.fork());
    },
  },
];
