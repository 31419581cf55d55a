import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { TRIAL_DAYS } from '../../../shared/plans.ts';
import { useAuth } from '../../lib/auth.tsx';
import { trpc } from '../../lib/trpc.ts';
import { PageHeader } from '../account-shared/page-header.tsx';
import { intervalFromSearch, searchForInterval } from '../billing/billing-texts.ts';
import { CheckoutReturn } from '../billing/checkout-return.tsx';
import { PlanCards } from './plan-cards.tsx';

/**
 * /pricing: the four plans, monthly or yearly (?billing=yearly). The route frames it (the signed-in
 * layout, or the public header for visitors, whose cards then lead to registration). Stripe
 * Checkout returns here with ?checkout=success|canceled.
 */
export function PricingPage() {
  const { t } = useTranslation('account');
  const search = useSearch();
  const [location, navigate] = useLocation();
  const { session } = useAuth();
  const interval = intervalFromSearch(search);
  const checkoutResult = new URLSearchParams(search).get('checkout');
  // Stripe Checkout asks for the card up front and charges it when the trial ends.
  const cardTrial = trpc.subscription.provider.useQuery().data?.id === 'stripe';
  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <PageHeader title={t('pricing.title')} description={t('pricing.description')} />
      {session.status === 'signedIn' && (checkoutResult === 'success' || checkoutResult === 'canceled') && <CheckoutReturn result={checkoutResult} />}
      <div className="flex justify-center">
        <div role="radiogroup" aria-label={t('pricing.interval.label')} className="join" data-testid="billing-interval">
          {(['month', 'year'] as const).map((option) => (
            <button
              key={option}
              type="button"
              role="radio"
              aria-checked={interval === option}
              className={`btn join-item btn-sm ${interval === option ? 'btn-primary' : 'btn-outline'}`}
              onClick={() => navigate(`${location}${searchForInterval(option)}`, { replace: true })}
            >
              {t(option === 'month' ? 'pricing.interval.monthly' : 'pricing.interval.yearly')}
              {option === 'year' && <span className="badge badge-sm badge-success badge-soft">{t('pricing.interval.saving')}</span>}
            </button>
          ))}
        </div>
      </div>
      <PlanCards interval={interval} />
      <p className="text-base-content/70 text-center text-sm text-balance">{interval === 'year' ? t('pricing.footnoteYearly') : t(cardTrial ? 'pricing.footnoteCardTrial' : 'pricing.footnote', { days: TRIAL_DAYS })}</p>
    </div>
  );
}
