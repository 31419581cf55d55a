import cookie from '@fastify/cookie';
import session from '@fastify/session';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PostgresSessionStore } from '../modules/sessions/postgres-session-store.ts';
import { SESSION_COOKIE_NAME } from '../modules/sessions/session-control.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The users row of the session's user, read in the session's own statement (PostgresSessionStore.get), or null. */
    sessionUserRow: Record<string, unknown> | null;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;
const SESSION_LIFETIME_MS = 30 * DAY_MS;
const EXPIRED_SESSION_SWEEP_MS = 60 * 60 * 1000;

export const sessionPlugin = fp(async (app: FastifyInstance, options: { orm: MikroORM; secret: string }) => {
  const store = new PostgresSessionStore(options.orm);
  await app.register(cookie);
  await app.register(session, {
    secret: options.secret,
    cookieName: SESSION_COOKIE_NAME,
    store,
    saveUninitialized: false,
    // Not on every response: see the renewal hook below.
    rolling: false,
    cookie: {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      // Secure whenever the request came over https (behind a proxy: with TRUST_PROXY set).
      secure: 'auto',
      maxAge: SESSION_LIFETIME_MS,
    },
  });

  // The signed-in user's row came with the session (one statement); the request context uses it.
  app.decorateRequest('sessionUserRow', null);
  app.addHook('onRequest', async (request) => {
    if (request.session.userId !== undefined) request.sessionUserRow = store.takeUserRow(request.session.sessionId);
  });

  // A signed-in session's 30 days restart with use, as with `rolling`, but the row and the cookie are
  // rewritten at most once a day instead of on every request (an upsert per API call otherwise).
  app.addHook('onRequest', async (request) => {
    const session = request.session;
    // A restored session's cookie already counts its 30 days from now; originalExpires is the stored end.
    const storedExpiry = (session.cookie as { originalExpires?: Date }).originalExpires;
    if (session.userId === undefined || !storedExpiry) return;
    if (storedExpiry.getTime() - Date.now() > SESSION_LIFETIME_MS - DAY_MS) return;
    await session.save();
  });

  const sweep = setInterval(() => {
    store.deleteExpired().catch((error: unknown) => app.log.warn({ err: error }, 'Could not delete expired sessions'));
  }, EXPIRED_SESSION_SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
});
