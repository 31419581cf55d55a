import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from 'pg-boss';
import { sqlRunner } from '../modules/commerce/raw-sql.ts';

/** pg-boss's schema in the app's database. */
export const JOBS_SCHEMA = 'pgboss';

/**
 * pg-boss's `db` option over an EntityManager's connection: passed to send() inside
 * em.transactional(...), the job is created in that transaction, so it exists exactly when the rows
 * written with it do (https://pgboss.io/api/adapters: "If the transaction rolls back, so does the job").
 */
export function jobDatabaseOf(em: EntityManager): Db {
  const q = sqlRunner(em);
  return { executeSql: async (text, values = []) => ({ rows: await q.rows<Record<string, unknown>>(text, values) }) };
}
