import type { SessionStore } from '@fastify/session';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Session as FastifySession } from 'fastify';
import type pg from 'pg';
import { poolOf } from '../answer-cache/answer-cache.ts';
import { User } from '../users/user.entity.ts';
import { Session } from './session.entity.ts';

const SESSION_DATA_COLUMN = 'session_data';
const MAX_WAITING_USER_ROWS = 10_000;

const DEFAULT_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

function expiryOf(session: FastifySession): Date {
  const cookie = (session as { cookie?: { expires?: Date | string | null } }).cookie;
  const expires = cookie?.expires ? new Date(cookie.expires) : null;
  return expires && !Number.isNaN(expires.getTime()) ? expires : new Date(Date.now() + DEFAULT_LIFETIME_MS);
}

/** Sessions in PostgreSQL, so a restart or a second process keeps users signed in. */
export class PostgresSessionStore implements SessionStore {
  private readonly orm: MikroORM;
  private readonly usersReadWithSessions = new Map<string, Record<string, unknown>>();
  private sessionWithUserText: string | null = null;
  private nativePool: Promise<pg.Pool> | null = null;

  constructor(orm: MikroORM) {
    this.orm = orm;
  }

  private pool(): Promise<pg.Pool> {
    this.nativePool ??= poolOf(this.orm.em);
    return this.nativePool;
  }

  /** The session's data and its user's eagerly loaded columns (as the User entity maps them). */
  private sessionWithUserSql(): string {
    if (this.sessionWithUserText === null) {
      const columns = this.orm
        .getMetadata()
        .get(User)
        .props.filter((prop) => !prop.lazy && prop.fieldNames?.length)
        .flatMap((prop) => prop.fieldNames.map((column) => `u."${column}"`));
      this.sessionWithUserText = `select s.data as "${SESSION_DATA_COLUMN}", ${columns.join(', ')}
         from sessions s left join users u on u.id = (s.data->>'userId')::int
        where s.sid = $1 and s.expires_at > now()`;
    }
    return this.sessionWithUserText;
  }

  set(sessionId: string, session: FastifySession, callback: (error?: unknown) => void): void {
    const data = JSON.parse(JSON.stringify(session)) as Record<string, unknown>;
    this.orm.em
      .fork()
      .upsert(Session, { sid: sessionId, data, expiresAt: expiryOf(session) })
      .then(() => callback(), callback);
  }

  /**
   * One statement reads the session and its signed-in user (every authenticated request needs both);
   * the user's row waits in `usersReadWithSessions` for the request (see takeUserRow).
   */
  get(sessionId: string, callback: (error: unknown, session?: FastifySession | null) => void): void {
    this.pool()
      .then((pool) => pool.query<Record<string, unknown>>({ name: 'session-with-user', text: this.sessionWithUserSql(), values: [sessionId] }))
      .then(({ rows: [row] }) => {
        if (!row) return callback(null, null);
        const { [SESSION_DATA_COLUMN]: data, ...user } = row;
        if (user.id !== null && user.id !== undefined) {
          // Rows are taken by the request at once; a request that never takes its row (its session expired) must not grow this.
          if (this.usersReadWithSessions.size >= MAX_WAITING_USER_ROWS) this.usersReadWithSessions.clear();
          this.usersReadWithSessions.set(sessionId, user);
        }
        callback(null, data as FastifySession);
      }, callback);
  }

  /** The users row read with this session by the latest `get`, handed out once (null when there is none). */
  takeUserRow(sessionId: string): Record<string, unknown> | null {
    const row = this.usersReadWithSessions.get(sessionId) ?? null;
    this.usersReadWithSessions.delete(sessionId);
    return row;
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
