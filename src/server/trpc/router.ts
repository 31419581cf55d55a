import { adminRouter } from '../modules/admin/admin.router.ts';
import { authRouter } from '../modules/auth/auth.router.ts';
import { connectionsRouter } from '../modules/connections/connections.router.ts';
import { storesRouter } from '../modules/stores/stores.router.ts';
import { subscriptionsRouter } from '../modules/subscriptions/subscriptions.router.ts';
import { createCallerFactory, router } from './init.ts';

export const appRouter = router({
  auth: authRouter,
  stores: storesRouter,
  subscription: subscriptionsRouter,
  connections: connectionsRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
