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

export function App() {
  return (
    <Switch>
      <Route path="/">
        <HomeRedirect />
      </Route>
      <Route path="/auth">
        <AuthPage />
      </Route>
      <Route path="/onboarding/pricing">
        <OnboardingPricingPage />
      </Route>
      <Route path="/dashboard">
        <RequireAuth>
          {(user) => (
            <AppLayout user={user}>
              <DashboardPage username={user.username} />
            </AppLayout>
          )}
        </RequireAuth>
      </Route>
      <Route>
        <NotFoundPage />
      </Route>
    </Switch>
  );
}
