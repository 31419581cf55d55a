import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SESSION_COOKIE_NAME } from '../sessions/session-control.ts';
import { BoundedCache, etagOf, poolOf, versionsOnPool, type AnswerNote, type CachedAnswer } from './answer-cache.ts';

/**
 * The HTTP fast path for cached answers (answer-cache.ts) of single tRPC GET calls.
 *
 * A request that went the whole way (session, user, subscription, store access, procedure) and was
 * answered 200 from the answer cache leaves a grant: (session cookie, URL) -> the store and answer
 * it was allowed, with the 'auth' counter read BEFORE its checks. The next request with the same
 * cookie and URL is answered here, before the session plugin, with one statement (the 'auth' counter
 * and the store's data version): when neither moved, the cached body goes out as it is, or 304 for a
 * matching If-None-Match. Any write that can change who may see what (sign-out, guest mode, store
 * switch, subscription, store guests, users) moves 'auth' and voids every grant at once, in every
 * app process on the database; a grant also lapses after GRANT_MS, so a subscription that ends by
 * the clock alone (no write) is noticed within that time.
 *
 * The cookie is not verified here: a grant exists only for the exact cookie string that the session
 * plugin verified, so presenting it is presenting that session.
 */

/** Procedures whose answers are cached (the dashboard's first calls, the touchpoints report). */
export const CACHED_PROCEDURES = new Set(['commerce.kpis', 'commerce.dataStatus', 'attribution.report']);
export const GRANT_MS = 60_000;
const GRANT_LIMIT = 20_000;

interface Grant {
  authVersion: string;
  storeId: number;
  answerKey: string;
  validUntil: number;
}

interface Capture {
  grantKey: string;
  authVersion: string;
  note: Parameters<AnswerNote>[0] | null;
}

const captures = new WeakMap<FastifyRequest, Capture>();

const SESSION_COOKIE = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE_NAME.replace('.', '\\.')}=([^;]+)`);

/** The procedure of a single (not batched) tRPC GET call, or null. */
function singleProcedureOf(url: string): string | null {
  if (!url.startsWith('/trpc/')) return null;
  const query = url.indexOf('?');
  const procedure = url.slice('/trpc/'.length, query < 0 ? undefined : query);
  if (procedure.includes(',') || (query >= 0 && /[?&]batch=/.test(url.slice(query)))) return null;
  return procedure;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  return ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** The body of a single tRPC call answering the value (the adapter's own format, without a transformer). */
function withBody(answer: CachedAnswer): Required<Pick<CachedAnswer, 'body' | 'etag'>> {
  if (answer.body === undefined || answer.etag === undefined) {
    answer.body = Buffer.from(JSON.stringify({ result: { data: answer.value } }));
    answer.etag = etagOf(answer.body);
  }
  return { body: answer.body, etag: answer.etag };
}

function sendCached(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer): FastifyReply {
  const { body, etag } = withBody(answer);
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type('application/json').send(body);
}

/** For the request's tRPC context: where the procedure notes the cached answer it gave (null when not cacheable). */
export function answerNoteFor(request: FastifyRequest): AnswerNote | null {
  const capture = captures.get(request);
  if (!capture) return null;
  return (note) => {
    capture.note = note;
  };
}

export const answerCachePlugin = fp(async (app: FastifyInstance, options: { orm: MikroORM; answers: BoundedCache<CachedAnswer> }) => {
  const pool = await poolOf(options.orm.em);
  const { answers } = options;
  const grants = new BoundedCache<Grant>(GRANT_LIMIT);

  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET') return;
    const procedure = singleProcedureOf(request.url);
    if (procedure === null || !CACHED_PROCEDURES.has(procedure)) return;
    const cookie = SESSION_COOKIE.exec(request.headers.cookie ?? '')?.[1];
    if (!cookie) return;
    const grantKey = `${cookie}\n${request.url}`;
    const grant = grants.get(grantKey);
    const usable = grant && grant.validUntil > Date.now() ? grant : null;
    const versions = await versionsOnPool(pool, usable?.storeId ?? null, procedure);
    if (usable && usable.authVersion === versions.auth) {
      const answer = answers.get(usable.answerKey);
      if (answer && answer.version === versions.data) return sendCached(request, reply, answer);
    } else if (grant) {
      grants.delete(grantKey);
    }
    captures.set(request, { grantKey, authVersion: versions.auth, note: null });
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const note = captures.get(request)?.note;
    if (!note || reply.statusCode !== 200) return payload;
    const capture = captures.get(request)!;
    grants.set(capture.grantKey, { authVersion: capture.authVersion, storeId: note.storeId, answerKey: note.key, validUntil: Date.now() + GRANT_MS });
    const answer = answers.get(note.key);
    if (!answer || answer.version !== note.version) return payload;
    const { etag } = withBody(answer);
    reply.header('etag', etag).header('cache-control', 'private, no-cache');
    if (matches(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    return payload;
  });
});
