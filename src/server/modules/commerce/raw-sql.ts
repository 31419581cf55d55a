import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { CompiledQuery } from 'kysely';

/**
 * Set-based SQL with real bind parameters ($1, $2, ...), on the EntityManager's connection: inside
 * `em.transactional(...)` it runs in that transaction. Large batches travel as one array per column
 * (`unnest($n::text[], ...)`, see recordset), so the SQL text stays the same whatever the batch
 * size. Cast bigint, numeric and date results in the SQL (::int, ::text, to_char): the driver
 * returns int8 and numeric as strings.
 */
export interface SqlRunner {
  rows<T extends object>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
}

/** Runners pinned to an EntityManager by pipelinedTransaction: sqlRunner(em) returns them. */
const pinnedRunners = new WeakMap<EntityManager, SqlRunner>();

export function sqlRunner(em: EntityManager): SqlRunner {
  const pinned = pinnedRunners.get(em);
  if (pinned) return pinned;
  const kysely = em.getKysely();
  return {
    async rows<T extends object>(sql: string, params: unknown[] = []) {
      const result = await kysely.executeQuery<T>(CompiledQuery.raw(sql, params));
      return result.rows as T[];
    },
    async run(sql: string, params: unknown[] = []) {
      const result = await kysely.executeQuery(CompiledQuery.raw(sql, params));
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

/**
 * Runs `work` as one transaction on a connection of its own in node-postgres' pipeline mode: a
 * statement goes to the database as soon as it is issued, even while others are still running, so
 * that work issuing statements from two flows at once (a bulk load writing two batches) keeps the
 * database busy. On the ORM's transaction connection each statement is only sent once the previous
 * one's result has been handed back through the promise chain, and the database waits meanwhile
 * (1M demo orders: the backend was busy ~70 % of the time).
 *
 * `work`'s statements must all go through sqlRunner(tx): the EntityManager it is given runs its SQL
 * there, but the ORM's own calls on it (find, flush) would run outside the transaction.
 */
export async function pipelinedTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  const pool = (await em.getConnection().getNativeClient()) as pg.Pool;
  // The pool keeps the password out of its options' enumerable keys.
  const client = new pg.Client({ ...pool.options, password: pool.options.password, pipeline: true });
  // A broken connection also fails the statements in flight, which is what reports it.
  client.on('error', () => {});
  await client.connect();
  const tx = em.fork();
  pinnedRunners.set(tx, {
    async rows<T extends object>(sql: string, params: unknown[] = []) {
      return (await client.query<T>(sql, params)).rows;
    },
    async run(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rowCount ?? 0;
    },
  });
  try {
    await client.query('begin');
    const result = await work(tx);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A read that runs again and again with the same text (the dashboard's KPI statement) as a named
 * prepared statement: each pooled connection plans it once instead of on every request (planning is
 * ~3 ms of the KPI statement's ~20 ms on the 1M-order store). Inside a transaction it runs like
 * `rows`, on the transaction's connection.
 */
export async function preparedRows<T extends object>(em: EntityManager, name: string, sql: string, params: unknown[]): Promise<T[]> {
  if (em.isInTransaction() || pinnedRunners.has(em)) return sqlRunner(em).rows<T>(sql, params);
  const pool = await em.getConnection().getNativeClient();
  const result = await pool.query({ name, text: sql, values: params });
  return result.rows as T[];
}

/** A JS number from a bigint or numeric column (sums of minor units stay far below 2^53). */
export function num(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}

export type ArrayElementType = 'text' | 'bigint' | 'int' | 'float8' | 'boolean' | 'timestamptz' | 'date';

type ArrayElement = string | number | boolean | null | undefined;

const NEEDS_ESCAPE = /[\\"]/;

/** A PostgreSQL array literal of the values, every text element quoted (so "NULL" and "" stay text). */
export function arrayLiteral(values: readonly ArrayElement[]): string {
  let literal = '{';
  for (let index = 0; index < values.length; index++) {
    if (index > 0) literal += ',';
    const value = values[index];
    if (value === null || value === undefined) literal += 'NULL';
    else if (typeof value === 'number') literal += String(value);
    else if (typeof value === 'boolean') literal += value ? 't' : 'f';
    else literal += `"${NEEDS_ESCAPE.test(value) ? value.replace(/[\\"]/g, '\\$&') : value}"`;
  }
  return `${literal}}`;
}

/**
 * Rows as one array parameter per column: `from` is `unnest($n::type[], ...) as x(column, ...)` with
 * the parameters numbered from `firstParameter`, and `parameters(rows)` gives their values. PostgreSQL
 * reads these arrays at about twice the speed of the same rows as JSON objects (json_to_recordset
 * builds a hash table per object; 5,000 orders: 120 ms as JSON, 65 ms as arrays), and they are half
 * the bytes.
 */
export function recordset<Row>(columns: readonly (readonly [column: keyof Row & string, type: ArrayElementType])[], firstParameter: number) {
  const arrays = columns.map(([, type], index) => `$${firstParameter + index}::${type}[]`);
  return {
    from: `unnest(${arrays.join(', ')}) as x(${columns.map(([column]) => column).join(', ')})`,
    parameters(rows: readonly Row[]): string[] {
      return columns.map(([column]) => {
        const values = new Array<ArrayElement>(rows.length);
        for (let index = 0; index < rows.length; index++) values[index] = rows[index]![column] as ArrayElement;
        return arrayLiteral(values);
      });
    },
  };
}
