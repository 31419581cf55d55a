import { useTranslation } from 'react-i18next';
import { BanknoteIcon } from 'lucide-react';
import type { AffiliateDashboard, PayoutStatus } from '../../../shared/affiliates.ts';
import { formatMoneyExact } from '../../../shared/currencies.ts';
import { KpiCard } from '../../components/kpi-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

export const PAYOUT_STATUS_CLASS: Record<PayoutStatus, string> = {
  requested: 'border-info/50 bg-info/10 text-base-content',
  approved: 'border-warning/60 bg-warning/15 text-base-content',
  paid: 'border-success/50 bg-success/10 text-base-content',
  rejected: 'badge-ghost',
};

/** Earned / pending / payable / paid, "Request payout" (with why it is disabled) and the payout history. */
export function PayoutsSection({ data }: { data: AffiliateDashboard }) {
  const { t, i18n } = useTranslation('affiliates');
  const locale = i18n.resolvedLanguage ?? 'en';
  const money = (minor: number) => formatMoneyExact(minor, data.currency, locale);
  const date = (iso: string) => new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(iso));
  const utils = trpc.useUtils();
  const request = trpc.affiliates.requestPayout.useMutation({
    onSuccess: () => utils.affiliates.dashboard.invalidate(),
    onError: (error) => toast({ title: t('payouts.requestFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  const { kpis, payouts } = data;
  const belowThreshold = kpis.payableMinor < payouts.thresholdMinor;
  const reason = payouts.open
    ? t('payouts.openReason', { amount: money(payouts.open.amountMinor), date: date(payouts.open.requestedAt), status: t(`payouts.status.${payouts.open.status}`) })
    : belowThreshold
      ? t('payouts.thresholdReason', { threshold: money(payouts.thresholdMinor) })
      : t('payouts.readyReason', { amount: money(kpis.payableMinor) });
  const figures = [
    ['earned', kpis.earnedMinor],
    ['pending', kpis.pendingMinor],
    ['payable', kpis.payableMinor],
    ['paid', kpis.paidMinor],
  ] as const;

  return (
    <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="affiliate-payouts" data-testid="affiliate-payouts">
      <div className="card-body gap-4">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <h2 id="affiliate-payouts" className="font-semibold">{t('payouts.title')}</h2>
            <p className="text-base-content/75 mt-1 text-sm" id="payout-reason" data-testid="payout-reason">{reason}</p>
          </div>
          <button
            type="button"
            className="btn btn-primary"
            disabled={belowThreshold || payouts.open !== null || request.isPending}
            aria-describedby="payout-reason"
            title={reason}
            onClick={() => request.mutate()}
            data-testid="payout-request"
          >
            {request.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <BanknoteIcon aria-hidden="true" />}
            {t('payouts.request')}
          </button>
        </div>

        <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          {figures.map(([key, minor]) => (
            <KpiCard key={key} label={t(`kpis.${key}`)} value={money(minor)} comparable={false} testId={`affiliate-kpi-${key}`} />
          ))}
        </div>
        {payouts.adjustmentMinor < 0 && (
          <p role="note" className="alert alert-warning alert-soft text-sm" data-testid="payout-adjustment">
            {t('payouts.adjustment', { amount: money(payouts.adjustmentMinor) })}
          </p>
        )}

        <h3 className="text-sm font-semibold">{t('payouts.history')}</h3>
        {payouts.history.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('payouts.none')}</p>
        ) : (
          <>
            <ul className="divide-base-content/10 divide-y sm:hidden" data-testid="payout-history-list">
              {payouts.history.map((payout) => (
                <li key={payout.id} className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 py-2 text-sm">
                  <span className="font-semibold tabular-nums">{money(payout.amountMinor)}</span>
                  <span className={`badge badge-sm whitespace-nowrap ${PAYOUT_STATUS_CLASS[payout.status]}`}>{t(`payouts.status.${payout.status}`)}</span>
                  <span className="text-base-content/70 w-full text-xs break-all">
                    {[date(payout.paidAt ?? payout.requestedAt), payout.reference].filter(Boolean).join(' · ')}
                  </span>
                </li>
              ))}
            </ul>
            <div className="hidden overflow-x-auto sm:block">
              <table className="table table-sm" data-testid="payout-history">
                <thead>
                  <tr>
                    <th scope="col">{t('payouts.columns.date')}</th>
                    <th scope="col" className="text-right">{t('payouts.columns.amount')}</th>
                    <th scope="col">{t('payouts.columns.status')}</th>
                    <th scope="col">{t('payouts.columns.reference')}</th>
                  </tr>
                </thead>
                <tbody>
                  {payouts.history.map((payout) => (
                    <tr key={payout.id}>
                      <td className="whitespace-nowrap">{date(payout.paidAt ?? payout.requestedAt)}</td>
                      <td className="text-right whitespace-nowrap tabular-nums">{money(payout.amountMinor)}</td>
                      <td>
                        <span className={`badge badge-sm whitespace-nowrap ${PAYOUT_STATUS_CLASS[payout.status]}`}>{t(`payouts.status.${payout.status}`)}</span>
                      </td>
                      <td className="break-all">{payout.reference ?? <span className="text-base-content/60">—</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </div>
    </section>
  );
}
