import { publicProcedure } from '../../trpc/procedures.ts';
import { router } from '../../trpc/init.ts';
import type { Context } from '../../trpc/context.ts';

/** The procedures the shell reads on every first load, as a caller of the app's router provides them. */
export interface ShellSources {
  auth: { me(): Promise<unknown> };
  subscription: { current(): Promise<unknown> };
  stores: { list(): Promise<unknown>; active(): Promise<unknown> };
  connections: { status(): Promise<unknown> };
  admin: { guestModeStatus(): Promise<unknown> };
  commerce: { dataStatus(): Promise<unknown> };
}

/** Its answer, undefined where one was refused (or failed): the client then asks that procedure itself. */
async function answerOf<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch {
    return undefined;
  }
}

/**
 * `shell.bootstrap`: what the shell needs before a page can ask for its figures (the user, the
 * subscription, the stores and the active one, the connection status, an admin's guest status, the
 * active store's data status) in one request instead of three after one another. Each part is the
 * answer of its own procedure, with that procedure's access rules; the client seeds each into its
 * own query (lib/shell-bootstrap.ts), so nothing is fetched twice.
 */
export function shellRouter<Caller extends ShellSources>(callerFor: (ctx: Context) => Caller) {
  return router({
    bootstrap: publicProcedure.query(async ({ ctx }) => {
      const caller = callerFor(ctx);
      const user = (await answerOf(() => caller.auth.me())) as Awaited<ReturnType<Caller['auth']['me']>> | undefined;
      if (!user) return { user: null } as const;
      // One after another: the procedures share the request's entity manager.
      const subscription = (await answerOf(() => caller.subscription.current())) as Awaited<ReturnType<Caller['subscription']['current']>> | undefined;
      const stores = (await answerOf(() => caller.stores.list())) as Awaited<ReturnType<Caller['stores']['list']>> | undefined;
      const activeStore = (await answerOf(() => caller.stores.active())) as Awaited<ReturnType<Caller['stores']['active']>> | undefined;
      const connections = (await answerOf(() => caller.connections.status())) as Awaited<ReturnType<Caller['connections']['status']>> | undefined;
      const isAdmin = (user as { isAdmin?: boolean }).isAdmin === true;
      const guestStatus = isAdmin ? ((await answerOf(() => caller.admin.guestModeStatus())) as Awaited<ReturnType<Caller['admin']['guestModeStatus']>> | undefined) : undefined;
      const dataStatus = activeStore ? ((await answerOf(() => caller.commerce.dataStatus())) as Awaited<ReturnType<Caller['commerce']['dataStatus']>> | undefined) : undefined;
      return { user, subscription, stores, activeStore, connections, guestStatus, dataStatus };
    }),
  });
}
