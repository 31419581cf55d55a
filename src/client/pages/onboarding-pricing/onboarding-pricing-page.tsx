import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { ArrowRightIcon } from 'lucide-react';
import { TRIAL_DAYS } from '../../../shared/plans.ts';
import { useAuth } from '../../lib/auth.tsx';
import { PublicShell } from '../account-shared/public-shell.tsx';
import { PlanCards } from '../pricing/plan-cards.tsx';

/** Right after registration: a welcome, the plans (a started trial leads to the dashboard), or skip for now. */
export function OnboardingPricingPage() {
  const { t } = useTranslation('account');
  const [, navigate] = useLocation();
  const { session } = useAuth();
  const username = session.status === 'signedIn' ? session.user.username : null;

  return (
    <PublicShell>
      <div className="mx-auto max-w-2xl text-center">
        <p className="text-base-content/70 text-sm font-semibold tracking-wide uppercase">{t('onboarding.step')}</p>
        <h1 className="mt-2 text-3xl font-bold tracking-tight text-balance sm:text-4xl">
          {username ? t('onboarding.welcomeNamed', { username }) : t('onboarding.welcome')}
        </h1>
        <p className="text-base-content/70 mt-3 text-balance">{t('onboarding.subtitle', { days: TRIAL_DAYS })}</p>
      </div>

      <div className="mt-8 sm:mt-10">
        <PlanCards onTrialStarted={() => navigate('/dashboard')} />
      </div>

      <div className="mt-8 flex flex-col items-center gap-2 text-center">
        <Link href="/store-management" className="btn btn-ghost gap-2">
          {t('onboarding.skip')}
          <ArrowRightIcon />
        </Link>
        <p className="text-base-content/70 max-w-md text-xs text-balance">{t('onboarding.skipHint')}</p>
      </div>
    </PublicShell>
  );
}
