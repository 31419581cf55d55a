import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { CheckIcon, XIcon } from 'lucide-react';
import { TRIAL_DAYS, tierFromPlanName, type PlanTier } from '../../../shared/plans.ts';
import type { BillingInterval } from '../../../shared/billing.ts';
import type { CurrentSubscription, Plan } from '../../../shared/subscriptions.ts';
import { searchForInterval } from '../billing/billing-texts.ts';
import { toast } from '../../components/toast.tsx';
import { useAuth } from '../../lib/auth.tsx';
import { formatMoney } from '../../lib/format.ts';
import { currentLanguage } from '../../lib/i18n.ts';
import { SUBSCRIPTION_QUERY } from '../../lib/query-settings.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../account-shared/format.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading } from '../account-shared/page-header.tsx';

/** What every plan includes besides its number of dashboards. */
const SHARED_FEATURES = ['analytics', 'reports', 'advertising', 'loyalty', 'integrations'] as const;
const HIGHLIGHTED_TIER: PlanTier = 'professional';

function planTier(plan: Pick<Plan, 'name' | 'tier'>): PlanTier {
  return tierFromPlanName(plan.name) ?? tierFromPlanName(plan.tier) ?? 'basic';
}

/** "£29 / month" (or "£290 / year": ten months, two free) with the amount set large. */
export function PlanPrice({ plan, size = 'lg', className = '', interval = 'month' }: { plan: Plan; size?: 'lg' | 'md'; className?: string; interval?: BillingInterval }) {
  const { t } = useTranslation('account');
  return (
    <p className={`text-base-content/70 text-sm ${className}`} data-testid="plan-price">
      <Trans
        t={t}
        i18nKey={interval === 'year' ? 'pricing.pricePerYear' : 'pricing.pricePerMonth'}
        values={{ price: formatMoney(interval === 'year' ? plan.monthlyPriceMinor * 10 : plan.monthlyPriceMinor, plan.currency, currentLanguage()) }}
        components={{ amount: <span className={`text-base-content font-bold tracking-tight ${size === 'lg' ? 'text-4xl' : 'text-2xl'}`} /> }}
      />
    </p>
  );
}

/** The plan's features as a checklist; the AI tools line is crossed out on plans without them. */
export function PlanFeatures({ plan }: { plan: Plan }) {
  const { t } = useTranslation('account');
  return (
    <ul className="space-y-2 text-sm">
      <li className="flex items-start gap-2 font-medium">
        <CheckIcon className="text-success mt-0.5 shrink-0" />
        <span>{t('pricing.dashboards', { count: plan.maxDashboards })}</span>
      </li>
      {SHARED_FEATURES.map((feature) => (
        <li key={feature} className="flex items-start gap-2">
          <CheckIcon className="text-success mt-0.5 shrink-0" />
          <span>{t(`pricing.features.${feature}`)}</span>
        </li>
      ))}
      {plan.includesAiTools ? (
        <li className="flex items-start gap-2 font-medium">
          <CheckIcon className="text-primary mt-0.5 shrink-0" />
          <span>{t('pricing.features.aiTools')}</span>
        </li>
      ) : (
        <li className="text-base-content/60 flex items-start gap-2">
          <XIcon className="mt-0.5 shrink-0" />
          <span>
            <span className="sr-only">{t('pricing.notIncluded')} </span>
            {t('pricing.features.aiToolsMissing')}
          </span>
        </li>
      )}
    </ul>
  );
}

/** Trial on offer: a user with no subscription of their own so far (so never a trial either). */
function trialOnOffer(current: CurrentSubscription | undefined): boolean {
  return current !== undefined && current.subscription === null && current.access !== 'own';
}

interface PlanCardsProps {
  /** Where a started trial leads; stays on the page when not given. */
  onTrialStarted?: () => void;
  /** The prices shown and the checkout links' interval. */
  interval?: BillingInterval;
}

/** The four plans side by side, with the signed-in user's current plan marked and the ways to take one. */
export function PlanCards({ onTrialStarted, interval = 'month' }: PlanCardsProps) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const { session } = useAuth();
  const signedIn = session.status === 'signedIn';
  const plans = trpc.subscription.plans.useQuery();
  const provider = trpc.subscription.provider.useQuery();
  const current = trpc.subscription.current.useQuery(undefined, { ...SUBSCRIPTION_QUERY, enabled: signedIn });
  const language = currentLanguage();

  const startTrial = trpc.subscription.startTrial.useMutation({
    onSuccess: async (next, { planId }) => {
      utils.subscription.current.setData(undefined, next);
      const plan = plans.data?.find((candidate) => candidate.id === planId);
      toast({
        title: t('pricing.trialStarted.title'),
        description: t('pricing.trialStarted.description', {
          plan: plan?.name ?? '',
          date: next.subscription ? formatDate(next.subscription.currentPeriodEnd, language) : '',
        }),
        variant: 'success',
      });
      // Access, limits and menus all depend on the plan.
      await utils.invalidate();
      onTrialStarted?.();
    },
    onError: (error) => toast({ title: t('pricing.trialFailed'), description: errorText(t, error), variant: 'destructive' }),
  });

  if (plans.isPending) return <InlineLoading label={t('pricing.loading')} />;
  if (plans.isError) {
    return (
      <div role="alert" className="alert alert-error alert-soft mx-auto max-w-xl">
        <span>{t('pricing.loadFailed')}</span>
        <button type="button" className="btn btn-sm" onClick={() => void plans.refetch()}>
          {t('actions.retry')}
        </button>
      </div>
    );
  }

  const subscription = current.data?.access === 'own' ? current.data.subscription : null;
  const livePlanId = current.data?.hasActiveSubscription && subscription ? subscription.plan.id : null;
  // With Stripe the trial is part of checkout (trial_period_days), so there is no separate trial button.
  const offerTrial = signedIn && provider.data !== undefined && provider.data.id !== 'stripe' && trialOnOffer(current.data);
  const waitingForSubscription = signedIn && current.isPending;

  return (
    <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      {plans.data.map((plan) => {
        const tier = planTier(plan);
        const isCurrent = plan.id === livePlanId;
        const onTrial = isCurrent && subscription?.status === 'trial';
        const highlighted = isCurrent || (livePlanId === null && tier === HIGHLIGHTED_TIER);
        return (
          <li
            key={plan.id}
            className={`card bg-base-100 border shadow-sm ${highlighted ? 'border-primary ring-primary/30 ring-2' : 'border-base-content/10'}`}
            data-testid="plan-card"
            data-plan={tier}
            aria-current={isCurrent ? 'true' : undefined}
          >
            <div className="card-body gap-4">
              {/* Fixed-height rows, so prices and feature lists line up across the cards (side by side only: a stacked card drops an empty badge row). */}
              <div>
                <div className="flex h-6 flex-wrap items-center gap-2 empty:hidden sm:empty:flex">
                  {isCurrent && (
                    <span className="badge badge-primary badge-sm" data-testid="current-plan-badge">
                      {onTrial ? t('pricing.currentTrial') : t('pricing.current')}
                    </span>
                  )}
                  {!isCurrent && livePlanId === null && tier === HIGHLIGHTED_TIER && (
                    <span className="badge badge-outline border-primary text-base-content badge-sm">{t('pricing.popular')}</span>
                  )}
                </div>
                <h2 className="card-title mt-1 text-lg">{plan.name}</h2>
                <p className="text-base-content/70 mt-1 text-sm sm:min-h-10">{t(`pricing.taglines.${tier}`)}</p>
              </div>
              <div>
                <PlanPrice plan={plan} interval={interval} />
                <p className="text-base-content/80 mt-1 text-xs sm:min-h-4">
                  {isCurrent && subscription
                    ? t(onTrial ? 'pricing.trialEnds' : 'pricing.renews', { date: formatDate(subscription.currentPeriodEnd, language) })
                    : null}
                </p>
              </div>
              <PlanFeatures plan={plan} />

              <div className="card-actions mt-auto flex-col items-stretch gap-2 pt-2">
                {!signedIn ? (
                  <Link href="/auth?tab=register" className={`btn ${highlighted ? 'btn-primary' : 'btn-outline'}`}>
                    {t('pricing.createAccount')}
                  </Link>
                ) : waitingForSubscription ? (
                  <div className="skeleton h-10 w-full" aria-hidden="true" />
                ) : (
                  <>
                    {offerTrial && (
                      <button
                        type="button"
                        className="btn btn-primary"
                        onClick={() => startTrial.mutate({ planId: plan.id })}
                        disabled={startTrial.isPending}
                        aria-label={t('pricing.startTrialFor', { plan: plan.name, days: TRIAL_DAYS })}
                      >
                        {startTrial.isPending && startTrial.variables?.planId === plan.id && (
                          <span className="loading loading-spinner loading-sm" aria-hidden="true" />
                        )}
                        {t('pricing.startTrial', { days: TRIAL_DAYS })}
                      </button>
                    )}
                    {isCurrent && !onTrial ? (
                      <button type="button" className="btn btn-disabled" disabled>
                        {t('pricing.current')}
                      </button>
                    ) : (
                      <Link href={`/checkout/${plan.id}${searchForInterval(interval)}`} className={`btn ${offerTrial || !highlighted ? 'btn-outline' : 'btn-primary'}`}>
                        {t('pricing.choose', { plan: plan.name })}
                      </Link>
                    )}
                  </>
                )}
              </div>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
