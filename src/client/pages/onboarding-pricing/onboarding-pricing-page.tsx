import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Brand } from '../../components/brand.tsx';
import { ArrowRightIcon, CheckIcon } from '../../components/icons.tsx';
import { LanguageMenu } from '../../components/language-menu.tsx';
import { ThemeMenu } from '../../components/theme-menu.tsx';
import { formatMoney } from '../../lib/format.ts';
import { currentLanguage } from '../../lib/i18n.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

/** After registration: the plans on offer. Choosing one (trial or checkout) comes with the subscription screens. */
export function OnboardingPricingPage() {
  const { t } = useTranslation();
  const plans = trpc.subscription.plans.useQuery();
  const language = currentLanguage();

  return (
    <div className="flex min-h-screen flex-col">
      <header className="mx-auto flex h-16 w-full max-w-6xl items-center gap-2 px-4 sm:px-6">
        <Brand />
        <div className="ml-auto flex items-center gap-1">
          <LanguageMenu />
          <ThemeMenu />
        </div>
      </header>

      <main className="mx-auto w-full max-w-6xl flex-1 px-4 pt-6 pb-12 sm:px-6 sm:pt-10">
        <div className="mx-auto max-w-2xl text-center">
          <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">{t('onboarding.title')}</h1>
          <p className="text-base-content/70 mt-3 text-balance">{t('onboarding.subtitle')}</p>
        </div>

        <div className="mt-10">
          {plans.isPending && (
            <div className="flex justify-center py-12" role="status" aria-live="polite">
              <span className="loading loading-spinner loading-lg text-primary" aria-hidden="true" />
              <span className="sr-only">{t('onboarding.loading')}</span>
            </div>
          )}

          {plans.isError && (
            <div role="alert" className="alert alert-error alert-soft mx-auto max-w-xl">
              <span>{serverMessage(plans.error) ?? t('onboarding.loadFailed')}</span>
              <button type="button" className="btn btn-sm" onClick={() => void plans.refetch()}>
                {t('status.retry')}
              </button>
            </div>
          )}

          {plans.data && (
            <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              {plans.data.map((plan) => (
                <li key={plan.id} className="card bg-base-100 border-base-content/10 border shadow-sm" data-testid="plan-card">
                  <div className="card-body gap-4">
                    <h2 className="card-title text-lg">{plan.name}</h2>
                    <div className="text-base-content/70 text-sm">
                      <Trans
                        i18nKey="onboarding.pricePerMonth"
                        values={{ price: formatMoney(plan.monthlyPriceMinor, plan.currency, language) }}
                        components={{ amount: <span className="text-base-content text-3xl font-bold tracking-tight" /> }}
                      />
                    </div>
                    <ul className="space-y-2 text-sm">
                      <li className="flex items-start gap-2">
                        <CheckIcon className="text-success mt-0.5 shrink-0" />
                        <span>{t('onboarding.dashboards', { count: plan.maxDashboards })}</span>
                      </li>
                      <li className="flex items-start gap-2">
                        <CheckIcon className="text-success mt-0.5 shrink-0" />
                        <span>{t('onboarding.analytics')}</span>
                      </li>
                      {plan.includesAiTools && (
                        <li className="flex items-start gap-2">
                          <CheckIcon className="text-success mt-0.5 shrink-0" />
                          <span>{t('onboarding.aiTools')}</span>
                        </li>
                      )}
                    </ul>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>

        <div className="mt-10 flex justify-center">
          <Link href="/dashboard" className="btn btn-primary gap-2">
            {t('onboarding.continue')}
            <ArrowRightIcon />
          </Link>
        </div>
      </main>
    </div>
  );
}
