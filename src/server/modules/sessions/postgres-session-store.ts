import type { SessionStore } from '@fastify/session';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Session as FastifySession } from 'fastify';
import type pg from 'pg';
import { Session } from './session.entity.ts';

const SESSION_QUERY = { name: 'session-get', text: 'select data from sessions where sid = $1 and expires_at > now()' };
const DEFAULT_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

function expiryOf(session: FastifySession): Date {
  const cookie = (session as { cookie?: { expires?: Date | string | null } }).cookie;
  const expires = cookie?.expires ? new Date(cookie.expires) : null;
  return expires && !Number.isNaN(expires.getTime()) ? expires : new Date(Date.now() + DEFAULT_LIFETIME_MS);
}

/** Sessions in PostgreSQL, so a restart or a second process keeps users signed in. */
export class PostgresSessionStore implements SessionStore {
  private readonly orm: MikroORM;
  private nativePool: Promise<pg.Pool> | undefined;

  constructor(orm: MikroORM) {
    this.orm = orm;
  }

  set(sessionId: string, session: FastifySession, callback: (error?: unknown) => void): void {
    const data = JSON.parse(JSON.stringify(session)) as Record<string, unknown>;
    this.orm.em
      .fork()
      .upsert(Session, { sid: sessionId, data, expiresAt: expiryOf(session) })
      .then(() => callback(), callback);
  }

  /**
   * Read on every signed-in request: one named (prepared once per connection) statement on the
   * driver's pool, without an EntityManager fork or entity hydration (bench/load.ts, the floor).
   */
  get(sessionId: string, callback: (error: unknown, session?: FastifySession | null) => void): void {
    this.pool()
      .then((pool) => pool.query<{ data: FastifySession }>({ ...SESSION_QUERY, values: [sessionId] }))
      .then((result) => callback(null, result.rows[0]?.data ?? null), (error) => callback(error));
  }

  private pool(): Promise<pg.Pool> {
    this.nativePool ??= this.orm.em.getConnection().getNativeClient() as Promise<pg.Pool>;
    return this.nativePool;
  }

  destroy(sessionId: string, callback: (error?: unknown) => void): void {
    this.orm.em
      .fork()
      .nativeDelete(Session, { sid: sessionId })
      .then(() => callback(), callback);
  }

  async deleteExpired(): Promise<number> {
    return this.orm.em.fork().nativeDelete(Session, { expiresAt: { $lte: new Date() } });
  }
}
