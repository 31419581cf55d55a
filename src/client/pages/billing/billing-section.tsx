import { useTranslation } from 'react-i18next';
import { FileTextIcon, ReceiptIcon } from 'lucide-react';
import { formatMoney } from '../../lib/format.ts';
import { currentLanguage } from '../../lib/i18n.ts';
import { SUBSCRIPTION_QUERY } from '../../lib/query-settings.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../account-shared/format.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading } from '../account-shared/page-header.tsx';
import { SettingsCard } from '../settings/settings-card.tsx';
import { ManageBillingButton } from './manage-billing-button.tsx';

const STATUS_BADGE: Record<string, string> = {
  paid: 'badge-success',
  open: 'badge-warning',
  uncollectible: 'badge-error',
  void: 'badge-ghost',
  draft: 'badge-ghost',
};

/** /settings#billing: the plan's billing state, "Manage billing" (Stripe only) and the invoices with their PDFs. */
export function BillingSection() {
  const { t } = useTranslation('billing');
  const language = currentLanguage();
  const provider = trpc.subscription.provider.useQuery();
  const current = trpc.subscription.current.useQuery(undefined, SUBSCRIPTION_QUERY);
  const invoices = trpc.subscription.invoices.useQuery();
  const subscription = current.data?.access === 'own' ? current.data.subscription : null;
  const stripe = provider.data?.id === 'stripe';

  return (
    <SettingsCard id="billing" icon={<ReceiptIcon />} title={t('title')} description={t('description')}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm" data-testid="billing-state">
          {subscription
            ? subscription.cancelAtPeriodEnd
              ? t('endsOn', { plan: subscription.plan.name, date: formatDate(subscription.currentPeriodEnd, language) })
              : t(`state.${subscription.status}`, { plan: subscription.plan.name, date: formatDate(subscription.graceUntil ?? subscription.currentPeriodEnd, language) })
            : t('noPlan')}
        </p>
        {stripe && subscription?.provider === 'stripe' && <ManageBillingButton />}
      </div>

      <div>
        <h3 className="mb-2 font-semibold">{t('invoices.title')}</h3>
        {invoices.isPending && <InlineLoading label={t('invoices.loading')} />}
        {invoices.isError && (
          <div role="alert" className="alert alert-error alert-soft">
            <span>{errorText(t, invoices.error)}</span>
          </div>
        )}
        {invoices.data?.length === 0 && (
          <p className="text-base-content/70 rounded-box border-base-content/20 border border-dashed p-4 text-center text-sm" data-testid="invoices-empty">
            {t('invoices.empty')}
          </p>
        )}
        {invoices.data && invoices.data.length > 0 && (
          <div className="overflow-x-auto">
            <table className="table table-sm" data-testid="invoices">
              <thead>
                <tr>
                  <th>{t('invoices.period')}</th>
                  <th className="text-right">{t('invoices.amount')}</th>
                  <th>{t('invoices.status')}</th>
                  <th>
                    <span className="sr-only">{t('invoices.documents')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {invoices.data.map((invoice) => (
                  <tr key={invoice.id} data-testid="invoice-row" data-status={invoice.status}>
                    <td>
                      {formatDate(invoice.periodStart, language)} – {formatDate(invoice.periodEnd, language)}
                    </td>
                    <td className="text-right tabular-nums">
                      {formatMoney(invoice.status === 'paid' ? invoice.amountPaidMinor : invoice.amountDueMinor, invoice.currency, language)}
                      {invoice.amountRefundedMinor > 0 && (
                        <span className="text-base-content/70 block text-xs" data-testid="invoice-refunded">
                          {t('invoices.refunded', { amount: formatMoney(invoice.amountRefundedMinor, invoice.currency, language) })}
                        </span>
                      )}
                    </td>
                    <td>
                      <div className="flex flex-wrap gap-1">
                        <span className={`badge badge-sm badge-soft ${STATUS_BADGE[invoice.status] ?? 'badge-ghost'}`}>{t(`invoices.statuses.${invoice.status}`)}</span>
                        {invoice.disputed && (
                          <span className="badge badge-sm badge-error" title={t('invoices.disputedHint')} data-testid="invoice-disputed">
                            {t('invoices.disputed')}
                          </span>
                        )}
                      </div>
                    </td>
                    <td className="text-right whitespace-nowrap">
                      {invoice.invoicePdf && (
                        <a className="link link-primary inline-flex items-center gap-1" href={invoice.invoicePdf} target="_blank" rel="noreferrer" data-testid="invoice-pdf">
                          <FileTextIcon />
                          {t('invoices.pdf')}
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </SettingsCard>
  );
}
