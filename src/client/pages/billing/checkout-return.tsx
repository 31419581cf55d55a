import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { CheckCircleIcon } from 'lucide-react';
import { trpc } from '../../lib/trpc.ts';

const CONFIRM_POLL_MS = 2000;

/**
 * Back from Stripe Checkout. The redirect proves nothing: the page waits, polling, for the
 * subscription that the webhooks create, and says so until it exists.
 */
export function CheckoutReturn({ result }: { result: 'success' | 'canceled' }) {
  const { t } = useTranslation('billing');
  const utils = trpc.useUtils();
  const current = trpc.subscription.current.useQuery(undefined, {
    enabled: result === 'success',
    refetchInterval: (query) => (confirmed(query.state.data) ? false : CONFIRM_POLL_MS),
    refetchOnWindowFocus: true,
  });
  const done = result === 'success' && confirmed(current.data);
  // Plan, limits and menus follow the new subscription once it exists.
  useEffect(() => {
    if (done) void utils.invalidate();
  }, [done, utils]);
  if (result === 'canceled') {
    return (
      <div role="status" className="alert alert-soft" data-testid="checkout-return" data-state="canceled">
        <span>{t('checkout.canceled')}</span>
      </div>
    );
  }
  return done ? (
    <div role="status" className="alert alert-success alert-soft" data-testid="checkout-return" data-state="active">
      <CheckCircleIcon className="shrink-0" />
      <span>{t('checkout.confirmed', { plan: current.data?.subscription?.plan.name ?? '' })}</span>
    </div>
  ) : (
    <div role="status" className="alert alert-info alert-soft" data-testid="checkout-return" data-state="confirming">
      <span className="loading loading-spinner loading-sm" aria-hidden="true" />
      <span>{t('checkout.confirming')}</span>
    </div>
  );
}

function confirmed(data: { hasActiveSubscription: boolean; subscription: { provider: string } | null } | undefined): boolean {
  return data?.hasActiveSubscription === true && data.subscription?.provider === 'stripe';
}
