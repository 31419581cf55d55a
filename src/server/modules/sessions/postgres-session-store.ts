import type { SessionStore } from '@fastify/session';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Session as FastifySession } from 'fastify';
import { Session } from './session.entity.ts';

const DEFAULT_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

function expiryOf(session: FastifySession): Date {
  const cookie = (session as { cookie?: { expires?: Date | string | null } }).cookie;
  const expires = cookie?.expires ? new Date(cookie.expires) : null;
  return expires && !Number.isNaN(expires.getTime()) ? expires : new Date(Date.now() + DEFAULT_LIFETIME_MS);
}

/** Sessions in PostgreSQL, so a restart or a second process keeps users signed in. */
export class PostgresSessionStore implements SessionStore {
  private readonly orm: MikroORM;

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

  get(sessionId: string, callback: (error: unknown, session?: FastifySession | null) => void): void {
    this.orm.em
      .fork()
      .findOne(Session, { sid: sessionId, expiresAt: { $gt: new Date() } })
      .then((row) => callback(null, (row?.data as FastifySession | undefined) ?? null), (error) => callback(error));
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
