import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/**
 * Set-based SQL with real bind parameters ($1, $2, ...), on the EntityManager's connection: inside
 * `em.transactional(...)` it runs in that transaction. Large batches travel as one JSON parameter
 * (`jsonb_to_recordset($n::jsonb)`) or as arrays (`unnest($n::text[])`), so the SQL text stays the same
 * whatever the batch size. Cast bigint, numeric and date results in the SQL (::int, ::text, to_char):
 * the driver returns int8 and numeric as strings.
 */
export interface SqlRunner {
  rows<T extends object>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
}

export function sqlRunner(em: EntityManager): SqlRunner {
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

/** A JS number from a bigint or numeric column (sums of minor units stay far below 2^53). */
export function num(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}
