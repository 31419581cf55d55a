import { adminRouter } from '../modules/admin/admin.router.ts';
import { authRouter } from '../modules/auth/auth.router.ts';
import { commerceRouter } from '../modules/commerce/commerce.router.ts';
import { connectionsRouter } from '../modules/connections/connections.router.ts';
import { emailRouter } from '../modules/email/email.router.ts';
import { featureRequestsRouter } from '../modules/feature-requests/feature-requests.router.ts';
import { guestsRouter } from '../modules/guests/guests.router.ts';
import { settingsRouter } from '../modules/settings/settings.router.ts';
import { storesRouter } from '../modules/stores/stores.router.ts';
import { subscriptionsRouter } from '../modules/subscriptions/subscriptions.router.ts';
import { supportRouter } from '../modules/support/support.router.ts';
import { createCallerFactory, router } from './init.ts';

export const appRouter = router({
  auth: authRouter,
  stores: storesRouter,
  subscription: subscriptionsRouter,
  connections: connectionsRouter,
  admin: adminRouter,
  settings: settingsRouter,
  support: supportRouter,
  featureRequests: featureRequestsRouter,
  guests: guestsRouter,
  email: emailRouter,
  commerce: commerceRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
