import { affiliateAdminRouter } from '../modules/affiliates/affiliate-admin.router.ts';
import { affiliatesRouter } from '../modules/affiliates/affiliates.router.ts';
import { privacyRouter } from '../modules/privacy/privacy.router.ts';
import { adminRouter } from '../modules/admin/admin.router.ts';
import { anomaliesRouter } from '../modules/anomalies/anomalies.router.ts';
import { attributionRouter } from '../modules/attribution/attribution.router.ts';
import { analyticsRouter } from '../modules/analytics/analytics.router.ts';
import { authRouter } from '../modules/auth/auth.router.ts';
import { commerceRouter } from '../modules/commerce/commerce.router.ts';
import { dashboardRouter } from '../modules/dashboard/dashboard.router.ts';
import { connectionsRouter } from '../modules/connections/connections.router.ts';
import { demoRouter } from '../modules/demo/demo.router.ts';
import { emailRouter } from '../modules/email/email.router.ts';
import { reportsRouter } from '../modules/reports/reports.router.ts';
import { financeRouter } from '../modules/finance/finance.router.ts';
import { featureRequestsRouter } from '../modules/feature-requests/feature-requests.router.ts';
import { guestsRouter } from '../modules/guests/guests.router.ts';
import { loyaltyRouter } from '../modules/loyalty/loyalty.router.ts';
import { priceTrackerRouter } from '../modules/price-tracker/price-tracker.router.ts';
import { integrationsRouter } from '../modules/integrations/integrations.router.ts';
import { audiencesRouter } from '../modules/audiences/audiences.router.ts';
import { pageReviewerRouter } from '../modules/page-reviewer/page-reviewer.router.ts';
import { productImagesRouter } from '../modules/product-images/product-images.router.ts';
import { ordersRouter } from '../modules/orders/orders.router.ts';
import { revenueRouter } from '../modules/revenue/revenue.router.ts';
import { marketingRouter } from '../modules/marketing/marketing.router.ts';
import { settingsRouter } from '../modules/settings/settings.router.ts';
import { storesRouter } from '../modules/stores/stores.router.ts';
import { subscriptionsRouter } from '../modules/subscriptions/subscriptions.router.ts';
import { metaCommentsRouter } from '../modules/meta-comments/meta-comments.router.ts';
import { shoppingOptimizerRouter } from '../modules/shopping-optimizer/shopping-optimizer.router.ts';
import { shellRouter } from '../modules/shell/shell.router.ts';
import { supportRouter } from '../modules/support/support.router.ts';
import { trackingRouter } from '../modules/tracking/tracking.router.ts';
import { createCallerFactory, router } from './init.ts';

const featureRouters = {
  auth: authRouter,
  stores: storesRouter,
  subscription: subscriptionsRouter,
  connections: connectionsRouter,
  admin: adminRouter,
  affiliates: affiliatesRouter,
  affiliateAdmin: affiliateAdminRouter,
  settings: settingsRouter,
  privacy: privacyRouter,
  support: supportRouter,
  featureRequests: featureRequestsRouter,
  guests: guestsRouter,
  email: emailRouter,
  commerce: commerceRouter,
  dashboard: dashboardRouter,
  demo: demoRouter,
  finance: financeRouter,
  reports: reportsRouter,
  orders: ordersRouter,
  revenue: revenueRouter,
  marketing: marketingRouter,
  analytics: analyticsRouter,
  integrations: integrationsRouter,
  audiences: audiencesRouter,
  tracking: trackingRouter,
  attribution: attributionRouter,
  loyalty: loyaltyRouter,
  anomalies: anomaliesRouter,
  priceTracker: priceTrackerRouter,
  pageReviewer: pageReviewerRouter,
  productImages: productImagesRouter,
  shoppingOptimizer: shoppingOptimizerRouter,
  metaComments: metaCommentsRouter,
};

/** The feature routers alone: what `shell.bootstrap` calls on the client's behalf. */
const featuresRouter = router(featureRouters);

export const appRouter = router({
  ...featureRouters,
  shell: shellRouter(createCallerFactory(featuresRouter)),
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
