import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Answers of data procedures kept in this process under (store, procedure, input) together with the
 * data version they were computed at; an answer is served only while its store's data version is
 * unchanged, so it is never stale. The versions are counters in the table cache_versions, moved by
 * triggers (Migration20261128030000_cache_versions): 'store:<id>' with every write to what the
 * store's answers are made of, 'attribution:<id>' with every write to its attribution credits and
 * tracking settings (Migration20261128170000_attribution_cache_scope; only the attribution answers
 * follow it), 'fx' with every exchange-rate write. Each app process keeps its own cache and reads the
 * shared counters, so a write made by any process is seen by all at once.
 *
 * The answers depend only on (store, input): never on who asks. Who may ask is checked before an
 * answer is looked up (storeProcedure, or the HTTP fast path's grant, answer-cache-plugin.ts).
 */

export interface CachedAnswer {
  /** The data version ('<store counter>.<fx counter>') the answer was computed at. */
  version: string;
  value: unknown;
  /** The tRPC HTTP body of a single call answering `value` (UTF-8, encoded once) and its ETag, once a request sent it. */
  body?: Buffer;
  etag?: string;
}

/** A Map used as a least-recently-used cache of at most `limit` entries. */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** At most this many answers per process (a 365-day KPI answer is ~60 kB: ~120 MB at worst). */
export const ANSWER_LIMIT = 2000;

/** One per app (AppServices.answers): an app's answers belong to its database's store ids and counters. */
export function createAnswerCache(limit = ANSWER_LIMIT): BoundedCache<CachedAnswer> {
  return new BoundedCache<CachedAnswer>(limit);
}

export interface Versions {
  /** Moves with every write that can change who may see what (cache_versions 'auth'). */
  auth: string;
  /** The data version of the procedure's answers: '<store counter>.<attribution counter or 0>.<fx counter>'. */
  data: string;
}

/** Whether a procedure's answers are made of the attribution tables too (and so follow their counter). */
export function followsAttribution(procedure: string): boolean {
  return procedure.startsWith('attribution.');
}

// One small statement: the counters, by primary key. A named statement, so PostgreSQL plans it once per connection.
const VERSIONS_QUERY = {
  name: 'answer-cache-versions',
  text: `select (select version from cache_versions where scope = 'auth')::text as auth,
                coalesce((select version from cache_versions where scope = $1), 0)::text || '.' ||
                coalesce((select version from cache_versions where scope = $2), 0)::text || '.' ||
                coalesce((select version from cache_versions where scope = 'fx'), 0)::text as data`,
};

/** The counters for a procedure's answers on a store (null: the 'auth' counter only matters). */
export async function versionsOnPool(pool: pg.Pool, storeId: number | null, procedure = ''): Promise<Versions> {
  const store = storeId === null ? '' : `store:${storeId}`;
  const attribution = storeId !== null && followsAttribution(procedure) ? `attribution:${storeId}` : '';
  const result = await pool.query<Versions>({ ...VERSIONS_QUERY, values: [store, attribution] });
  return result.rows[0]!;
}

export async function poolOf(em: EntityManager): Promise<pg.Pool> {
  return (await em.getConnection().getNativeClient()) as pg.Pool;
}

/** JSON with object keys sorted, so equal inputs give equal cache keys whatever their key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function answerKey(storeId: number, procedure: string, input: unknown): string {
  return `${storeId}\n${procedure}\n${stableJson(input)}`;
}

/** What a procedure tells the HTTP layer about the answer it gave (answer-cache-plugin.ts). */
export type AnswerNote = (note: { key: string; storeId: number; version: string }) => void;

/**
 * The answer of `procedure` for `input` on the store: the cached one if the store's data version
 * has not moved since, else `compute()`'s, cached. The version is read before computing, so a
 * write landing meanwhile moves it past the cached answer (which is then recomputed, never stale).
 * `keep`: whether an answer may be kept (one computed from data no version follows is not).
 */
export async function cachedAnswer<T>(
  ctx: { em: EntityManager; noteAnswer?: AnswerNote | null; services: { answers: BoundedCache<CachedAnswer> } },
  procedure: string,
  storeId: number,
  input: unknown,
  compute: () => Promise<T>,
  options: { keep?: (value: T) => boolean } = {},
): Promise<T> {
  const { data: version } = await versionsOnPool(await poolOf(ctx.em), storeId, procedure);
  const key = answerKey(storeId, procedure, input);
  const answers = ctx.services.answers;
  let entry = answers.get(key);
  if (!entry || entry.version !== version) {
    entry = { version, value: await compute() };
    // An answer made of data the versions do not follow is given, not kept.
    if (options.keep && !options.keep(entry.value as T)) answers.delete(key);
    else answers.set(key, entry);
  }
  ctx.noteAnswer?.({ key, storeId, version });
  return entry.value as T;
}

export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}
