import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { AlertTriangleIcon } from 'lucide-react';
import { currentLanguage } from '../lib/i18n.ts';
import { SUBSCRIPTION_QUERY } from '../lib/query-settings.ts';
import { trpc } from '../lib/trpc.ts';
import { formatDate } from '../pages/account-shared/format.ts';

/** Above the header while the user's own plan is past_due: the payment failed, access ends after the grace period. */
export function PaymentBanner() {
  const { t } = useTranslation('billing');
  const current = trpc.subscription.current.useQuery(undefined, SUBSCRIPTION_QUERY);
  const subscription = current.data?.access === 'own' ? current.data.subscription : null;
  if (!subscription || subscription.status !== 'past_due' || !current.data?.hasActiveSubscription) return null;
  return (
    <div className="bg-error text-error-content" role="alert" data-testid="past-due-banner">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 px-4 py-2 sm:px-6">
        <p className="flex min-w-0 items-start gap-2 text-sm">
          <AlertTriangleIcon className="mt-0.5 shrink-0 text-base" />
          <span>{t('pastDue', { date: formatDate(subscription.graceUntil ?? subscription.currentPeriodEnd, currentLanguage()) })}</span>
        </p>
        <Link href="/settings#billing" className="btn btn-sm border-error-content/30 bg-error-content/10 text-error-content hover:bg-error-content/20">
          {t('updateCard')}
        </Link>
      </div>
    </div>
  );
}
