import { useTranslation } from 'react-i18next';
import { CreditCardIcon } from 'lucide-react';
import { toast } from '../../components/toast.tsx';
import { trpc } from '../../lib/trpc.ts';
import { errorText } from '../account-shared/messages.ts';

/** Opens the Stripe Customer Portal (card, plan change, cancellation at period end). */
export function ManageBillingButton({ className = 'btn btn-primary btn-sm' }: { className?: string }) {
  const { t } = useTranslation('billing');
  const portal = trpc.subscription.billingPortal.useMutation({
    onSuccess: ({ url }) => window.location.assign(url),
    onError: (error) => toast({ title: t('portalFailed'), description: errorText(t, error), variant: 'destructive' }),
  });
  return (
    <button type="button" className={`${className} gap-1.5`} onClick={() => portal.mutate()} disabled={portal.isPending} data-testid="manage-billing">
      {portal.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <CreditCardIcon />}
      {t('manage')}
    </button>
  );
}
