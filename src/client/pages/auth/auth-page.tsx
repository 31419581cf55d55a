import { useTranslation } from 'react-i18next';
import { Redirect, useLocation, useSearch } from 'wouter';
import { Brand } from '../../components/brand.tsx';
import { LanguageMenu } from '../../components/language-menu.tsx';
import { PageLoading } from '../../components/page-status.tsx';
import { ThemeMenu } from '../../components/theme-menu.tsx';
import { useAuth } from '../../lib/auth.tsx';
import { safeRedirectPath } from '../../lib/safe-redirect.ts';
import { RegisterForm, SignInForm } from './auth-forms.tsx';

type AuthTab = 'signIn' | 'register';
const TABS: readonly AuthTab[] = ['signIn', 'register'];

/** Sign in or register; the open tab lives in the URL (?tab=register) so a reload keeps it. */
export function AuthPage() {
  const { t } = useTranslation();
  const search = useSearch();
  const [, navigate] = useLocation();
  // The app-wide session (one observer of the user query): a second observer mounting here would
  // refetch a 401 answer on every mount and bounce between this page and the guarded one.
  const { session } = useAuth();
  const params = new URLSearchParams(search);
  const tab: AuthTab = params.get('tab') === 'register' ? 'register' : 'signIn';
  const afterSignIn = safeRedirectPath(params.get('redirect'));

  if (session.status === 'signedIn') return <Redirect to={afterSignIn} replace />;
  if (session.status === 'loading') return <PageLoading message={t('auth.checking')} />;

  function selectTab(next: AuthTab) {
    const nextParams = new URLSearchParams(search);
    if (next === 'register') nextParams.set('tab', 'register');
    else nextParams.delete('tab');
    const query = nextParams.toString();
    navigate(query ? `/auth?${query}` : '/auth', { replace: true });
  }

  return (
    <div className="flex min-h-screen flex-col">
      <div className="flex justify-end gap-1 p-3 sm:p-4">
        <LanguageMenu />
        <ThemeMenu />
      </div>
      <main className="flex flex-1 flex-col items-center px-4 pt-2 pb-16 sm:justify-center sm:pt-0">
        <div className="mb-8 flex flex-col items-center text-center">
          <Brand size="lg" />
          <p className="text-base-content/70 mt-3 max-w-md text-sm text-balance sm:text-base">{t('app.tagline')}</p>
        </div>

        <div className="card bg-base-100 border-base-content/10 w-full max-w-md border shadow-xl">
          <div className="card-body gap-5 p-6 sm:p-8">
            <div role="tablist" aria-label={t('auth.tabsLabel')} className="tabs tabs-box grid grid-cols-2">
              {TABS.map((option) => (
                <button
                  key={option}
                  id={`auth-tab-${option}`}
                  type="button"
                  role="tab"
                  aria-selected={tab === option}
                  aria-controls={`auth-panel-${option}`}
                  className={`tab font-medium ${tab === option ? 'tab-active' : ''}`}
                  onClick={() => selectTab(option)}
                >
                  {t(`auth.tabs.${option}`)}
                </button>
              ))}
            </div>

            <div id={`auth-panel-${tab}`} role="tabpanel" aria-labelledby={`auth-tab-${tab}`} className="flex flex-col gap-5">
              <div>
                <h1 className="text-xl font-semibold">{t(`auth.headings.${tab}.title`)}</h1>
                <p className="text-base-content/70 mt-1 text-sm">{t(`auth.headings.${tab}.subtitle`)}</p>
              </div>
              {tab === 'signIn' ? (
                <SignInForm key="signIn" onSignedIn={() => navigate(afterSignIn, { replace: true })} />
              ) : (
                <RegisterForm key="register" onRegistered={() => navigate('/onboarding/pricing')} />
              )}
            </div>
          </div>
        </div>
      </main>
    </div>
  );
}
