import { Suspense, lazy, useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { PageError, PageLoading } from './components/page-status.tsx';
import { toast } from './components/toast.tsx';
import { AppLayout, ContentLoading } from './layout/app-layout.tsx';
import { PublicLayout } from './layout/public-layout.tsx';
import { routeDecision, type RouteRequirement } from './lib/access.ts';
import { useAuth } from './lib/auth.tsx';
import { signInPathFor } from './lib/safe-redirect.ts';
import { serverMessage, type CurrentUser } from './lib/session.ts';
import { useAccess } from './lib/use-access.ts';
import { NotFoundPage } from './pages/not-found/not-found-page.tsx';

// Pages load on demand (the dashboard and sign-in too, so neither weighs on the other's first load):
// the route-loading spinner shows meanwhile.
const AuthPage = lazy(() => import('./pages/auth/auth-page.tsx').then((m) => ({ default: m.AuthPage })));
const loadDashboardPage = () => import('./pages/dashboard/dashboard-page.tsx');
// Opened at /dashboard: its chunk (and, from it, the chart library) is requested at once, beside the
// session request, instead of after the session and access checks have answered.
if (typeof window !== 'undefined' && window.location.pathname === '/dashboard') void loadDashboardPage();
const DashboardPage = lazy(() => loadDashboardPage().then((m) => ({ default: m.DashboardPage })));
const OnboardingPricingPage = lazy(() => import('./pages/onboarding-pricing/onboarding-pricing-page.tsx').then((m) => ({ default: m.OnboardingPricingPage })));
const AcceptInvitePage = lazy(() => import('./pages/accept-invite/accept-invite-page.tsx').then((m) => ({ default: m.AcceptInvitePage })));
const AffiliateDashboardPage = lazy(() => import('./pages/affiliates/affiliate-dashboard-page.tsx').then((m) => ({ default: m.AffiliateDashboardPage })));
const AdminAffiliatePage = lazy(() => import('./pages/admin/admin-affiliate-page.tsx').then((m) => ({ default: m.AdminAffiliatePage })));
const AdminDashboardPage = lazy(() => import('./pages/admin/admin-dashboard-page.tsx').then((m) => ({ default: m.AdminDashboardPage })));
const AdminUserDashboardPage = lazy(() => import('./pages/admin/admin-user-dashboard-page.tsx').then((m) => ({ default: m.AdminUserDashboardPage })));
const AdminUsersPage = lazy(() => import('./pages/admin/admin-users-page.tsx').then((m) => ({ default: m.AdminUsersPage })));
const EmailManagementPage = lazy(() => import('./pages/admin/email-management-page.tsx').then((m) => ({ default: m.EmailManagementPage })));
const CheckoutPage = lazy(() => import('./pages/checkout/checkout-page.tsx').then((m) => ({ default: m.CheckoutPage })));
const ForgotPasswordPage = lazy(() => import('./pages/forgot-password/forgot-password-page.tsx').then((m) => ({ default: m.ForgotPasswordPage })));
const GuestUsersPage = lazy(() => import('./pages/guest-users/guest-users-page.tsx').then((m) => ({ default: m.GuestUsersPage })));
const HelpCenterPage = lazy(() => import('./pages/help-center/help-center-page.tsx').then((m) => ({ default: m.HelpCenterPage })));
const PrivacyPolicyPage = lazy(() => import('./pages/legal/privacy-policy-page.tsx').then((m) => ({ default: m.PrivacyPolicyPage })));
const TermsOfServicePage = lazy(() => import('./pages/legal/terms-of-service-page.tsx').then((m) => ({ default: m.TermsOfServicePage })));
const ManageUsersPage = lazy(() => import('./pages/manage-users/manage-users-page.tsx').then((m) => ({ default: m.ManageUsersPage })));
const PricingPage = lazy(() => import('./pages/pricing/pricing-page.tsx').then((m) => ({ default: m.PricingPage })));
const ProfilePage = lazy(() => import('./pages/profile/profile-page.tsx').then((m) => ({ default: m.ProfilePage })));
const RequestFeaturePage = lazy(() => import('./pages/request-feature/request-feature-page.tsx').then((m) => ({ default: m.RequestFeaturePage })));
const ConfirmEmailPage = lazy(() => import('./pages/confirm-email/confirm-email-page.tsx').then((m) => ({ default: m.ConfirmEmailPage })));
const ResetPasswordPage = lazy(() => import('./pages/reset-password/reset-password-page.tsx').then((m) => ({ default: m.ResetPasswordPage })));
const SettingsPage = lazy(() => import('./pages/settings/settings-page.tsx').then((m) => ({ default: m.SettingsPage })));
const DashboardsPage = lazy(() => import('./pages/dashboards/dashboards-page.tsx').then((m) => ({ default: m.DashboardsPage })));
const StoreManagementPage = lazy(() => import('./pages/store-management/store-management-page.tsx').then((m) => ({ default: m.StoreManagementPage })));
const AdsPage = lazy(() => import('./pages/ads/ads-page.tsx').then((m) => ({ default: m.AdsPage })));
const OrdersPage = lazy(() => import('./pages/orders/orders-page.tsx').then((m) => ({ default: m.OrdersPage })));
const RevenuePage = lazy(() => import('./pages/revenue/revenue-page.tsx').then((m) => ({ default: m.RevenuePage })));
const AnalyticsPage = lazy(() => import('./pages/analytics/analytics-page.tsx').then((m) => ({ default: m.AnalyticsPage })));
const ProfitAndLossPage = lazy(() => import('./pages/profit-and-loss/profit-and-loss-page.tsx').then((m) => ({ default: m.ProfitAndLossPage })));
const ReportsPage = lazy(() => import('./pages/reports/reports-page.tsx').then((m) => ({ default: m.ReportsPage })));
const IntegrationsPage = lazy(() => import('./pages/integrations/integrations-page.tsx').then((m) => ({ default: m.IntegrationsPage })));
const CustomerLoyaltyPage = lazy(() => import('./pages/customer-loyalty/customer-loyalty-page.tsx').then((m) => ({ default: m.CustomerLoyaltyPage })));
const PerformanceDistributionPage = lazy(() => import('./pages/performance-distribution/performance-distribution-page.tsx').then((m) => ({ default: m.PerformanceDistributionPage })));
const TouchpointsPage = lazy(() => import('./pages/touchpoints/touchpoints-page.tsx').then((m) => ({ default: m.TouchpointsPage })));
const PriceTrackerPage = lazy(() => import('./pages/price-tracker/price-tracker-page.tsx').then((m) => ({ default: m.PriceTrackerPage })));
const PageReviewerPage = lazy(() => import('./pages/page-reviewer/page-reviewer-page.tsx').then((m) => ({ default: m.PageReviewerPage })));
const ProductImageGeneratorPage = lazy(() => import('./pages/product-image-generator/product-image-generator-page.tsx').then((m) => ({ default: m.ProductImageGeneratorPage })));
const PageReviewDetailPage = lazy(() => import('./pages/page-reviewer/page-review-detail-page.tsx').then((m) => ({ default: m.PageReviewDetailPage })));
const MetaCommentsRoute = lazy(() => import('./pages/meta-comments/meta-comments-page.tsx').then((m) => ({ default: m.MetaCommentsRoute })));
const ShoppingOptimizerRoute = lazy(() => import('./pages/shopping-optimizer/shopping-optimizer-page.tsx').then((m) => ({ default: m.ShoppingOptimizerRoute })));
const TrackingSetupPage = lazy(() => import('./pages/tracking-setup/tracking-setup-page.tsx').then((m) => ({ default: m.TrackingSetupPage })));

function SessionError({ error, retry }: { error: unknown; retry: () => void }) {
  const { t } = useTranslation();
  return <PageError title={t('status.sessionCheckFailed')} message={serverMessage(error)} onRetry={retry} />;
}

/** `/`: a signed-in user goes to the dashboard, anyone else to the sign-in page. */
function HomeRedirect() {
  const { t } = useTranslation();
  const { session } = useAuth();
  if (session.status === 'signedIn') return <Redirect to="/dashboard" replace />;
  if (session.status === 'signedOut') return <Redirect to="/auth" replace />;
  if (session.status === 'error') return <SessionError error={session.error} retry={session.retry} />;
  return <PageLoading message={t('auth.checking')} />;
}

/** Renders its page for a signed-in user; sends anyone else to /auth?redirect=<this path>. */
function RequireAuth({ children }: { children: (user: CurrentUser) => ReactNode }) {
  const { t } = useTranslation();
  const [location] = useLocation();
  const search = useSearch();
  const { session } = useAuth();
  if (session.status === 'signedIn') return <>{children(session.user)}</>;
  if (session.status === 'signedOut') return <Redirect to={signInPathFor(search ? `${location}?${search}` : location)} replace />;
  if (session.status === 'error') return <SessionError error={session.error} retry={session.retry} />;
  return <PageLoading message={t('auth.checking')} />;
}

/** No subscription on a gated route: the toast, then /pricing. */
function SubscriptionRequired() {
  const { t } = useTranslation('shell');
  const [, navigate] = useLocation();
  useEffect(() => {
    toast({ title: t('toast.subscriptionRequired.title'), description: t('toast.subscriptionRequired.description') });
    navigate('/pricing', { replace: true });
  }, [navigate, t]);
  return <ContentLoading message={t('routing.checkingAccess')} />;
}

/** Renders the page when the signed-in user meets the requirement; otherwise /pricing or /. */
function RequireAccess({ requirement, children }: { requirement: RouteRequirement; children: ReactNode }) {
  const { t } = useTranslation('shell');
  const access = useAccess();
  if (requirement === 'signedIn') return <>{children}</>;
  if (!access.ready) return <ContentLoading message={t('routing.checkingAccess')} />;
  const decision = routeDecision(requirement, access);
  if (decision === 'pricing') return <SubscriptionRequired />;
  if (decision === 'home') return <Redirect to="/" replace />;
  return <>{children}</>;
}

/** A page of the signed-in area, inside the sidebar-and-header layout, behind its guard. */
function ShellPage({ requirement, children }: { requirement: RouteRequirement; children: ReactNode | ((user: CurrentUser) => ReactNode) }) {
  return (
    <RequireAuth>
      {(user) => (
        <AppLayout user={user} readsStoreData={requirement !== 'signedIn'}>
          <RequireAccess requirement={requirement}>{typeof children === 'function' ? children(user) : children}</RequireAccess>
        </AppLayout>
      )}
    </RequireAuth>
  );
}

/** /pricing: inside the layout for a signed-in user, a public page for anyone else. */
function PricingRoute() {
  const { t } = useTranslation();
  const { session } = useAuth();
  if (session.status === 'loading') return <PageLoading message={t('auth.checking')} />;
  if (session.status === 'signedIn') {
    return (
      <AppLayout user={session.user} readsStoreData={false}>
        <PricingPage />
      </AppLayout>
    );
  }
  return (
    <PublicLayout>
      <Suspense fallback={<ContentLoading message={t('shell:routing.loadingPage')} />}>
        <PricingPage />
      </Suspense>
    </PublicLayout>
  );
}


function PublicPage({ children }: { children: ReactNode }) {
  const { t } = useTranslation('shell');
  return <Suspense fallback={<PageLoading message={t('routing.loadingPage')} />}>{children}</Suspense>;
}

export function App() {
  return (
    <Switch>
      <Route path="/">
        <HomeRedirect />
      </Route>
      <Route path="/help">
        <Redirect to="/help-center" replace />
      </Route>

      {/* Public */}
      <Route path="/auth">
        <PublicPage>
          <AuthPage />
        </PublicPage>
      </Route>
      <Route path="/onboarding/pricing">
        <PublicPage>
          <OnboardingPricingPage />
        </PublicPage>
      </Route>
      <Route path="/pricing">
        <PricingRoute />
      </Route>
      <Route path="/privacy-policy">
        <PublicPage>
          <PrivacyPolicyPage />
        </PublicPage>
      </Route>
      <Route path="/terms-of-service">
        <PublicPage>
          <TermsOfServicePage />
        </PublicPage>
      </Route>
      <Route path="/accept-invite">
        <PublicPage>
          <AcceptInvitePage />
        </PublicPage>
      </Route>
      <Route path="/forgot-password">
        <PublicPage>
          <ForgotPasswordPage />
        </PublicPage>
      </Route>
      <Route path="/reset-password">
        <PublicPage>
          <ResetPasswordPage />
        </PublicPage>
      </Route>
      <Route path="/confirm-email">
        <PublicPage>
          <ConfirmEmailPage />
        </PublicPage>
      </Route>

      {/* Signed in, no subscription needed */}
      <Route path="/help-center">
        <ShellPage requirement="signedIn">
          <HelpCenterPage />
        </ShellPage>
      </Route>
      <Route path="/store-management">
        <ShellPage requirement="signedIn">
          <StoreManagementPage />
        </ShellPage>
      </Route>
      <Route path="/request-feature">
        <ShellPage requirement="signedIn">
          <RequestFeaturePage />
        </ShellPage>
      </Route>
      <Route path="/checkout/:planId">
        {(params) => (
          <ShellPage requirement="signedIn">
            <CheckoutPage planId={params.planId} />
          </ShellPage>
        )}
      </Route>

      {/* Signed in with a subscription (or admin) */}
      <Route path="/dashboard">
        <ShellPage requirement="subscription">{(user) => <DashboardPage username={user.username} />}</ShellPage>
      </Route>
      <Route path="/dashboards">
        <ShellPage requirement="subscription">
          <DashboardsPage />
        </ShellPage>
      </Route>
      <Route path="/settings">
        <ShellPage requirement="subscription">
          <SettingsPage />
        </ShellPage>
      </Route>
      <Route path="/profile">
        <ShellPage requirement="subscription">
          <ProfilePage />
        </ShellPage>
      </Route>
      <Route path="/guest-users">
        <ShellPage requirement="subscription">
          <GuestUsersPage />
        </ShellPage>
      </Route>
      <Route path="/manage-users">
        <ShellPage requirement="subscription">
          <ManageUsersPage />
        </ShellPage>
      </Route>
      <Route path="/integrations">
        <ShellPage requirement="subscription">
          <IntegrationsPage />
        </ShellPage>
      </Route>
      <Route path="/landing-page-reviewer">
        <ShellPage requirement="tools">
          <PageReviewerPage />
        </ShellPage>
      </Route>
      <Route path="/landing-page-reviewer/:id">
        {(params) => (
          <ShellPage requirement="tools">
            <PageReviewDetailPage id={params.id} />
          </ShellPage>
        )}
      </Route>
      <Route path="/product-image-generator">
        <ShellPage requirement="tools">
          <ProductImageGeneratorPage />
        </ShellPage>
      </Route>
      <Route path="/tracking-setup">
        <ShellPage requirement="subscription">
          <TrackingSetupPage />
        </ShellPage>
      </Route>
      <Route path="/touchpoints">
        <ShellPage requirement="subscription">
          <TouchpointsPage />
        </ShellPage>
      </Route>
      {/* Marketing and analytics screens */}
      <Route path="/google-ads">
        <ShellPage requirement="subscription">
          <AdsPage platform="googleads" />
        </ShellPage>
      </Route>
      <Route path="/meta-ads">
        <ShellPage requirement="subscription">
          <AdsPage platform="metaads" />
        </ShellPage>
      </Route>
      <Route path="/bing-ads">
        <ShellPage requirement="subscription">
          <AdsPage platform="bingads" />
        </ShellPage>
      </Route>
      <Route path="/orders">
        <ShellPage requirement="subscription">
          <OrdersPage />
        </ShellPage>
      </Route>
      <Route path="/revenue">
        <ShellPage requirement="subscription">
          <RevenuePage />
        </ShellPage>
      </Route>
      <Route path="/profit-and-loss">
        <ShellPage requirement="subscription">
          <ProfitAndLossPage />
        </ShellPage>
      </Route>
      <Route path="/reports">
        <ShellPage requirement="subscription">
          <ReportsPage />
        </ShellPage>
      </Route>
      <Route path="/analytics">
        <ShellPage requirement="subscription">
          <AnalyticsPage />
        </ShellPage>
      </Route>
      <Route path="/performance-distribution">
        <ShellPage requirement="subscription">
          <PerformanceDistributionPage />
        </ShellPage>
      </Route>
      <Route path="/customer-loyalty">
        <ShellPage requirement="subscription">
          <CustomerLoyaltyPage />
        </ShellPage>
      </Route>

      <Route path="/price-tracker">
        <ShellPage requirement="tools">
          <PriceTrackerPage />
        </ShellPage>
      </Route>

      {/* Admin-only tools: 'Coming Soon' for everyone else (ShoppingOptimizerRoute, MetaCommentsRoute) */}
      <Route path="/meta-comments-manager">
        <ShellPage requirement="subscription">
          <MetaCommentsRoute />
        </ShellPage>
      </Route>
      <Route path="/shopping-optimizer">
        <ShellPage requirement="subscription">
          <ShoppingOptimizerRoute />
        </ShellPage>
      </Route>
      <Route path="/affiliate-dashboard">
        <ShellPage requirement="subscription">
          <AffiliateDashboardPage />
        </ShellPage>
      </Route>

      {/* Admin only (non-admins go to /) */}
      <Route path="/admin">
        <ShellPage requirement="admin">
          <AdminUsersPage />
        </ShellPage>
      </Route>
      <Route path="/admin/dashboard">
        <ShellPage requirement="admin">
          <AdminDashboardPage />
        </ShellPage>
      </Route>
      <Route path="/admin/user-dashboard/:id">
        {(params) => (
          <ShellPage requirement="admin">
            <AdminUserDashboardPage userId={params.id} />
          </ShellPage>
        )}
      </Route>
      <Route path="/admin/email-management">
        <ShellPage requirement="admin">
          <EmailManagementPage />
        </ShellPage>
      </Route>
      <Route path="/admin/affiliate/:id">
        {(params) => (
          <ShellPage requirement="admin">
            <AdminAffiliatePage userId={params.id} />
          </ShellPage>
        )}
      </Route>

      <Route>
        <NotFoundPage />
      </Route>
    </Switch>
  );
}
