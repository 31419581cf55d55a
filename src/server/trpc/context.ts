import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createAuthLimiters, type AuthLimiters } from '../modules/auth/attempt-limiter.ts';
import { httpSession, type SessionControl } from '../modules/sessions/session-control.ts';
import { paymentProviderFor, type PaymentProvider } from '../modules/subscriptions/payment-provider.ts';
import { User, type UserEntity } from '../modules/users/user.entity.ts';

/** Long-lived collaborators, built once per app and shared by every request. */
export interface AppServices {
  paymentProvider: PaymentProvider;
  authLimiters: AuthLimiters;
}

export function createServices(overrides: Partial<AppServices> = {}): AppServices {
  return {
    paymentProvider: overrides.paymentProvider ?? paymentProviderFor('test'),
    authLimiters: overrides.authLimiters ?? createAuthLimiters(),
  };
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
  /** Scheme and host the caller used (e.g. https://app.example.com), for links in e-mails; null off HTTP. */
  origin: string | null;
  services: AppServices;
}

export async function createContextInner(options: {
  em: EntityManager;
  session: SessionControl;
  services: AppServices;
  clientIp?: string | null;
  origin?: string | null;
  systemActor?: boolean;
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
    services: options.services,
  };
}

/**
 * PUBLIC_URL when configured: a link built from the request's Host header could be pointed at another
 * site by whoever sends the request (reset-link poisoning).
 */
export function contextFactory(fork: () => EntityManager, services: AppServices, publicUrl?: string) {
  return ({ req, res }: { req: FastifyRequest; res: FastifyReply }) =>
    createContextInner({
      em: fork(),
      session: httpSession(req, res),
      services,
      clientIp: req.ip,
      origin: publicUrl ?? `${req.protocol}://${req.host}`,
    });
}
