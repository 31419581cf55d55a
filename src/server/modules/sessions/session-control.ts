import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE_NAME = 'analytics.sid';

declare module 'fastify' {
  interface Session {
    userId?: number;
    /** Set while an admin views another user's dashboards. */
    guestUserId?: number;
    /** The store an admin switched to while in guest mode; the viewed user's own choice stays untouched. */
    guestActiveStoreId?: number;
  }
}

/** What procedures may do with the caller's session, whatever the transport. */
export interface SessionControl {
  readonly userId: number | null;
  readonly guestUserId: number | null;
  readonly guestActiveStoreId: number | null;
  /** Starts a fresh session (new id, so a planted id is useless) for this user. */
  signIn(userId: number): Promise<void>;
  signOut(): Promise<void>;
  setGuestUser(userId: number | null): Promise<void>;
  setGuestActiveStore(storeId: number | null): Promise<void>;
}

export function httpSession(request: FastifyRequest, reply: FastifyReply): SessionControl {
  const session = request.session;
  return {
    get userId() {
      return session.userId ?? null;
    },
    get guestUserId() {
      return session.guestUserId ?? null;
    },
    get guestActiveStoreId() {
      return session.guestActiveStoreId ?? null;
    },
    async signIn(userId) {
      await session.regenerate();
      request.session.userId = userId;
    },
    async signOut() {
      await session.destroy();
      reply.clearCookie(SESSION_COOKIE_NAME, { path: '/' });
    },
    async setGuestUser(userId) {
      session.guestUserId = userId ?? undefined;
      session.guestActiveStoreId = undefined;
    },
    async setGuestActiveStore(storeId) {
      session.guestActiveStoreId = storeId ?? undefined;
    },
  };
}

/** A session held in memory: the admin CLI and tests that call procedures directly. */
export function memorySession(initial: { userId?: number; guestUserId?: number } = {}): SessionControl {
  const state: { userId?: number; guestUserId?: number; guestActiveStoreId?: number } = { ...initial };
  return {
    get userId() {
      return state.userId ?? null;
    },
    get guestUserId() {
      return state.guestUserId ?? null;
    },
    get guestActiveStoreId() {
      return state.guestActiveStoreId ?? null;
    },
    async signIn(userId) {
      for (const key of Object.keys(state)) delete state[key as keyof typeof state];
      state.userId = userId;
    },
    async signOut() {
      for (const key of Object.keys(state)) delete state[key as keyof typeof state];
    },
    async setGuestUser(userId) {
      state.guestUserId = userId ?? undefined;
      state.guestActiveStoreId = undefined;
    },
    async setGuestActiveStore(storeId) {
      state.guestActiveStoreId = storeId ?? undefined;
    },
  };
}
