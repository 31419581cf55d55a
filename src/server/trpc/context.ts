import { createAnswerCache, type AnswerNote, type BoundedCache, type CachedAnswer } from '../modules/answer-cache/answer-cache.ts';
import { answerNoteFor } from '../modules/answer-cache/answer-cache-plugin.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LlmProvider } from '../modules/llm/llm-provider.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createAuthLimiters, type AuthLimiters } from '../modules/auth/attempt-limiter.ts';
import { secretHash } from '../modules/auth/link-token.ts';
import { httpSession, type SessionControl } from '../modules/sessions/session-control.ts';
import { testPaymentProvider, type PaymentProvider } from '../modules/subscriptions/payment-provider.ts';
import { User, type UserEntity } from '../modules/users/user.entity.ts';
import { DEFAULT_AFFILIATE_SETTINGS, type AffiliateSettings } from '../modules/affiliates/affiliate-settings.ts';
import { publicOriginResolver, type PublicOriginSettings } from '../public-origin.ts';

/** Long-lived collaborators, built once per app and shared by every request. */
export interface AppServices {
  paymentProvider: PaymentProvider;
  authLimiters: AuthLimiters;
  /** Answers of data procedures by (store, procedure, input, data version) (answer-cache.ts). */
  answers: BoundedCache<CachedAnswer>;
  /** The optional LLM (modules/llm): null unless configured. */
  llm: LlmProvider | null;
  /** The affiliate programme's settings (config.ts). */
  affiliates: AffiliateSettings;
}

export function createServices(overrides: Partial<AppServices> = {}): AppServices {
  return {
    paymentProvider: overrides.paymentProvider ?? testPaymentProvider,
    authLimiters: overrides.authLimiters ?? createAuthLimiters(),
    answers: overrides.answers ?? createAnswerCache(),
    llm: overrides.llm ?? null,
    affiliates: overrides.affiliates ?? DEFAULT_AFFILIATE_SETTINGS,
  };
}

/** The request's first-party cookies besides the session (e.g. the referral cookie); null off HTTP. */
export interface RequestCookies {
  get(name: string): string | undefined;
  set(name: string, value: string, maxAgeSeconds: number): void;
}

export interface Context {
  em: EntityManager;
  session: SessionControl;
  /** The account that is signed in. */
  sessionUser: UserEntity | null;
  /** Whose data the caller sees: the viewed user in guest mode, otherwise the signed-in account. */
  user: UserEntity | null;
  guestMode: boolean;
  /** The admin CLI: acts as an administrator without an account. */
  systemActor: boolean;
  clientIp: string | null;
  /** The app's public origin (e.g. https://app.example.com) for absolute links (public-origin.ts); null off HTTP. */
  origin: string | null;
  /** After a successful registration or sign-in: lets the first one choose the origin when none is configured (public-origin.ts). */
  rememberOrigin: () => Promise<void>;
  /** SHA-256 of the caller's session id: binds an OAuth flow to the browser session that started it; null off HTTP. */
  sessionKey: string | null;
  services: AppServices;
  /** Over HTTP, for a call whose answer may be cached: where the procedure notes the cached answer it gave (answer-cache-plugin.ts). */
  noteAnswer: AnswerNote | null;
  cookies: RequestCookies | null;
  /** The caller's user agent, for hashed visitor keys; null off HTTP. */
  userAgent: string | null;
}

export async function createContextInner(options: {
  em: EntityManager;
  session: SessionControl;
  services: AppServices;
  clientIp?: string | null;
  origin?: string | null;
  rememberOrigin?: () => Promise<void>;
  sessionKey?: string | null;
  systemActor?: boolean;
  noteAnswer?: AnswerNote | null;
  cookies?: RequestCookies | null;
  userAgent?: string | null;
}): Promise<Context> {
  const { em, session } = options;
  const sessionUser = session.userId === null ? null : await em.findOne(User, { id: session.userId });
  let user = sessionUser;
  let guestMode = false;
  if (sessionUser?.isAdmin && session.guestUserId !== null) {
    const viewed = await em.findOne(User, { id: session.guestUserId });
    if (viewed) {
      user = viewed;
      guestMode = true;
    }
  }
  return {
    em,
    session,
    sessionUser,
    user,
    guestMode,
    systemActor: options.systemActor ?? false,
    clientIp: options.clientIp ?? null,
    origin: options.origin ?? null,
    rememberOrigin: options.rememberOrigin ?? (async () => {}),
    sessionKey: options.sessionKey ?? null,
    services: options.services,
    noteAnswer: options.noteAnswer ?? null,
    cookies: options.cookies ?? null,
    userAgent: options.userAgent ?? null,
  };
}

/** HTTP requests: links use the app's public origin, never the request's Host header (public-origin.ts). */
export function contextFactory(fork: () => EntityManager, services: AppServices, originSettings: PublicOriginSettings) {
  const publicOrigin = publicOriginResolver(originSettings, fork);
  return async ({ req, res }: { req: FastifyRequest; res: FastifyReply }) => {
    const em = fork();
    // Already read with the session: managed without a query, so the user look-up below finds it.
    if (req.sessionUserRow && req.sessionUserRow.id === req.session?.userId) em.map(User, req.sessionUserRow);
    return createContextInner({
      em,
      session: httpSession(req, res),
      services,
      clientIp: req.ip,
      origin: await publicOrigin.resolve(req),
      rememberOrigin: () => publicOrigin.remember(req),
      sessionKey: req.session?.sessionId ? secretHash(req.session.sessionId) : null,
      noteAnswer: answerNoteFor(req),
      cookies: {
        get: (name) => req.cookies[name],
        set: (name, value, maxAgeSeconds) =>
          void res.setCookie(name, value, { path: '/', httpOnly: true, sameSite: 'lax', secure: req.protocol === 'https', maxAge: maxAgeSeconds }),
      },
      userAgent: req.headers['user-agent'] ?? null,
    });
  };
}
