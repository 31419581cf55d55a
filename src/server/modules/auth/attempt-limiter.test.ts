import { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { ormConfig } from '../../../../mikro-orm.config.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { AppError } from '../../errors.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { AttemptLimiter, deleteExpiredAttempts, tryAgainIn } from './attempt-limiter.ts';

const database = useTestDatabase();
const FIFTEEN_MINUTES = 15 * 60_000;

const limiter = (scope: string, max = 3, windowMs = FIFTEEN_MINUTES) => new AttemptLimiter(scope, { max, windowMs }, tryAgainIn('attempts'));

/** The refusal a call ended with (or null when it was allowed). */
async function refusal(call: Promise<void>): Promise<AppError | null> {
  try {
    await call;
    return null;
  } catch (error) {
    if (error instanceof AppError && error.code === 'TOO_MANY_REQUESTS') return error;
    throw error;
  }
}

/** Moves a key's counted attempts `minutes` into the past, as if that much time had gone by. */
async function age(scope: string, key: string, minutes: number) {
  await sqlRunner(database.orm.em.fork()).run(
    `update attempt_limits set hits = array(select h - $3 * interval '1 minute' from unnest(hits) as h order by h), expires_at = expires_at - $3 * interval '1 minute'
      where scope = $1 and key = $2`,
    [scope, key, minutes],
  );
}

describe('AttemptLimiter (counters in PostgreSQL)', () => {
  it('lets max attempts through in the window, refuses the next with the time until the oldest leaves it, and allows again after', async () => {
    const em = database.orm.em.fork();
    const limit = limiter('window');
    for (let i = 0; i < 3; i += 1) expect(await refusal(limit.consume(em, '203.0.113.1'))).toBeNull();
    const refused = await refusal(limit.consume(em, '203.0.113.1'));
    // Just counted: 15 minutes (900 s) until the oldest of the 3 leaves the window.
    expect(refused?.retryAfterSeconds).toBeGreaterThan(890);
    expect(refused?.retryAfterSeconds).toBeLessThanOrEqual(900);
    expect(refused?.message).toBe('Too many attempts. Please try again in 15 minutes.');

    // 10 minutes later: 5 minutes (300 s) to go.
    await age('window', '203.0.113.1', 10);
    const later = await refusal(limit.consume(em, '203.0.113.1'));
    expect(later?.retryAfterSeconds).toBeGreaterThan(290);
    expect(later?.retryAfterSeconds).toBeLessThanOrEqual(300);
    expect(later?.message).toBe('Too many attempts. Please try again in 5 minutes.');

    // 16 minutes after the three: they have left the window, so three more are allowed.
    await age('window', '203.0.113.1', 6);
    for (let i = 0; i < 3; i += 1) expect(await refusal(limit.consume(em, '203.0.113.1'))).toBeNull();
    expect(await refusal(limit.consume(em, '203.0.113.1'))).not.toBeNull();
  });

  it('counts per limiter and key; another limiter object of the same scope (another process) sees the same counts', async () => {
    const em = database.orm.em.fork();
    for (let i = 0; i < 3; i += 1) await limiter('per-key').consume(em, 'a');
    expect(await refusal(limiter('per-key').assertAllowed(em, 'a'))).not.toBeNull();
    expect(await refusal(limiter('per-key').assertAllowed(em, 'b'))).toBeNull();
    expect(await refusal(limiter('other-scope').assertAllowed(em, 'a'))).toBeNull();
  });

  it('record counts without checking; assertAllowed checks without counting; reset forgets', async () => {
    const em = database.orm.em.fork();
    const limit = limiter('record', 2);
    await limit.assertAllowed(em, 'user');
    await limit.assertAllowed(em, 'user');
    await limit.assertAllowed(em, 'user');
    await limit.record(em, 'user');
    expect(await refusal(limit.assertAllowed(em, 'user'))).toBeNull();
    await limit.record(em, 'user');
    expect(await refusal(limit.assertAllowed(em, 'user'))).not.toBeNull();
    await limit.reset(em, 'user');
    expect(await refusal(limit.assertAllowed(em, 'user'))).toBeNull();
  });

  it('lets exactly max of many concurrent attempts through, from two connection pools at once', async () => {
    const second = await MikroORM.init(ormConfig(database.url));
    try {
      const limit = limiter('concurrent', 5);
      // 12 attempts at once, 6 through each pool (as two app processes would): 5 allowed, 7 refused.
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => refusal(limit.consume((i % 2 === 0 ? database.orm : second).em.fork(), 'burst'))),
      );
      expect(outcomes.filter((outcome) => outcome === null)).toHaveLength(5);
      expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(7);
    } finally {
      await second.close(true);
    }
  });

  it('keeps an attempt counted when the transaction of the request that made it rolls back', async () => {
    const limit = limiter('rollback', 1);
    await expect(
      database.orm.em.fork().transactional(async (tx) => {
        await limit.consume(tx, 'key');
        throw new Error('the request failed');
      }),
    ).rejects.toThrow('the request failed');
    expect(await refusal(limit.assertAllowed(database.orm.em.fork(), 'key'))).not.toBeNull();
  });

  it('deletes counters whose window has passed, and only those', async () => {
    const em = database.orm.em.fork();
    await limiter('sweep').consume(em, 'old');
    await limiter('sweep').consume(em, 'recent');
    await age('sweep', 'old', 16);
    await deleteExpiredAttempts(em);
    const left = await sqlRunner(em).rows<{ key: string }>(`select key from attempt_limits where scope = 'sweep' order by key`);
    expect(left).toEqual([{ key: 'recent' }]);
  });

  it('refuses a limit that could never let anything through', () => {
    expect(() => limiter('bad', 0)).toThrow('Attempt limit bad: max must be a positive integer');
  });
});
