import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { ArrowLeftIcon, CreditCardIcon, FlaskConicalIcon, ShieldCheckIcon } from 'lucide-react';
import { toast } from '../../components/toast.tsx';
import { currentLanguage } from '../../lib/i18n.ts';
import { SUBSCRIPTION_QUERY } from '../../lib/query-settings.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../account-shared/format.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading, PageHeader } from '../account-shared/page-header.tsx';
import { intervalFromSearch } from '../billing/billing-texts.ts';
import { PlanFeatures, PlanPrice } from '../pricing/plan-cards.tsx';

function BackToPlans() {
  const { t } = useTranslation('account');
  return (
    <Link href="/pricing" className="btn btn-ghost btn-sm gap-1.5 -ml-2">
      <ArrowLeftIcon />
      {t('checkout.back')}
    </Link>
  );
}

function PlanNotFound() {
  const { t } = useTranslation('account');
  return (
    <div className="mx-auto max-w-lg py-10 text-center" data-testid="plan-not-found">
      <p className="text-primary text-5xl font-bold tracking-tight">404</p>
      <h1 className="mt-3 text-2xl font-bold tracking-tight">{t('checkout.notFound.title')}</h1>
      <p className="text-base-content/70 mt-2">{t('checkout.notFound.body')}</p>
      <Link href="/pricing" className="btn btn-primary mt-6">
        {t('checkout.notFound.action')}
      </Link>
    </div>
  );
}

/** /checkout/{planId}: what the plan gives, then one confirmation through the configured payment provider. */
export function CheckoutPage({ planId }: { planId: string }) {
  const { t } = useTranslation('account');
  const [, navigate] = useLocation();
  const interval = intervalFromSearch(useSearch());
  const utils = trpc.useUtils();
  const language = currentLanguage();
  const plans = trpc.subscription.plans.useQuery();
  const provider = trpc.subscription.provider.useQuery();
  const current = trpc.subscription.current.useQuery(undefined, SUBSCRIPTION_QUERY);
  const id = /^\d+$/.test(planId) ? Number(planId) : null;
  const plan = id === null ? undefined : plans.data?.find((candidate) => candidate.id === id);

  const checkout = trpc.subscription.checkout.useMutation({
    onSuccess: async (result) => {
      if (result.status === 'redirect' && result.redirectUrl) {
        window.location.assign(result.redirectUrl);
        return;
      }
      utils.subscription.current.setData(undefined, result.current);
      toast({
        title: t('checkout.success.title'),
        description: t('checkout.success.description', { plan: result.current.subscription?.plan.name ?? plan?.name ?? '' }),
        variant: 'success',
      });
      await utils.invalidate();
      navigate('/dashboard');
    },
    onError: (error) => toast({ title: t('checkout.failed'), description: errorText(t, error), variant: 'destructive' }),
  });

  if (plans.isPending) return <InlineLoading label={t('checkout.loading')} />;
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
  if (!plan) return <PlanNotFound />;

  const testMode = provider.data?.testMode === true;
  const live = current.data?.access === 'own' && current.data.hasActiveSubscription ? current.data.subscription : null;
  const samePlan = live?.plan.id === plan.id && live.status !== 'trial';

  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <div className="space-y-2">
        <BackToPlans />
        <PageHeader title={t('checkout.title', { plan: plan.name })} description={t('checkout.description')} />
      </div>

      {testMode && (
        <div role="note" className="alert alert-warning" data-testid="test-mode">
          <FlaskConicalIcon className="shrink-0 text-xl" />
          <div>
            <p className="font-semibold">{t('checkout.testMode.label')}</p>
            <p className="text-sm">{t('checkout.testMode.body')}</p>
          </div>
        </div>
      )}

      <div className="grid gap-4 md:grid-cols-5">
        <section className="card bg-base-100 border-base-content/10 border shadow-sm md:col-span-3" aria-labelledby="summary-heading">
          <div className="card-body gap-4">
            <h2 id="summary-heading" className="text-base-content/70 text-sm font-semibold tracking-wide uppercase">
              {t('checkout.summary')}
            </h2>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h3 className="text-xl font-bold">{plan.name}</h3>
              <PlanPrice plan={plan} size="md" className="flex-none" interval={interval} />
            </div>
            <div className="divider my-0" />
            <PlanFeatures plan={plan} />
          </div>
        </section>

        <section className="card bg-base-100 border-base-content/10 border shadow-sm md:col-span-2" aria-labelledby="confirm-heading">
          <div className="card-body gap-4">
            <h2 id="confirm-heading" className="flex items-center gap-2 font-semibold">
              <CreditCardIcon className="text-primary" />
              {t('checkout.confirmTitle')}
            </h2>
            <div className="text-base-content/80 space-y-3 text-sm">
              <p>{t('checkout.billing')}</p>
              {live && !samePlan && (
                <p data-testid="replaces-plan">
                  {t(live.status === 'trial' ? 'checkout.replacesTrial' : 'checkout.replaces', {
                    plan: live.plan.name,
                    date: formatDate(live.currentPeriodEnd, language),
                  })}
                </p>
              )}
              {samePlan && <p className="text-base-content font-medium">{t('checkout.alreadyOnPlan', { date: formatDate(live.currentPeriodEnd, language) })}</p>}
            </div>
            <button
              type="button"
              className="btn btn-primary w-full"
              onClick={() => checkout.mutate({ planId: plan.id, interval })}
              disabled={checkout.isPending || samePlan}
              aria-busy={checkout.isPending}
            >
              {checkout.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {checkout.isPending ? t('checkout.confirming') : t('checkout.confirm')}
            </button>
            <p className="text-base-content/70 flex items-start gap-1.5 text-xs">
              <ShieldCheckIcon className="mt-0.5 shrink-0" />
              {testMode ? t('checkout.testMode.footer') : t('checkout.secure')}
            </p>
          </div>
        </section>
      </div>
    </div>
  );
}
