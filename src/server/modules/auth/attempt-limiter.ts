import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { AppError } from '../../errors.ts';

export interface AttemptLimit {
  max: number;
  windowMs: number;
}

/**
 * Counts attempts per key in a sliding window and refuses with 429 and a Retry-After once a key has
 * used up its window. The counters live in PostgreSQL (table `attempt_limits`, one row per scope and
 * key holding the times of the key's recent attempts), so every app process on the database counts
 * the same attempts, and a restart forgets nothing. Times are the database's clock, the one clock
 * all processes share.
 *
 * Each call runs on a pooled connection of its own, outside any transaction of `em`: an attempt
 * stays counted when the request that made it fails and rolls back.
 */
export class AttemptLimiter {
  readonly scope: string;
  readonly limit: AttemptLimit;
  private readonly message: (minutes: number) => string;

  /** `scope` names the counter in the database: unique per limiter (two limiters of one scope share their counts). */
  constructor(scope: string, limit: AttemptLimit, message: (minutes: number) => string) {
    if (!Number.isInteger(limit.max) || limit.max < 1) throw new Error(`Attempt limit ${scope}: max must be a positive integer`);
    if (!Number.isInteger(limit.windowMs) || limit.windowMs < 1) throw new Error(`Attempt limit ${scope}: windowMs must be a positive integer`);
    this.scope = scope;
    this.limit = limit;
    this.message = message;
  }

  /** Throws TOO_MANY_REQUESTS when the key has no attempts left; counts nothing. */
  async assertAllowed(em: EntityManager, key: string): Promise<void> {
    const [row] = await query<{ used: number; retry_ms: number | null }>(
      em,
      `select count(*)::int as used, ${RETRY_MS_SQL} as retry_ms
         from attempt_limits l, unnest(l.hits) as h
        where l.scope = $1 and l.key = $2 and h > now() - $3::float8 * interval '1 millisecond'`,
      [this.scope, key, this.limit.windowMs, this.limit.max],
    );
    if (row && row.used >= this.limit.max) this.refuse(row.retry_ms);
  }

  /** Counts one attempt of the key. */
  async record(em: EntityManager, key: string): Promise<void> {
    await query(em, `${UPSERT_SQL} returning 1`, [this.scope, key, this.limit.windowMs, this.limit.max]);
  }

  /**
   * Checks and counts in one statement: counts the attempt and returns when the key has one left,
   * otherwise throws TOO_MANY_REQUESTS and counts nothing. Concurrent attempts of one key, from any
   * process, queue on the key's row, so no more than `max` get through in a window.
   */
  async consume(em: EntityManager, key: string): Promise<void> {
    const counted = await query(
      em,
      `${UPSERT_SQL}
        where (select count(*) from unnest(l.hits) as h where h > now() - $3::float8 * interval '1 millisecond') < $4::int
        returning 1`,
      [this.scope, key, this.limit.windowMs, this.limit.max],
    );
    if (counted.length > 0) return;
    const [row] = await query<{ retry_ms: number | null }>(
      em,
      `select ${RETRY_MS_SQL} as retry_ms
         from attempt_limits l, unnest(l.hits) as h
        where l.scope = $1 and l.key = $2 and h > now() - $3::float8 * interval '1 millisecond'`,
      [this.scope, key, this.limit.windowMs, this.limit.max],
    );
    this.refuse(row?.retry_ms ?? null);
  }

  /** Forgets the key's attempts (a successful sign-in clears its failures). */
  async reset(em: EntityManager, key: string): Promise<void> {
    await query(em, `delete from attempt_limits where scope = $1 and key = $2`, [this.scope, key]);
  }

  private refuse(retryMs: number | null): never {
    const retryAfterSeconds = Math.max(1, Math.ceil((retryMs ?? this.limit.windowMs) / 1000));
    throw new AppError('TOO_MANY_REQUESTS', this.message(Math.ceil(retryAfterSeconds / 60)), { retryAfterSeconds });
  }
}

/**
 * Adds an attempt at now() to the key's row, keeping only the latest `max` attempts of the window
 * ($3 ms): whether another attempt is allowed and when, depends on them alone.
 * $1 scope, $2 key, $3 window in ms, $4 max.
 */
const UPSERT_SQL = `
  insert into attempt_limits as l (scope, key, hits, expires_at)
  values ($1, $2, array[now()], now() + $3::float8 * interval '1 millisecond')
  on conflict (scope, key) do update
     set hits = coalesce(array(
                  select h from (
                    select h from unnest(l.hits) as h
                     where h > now() - $3::float8 * interval '1 millisecond'
                     order by h desc limit $4::int - 1
                  ) as kept order by h), '{}') || array[now()],
         expires_at = greatest(l.expires_at, now() + $3::float8 * interval '1 millisecond')`;

/**
 * When a refused key gets an attempt back: its window's attempts are over the limit, and the
 * oldest of the latest `max` ($4) leaves the window first. $3 is the window in ms.
 */
const RETRY_MS_SQL = `ceil(extract(epoch from (
    (array_agg(h order by h desc))[$4::int] + $3::float8 * interval '1 millisecond' - now())) * 1000)::int`;

async function query<T extends object = object>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  // The pool's client, never the transaction `em` may be in (see AttemptLimiter).
  const result = await em.getConnection().getClient().executeQuery<T>(CompiledQuery.raw(sql, params));
  return result.rows as T[];
}

/**
 * Deletes the counters whose latest attempt has left its window (they count nothing any more; a
 * key that comes back starts a new row). Every app process runs it hourly; running it twice is harmless.
 */
export async function deleteExpiredAttempts(em: EntityManager): Promise<number> {
  const deleted = await query<{ n: number }>(em, `with gone as (delete from attempt_limits where expires_at < now() returning 1) select count(*)::int as n from gone`, []);
  return deleted[0]?.n ?? 0;
}

export interface AuthRateLimits {
  /** Sign-in attempts from one client address. */
  loginPerIp: AttemptLimit;
  /** Failed sign-ins for one username from one client address: a guesser elsewhere cannot lock out the owner. */
  loginFailuresPerUsernameAndIp: AttemptLimit;
  /** Failed sign-ins for one username from all addresses together: the backstop against guessing from many addresses. */
  loginFailuresPerUsername: AttemptLimit;
  registrationsPerIp: AttemptLimit;
  /** Answers saying that a username or e-mail address belongs to an account (registration, e-mail change). */
  takenAnswersPerIp: AttemptLimit;
}

export const DEFAULT_AUTH_RATE_LIMITS: AuthRateLimits = {
  loginPerIp: { max: 30, windowMs: 15 * 60_000 },
  loginFailuresPerUsernameAndIp: { max: 5, windowMs: 15 * 60_000 },
  loginFailuresPerUsername: { max: 50, windowMs: 60 * 60_000 },
  registrationsPerIp: { max: 10, windowMs: 60 * 60_000 },
  takenAnswersPerIp: { max: 5, windowMs: 60 * 60_000 },
};

export const tryAgainIn = (what: string) => (minutes: number) =>
  `Too many ${what}. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

export function createAuthLimiters(limits: AuthRateLimits = DEFAULT_AUTH_RATE_LIMITS) {
  return {
    loginPerIp: new AttemptLimiter('login-ip', limits.loginPerIp, tryAgainIn('sign-in attempts')),
    loginFailuresPerUsernameAndIp: new AttemptLimiter('login-failures-username-ip', limits.loginFailuresPerUsernameAndIp, tryAgainIn('failed sign-in attempts')),
    loginFailuresPerUsername: new AttemptLimiter('login-failures-username', limits.loginFailuresPerUsername, tryAgainIn('failed sign-in attempts for this account')),
    registrationsPerIp: new AttemptLimiter('registration-ip', limits.registrationsPerIp, tryAgainIn('registrations from this network')),
    takenAnswersPerIp: new AttemptLimiter('taken-answers-ip', limits.takenAnswersPerIp, tryAgainIn('attempts with names or addresses already in use')),
  };
}
export type AuthLimiters = ReturnType<typeof createAuthLimiters>;
