import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { PageError, PageLoading } from './components/page-status.tsx';
import { AppLayout } from './layout/app-layout.tsx';
import { signInPathFor } from './lib/safe-redirect.ts';
import { serverMessage, useSession, type CurrentUser } from './lib/session.ts';
import { AuthPage } from './pages/auth/auth-page.tsx';
import { DashboardPage } from './pages/dashboard/dashboard-page.tsx';
import { NotFoundPage } from './pages/not-found/not-found-page.tsx';
import { OnboardingPricingPage } from './pages/onboarding-pricing/onboarding-pricing-page.tsx';
import { AcceptInvitePage } from './pages/accept-invite/accept-invite-page.tsx';
import { AdminAffiliatePage } from './pages/admin/admin-affiliate-page.tsx';
import { AdminDashboardPage } from './pages/admin/admin-dashboard-page.tsx';
import { AdminUserDashboardPage } from './pages/admin/admin-user-dashboard-page.tsx';
import { AdminUsersPage } from './pages/admin/admin-users-page.tsx';
import { EmailManagementPage } from './pages/admin/email-management-page.tsx';
import { CheckoutPage } from './pages/checkout/checkout-page.tsx';
import { ForgotPasswordPage } from './pages/forgot-password/forgot-password-page.tsx';
import { GuestUsersPage } from './pages/guest-users/guest-users-page.tsx';
import { HelpCenterPage } from './pages/help-center/help-center-page.tsx';
import { PrivacyPolicyPage } from './pages/legal/privacy-policy-page.tsx';
import { TermsOfServicePage } from './pages/legal/terms-of-service-page.tsx';
import { ManageUsersPage } from './pages/manage-users/manage-users-page.tsx';
import { PricingPage } from './pages/pricing/pricing-page.tsx';
import { ProfilePage } from './pages/profile/profile-page.tsx';
import { RequestFeaturePage } from './pages/request-feature/request-feature-page.tsx';
import { ResetPasswordPage } from './pages/reset-password/reset-password-page.tsx';
import { SettingsPage } from './pages/settings/settings-page.tsx';
import { StoreManagementPage } from './pages/store-management/store-management-page.tsx';

/** `/`: a signed-in user goes to the dashboard, anyone else to the sign-in page. */
function HomeRedirect() {
  const { t } = useTranslation();
  const session = useSession();
  if (session.status === 'signedIn') return <Redirect to="/dashboard" replace />;
  if (session.status === 'signedOut') return <Redirect to="/auth" replace />;
  if (session.status === 'error') {
    return <PageError title={t('status.sessionCheckFailed')} message={serverMessage(session.error)} onRetry={session.retry} />;
  }
  return <PageLoading message={t('auth.checking')} />;
}

/** Renders its page for a signed-in user; sends anyone else to /auth?redirect=<this path>. */
function RequireAuth({ children }: { children: (user: CurrentUser) => ReactNode }) {
  const { t } = useTranslation();
  const [location] = useLocation();
  const search = useSearch();
  const session = useSession();
  if (session.status === 'signedIn') return <>{children(session.user)}</>;
  if (session.status === 'signedOut') return <Redirect to={signInPathFor(search ? `${location}?${search}` : location)} replace />;
  if (session.status === 'error') {
    return <PageError title={t('status.sessionCheckFailed')} message={serverMessage(session.error)} onRetry={session.retry} />;
  }
  return <PageLoading message={t('auth.checking')} />;
}

/** A page of the signed-in area, inside the sidebar-and-header layout. */
function SignedInPage({ children }: { children: ReactNode }) {
  return <RequireAuth>{(user) => <AppLayout user={user}>{children}</AppLayout>}</RequireAuth>;
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
        <AuthPage />
      </Route>
      <Route path="/onboarding/pricing">
        <OnboardingPricingPage />
      </Route>
      <Route path="/pricing">
        <PricingPage />
      </Route>
      <Route path="/privacy-policy">
        <PrivacyPolicyPage />
      </Route>
      <Route path="/terms-of-service">
        <TermsOfServicePage />
      </Route>
      <Route path="/accept-invite">
        <AcceptInvitePage />
      </Route>
      <Route path="/forgot-password">
        <ForgotPasswordPage />
      </Route>
      <Route path="/reset-password">
        <ResetPasswordPage />
      </Route>

      {/* Signed in, no subscription needed */}
      <Route path="/help-center">
        <SignedInPage>
          <HelpCenterPage />
        </SignedInPage>
      </Route>
      <Route path="/store-management">
        <SignedInPage>
          <StoreManagementPage />
        </SignedInPage>
      </Route>
      <Route path="/request-feature">
        <SignedInPage>
          <RequestFeaturePage />
        </SignedInPage>
      </Route>
      <Route path="/checkout/:planId">
        {(params) => (
          <SignedInPage>
            <CheckoutPage planId={params.planId} />
          </SignedInPage>
        )}
      </Route>

      {/* Signed in with a subscription (or admin) */}
      <Route path="/dashboard">
        <RequireAuth>
          {(user) => (
            <AppLayout user={user}>
              <DashboardPage username={user.username} />
            </AppLayout>
          )}
        </RequireAuth>
      </Route>
      <Route path="/settings">
        <SignedInPage>
          <SettingsPage />
        </SignedInPage>
      </Route>
      <Route path="/profile">
        <SignedInPage>
          <ProfilePage />
        </SignedInPage>
      </Route>
      <Route path="/guest-users">
        <SignedInPage>
          <GuestUsersPage />
        </SignedInPage>
      </Route>
      <Route path="/manage-users">
        <SignedInPage>
          <ManageUsersPage />
        </SignedInPage>
      </Route>

      {/* Admin only */}
      <Route path="/admin">
        <SignedInPage>
          <AdminUsersPage />
        </SignedInPage>
      </Route>
      <Route path="/admin/dashboard">
        <SignedInPage>
          <AdminDashboardPage />
        </SignedInPage>
      </Route>
      <Route path="/admin/user-dashboard/:id">
        {(params) => (
          <SignedInPage>
            <AdminUserDashboardPage userId={params.id} />
          </SignedInPage>
        )}
      </Route>
      <Route path="/admin/email-management">
        <SignedInPage>
          <EmailManagementPage />
        </SignedInPage>
      </Route>
      <Route path="/admin/affiliate/:id">
        {(params) => (
          <SignedInPage>
            <AdminAffiliatePage userId={params.id} />
          </SignedInPage>
        )}
      </Route>

      <Route>
        <NotFoundPage />
      </Route>
    </Switch>
  );
}
