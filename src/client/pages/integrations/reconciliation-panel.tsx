import { CircleCheckIcon, ScaleIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { Integration, ReconciliationView } from '../../../shared/integrations.ts';
import { formatMoney } from '../../lib/format.ts';
import { currentLanguage } from '../../lib/i18n.ts';
import { formatRelativeTime } from './integration-view.ts';

// "Why don't the numbers match?": after each sync our per-day figures are compared with the
// platform's own totals. Either a green "Matches source", or the difference with the days that differ
// and the orders that explain it.

function formatDay(day: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

interface Figure {
  key: 'orders' | 'netSales' | 'spend';
  ours: number;
  source: number | null;
  money: boolean;
}

function figuresOf(result: ReconciliationView, kind: Integration['kind']): Figure[] {
  if (kind === 'ads') return [{ key: 'spend', ours: result.ourSpend ?? 0, source: result.sourceSpend ?? null, money: true }];
  return [
    { key: 'orders', ours: result.ourOrders, source: result.sourceOrders, money: false },
    { key: 'netSales', ours: result.ourNetSales, source: result.sourceNetSales, money: true },
  ];
}

/** "+£12.30 (+2.1 %)": ours minus the platform's, with the percentage of the platform's figure. */
function differenceText(ours: number, source: number, money: boolean, currency: string, locale: string): string {
  const difference = ours - source;
  const sign = difference > 0 ? '+' : difference < 0 ? '−' : '±';
  const amount = money ? formatMoney(Math.abs(difference), currency, locale) : new Intl.NumberFormat(locale).format(Math.abs(difference));
  if (source === 0) return `${sign}${amount}`;
  const percent = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(Math.abs((difference / source) * 100));
  return `${sign}${amount} (${sign}${percent} %)`;
}

export function ReconciliationPanel({ result, kind, platformName, accounts = [] }: { result: ReconciliationView; kind: Integration['kind']; platformName: string; accounts?: Integration['accounts'] }) {
  const { t } = useTranslation('integrations');
  const locale = currentLanguage();
  const show = (value: number | null, money: boolean, currency = result.currency) =>
    value === null ? t('reconciliation.notReported') : money ? formatMoney(value, currency, locale) : new Intl.NumberFormat(locale).format(value);
  const accountName = (accountId: string | undefined) => (accountId ? (accounts.find((account) => account.accountId === accountId)?.name ?? accountId) : null);
  const period = t('reconciliation.period', { from: formatDay(result.from, locale), to: formatDay(result.to, locale), checked: formatRelativeTime(result.checkedAt, locale) });

  if (result.matches) {
    return (
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm" data-testid="reconciliation" data-matches="true">
        <span className="badge badge-success gap-1 font-medium">
          <CircleCheckIcon className="size-3.5" aria-hidden="true" />
          {t('reconciliation.matches')}
        </span>
        <span className="text-base-content/70 text-xs">{period}</span>
      </div>
    );
  }

  const figures = figuresOf(result, kind);
  const showSpendPerDay = kind === 'ads';
  // A platform without net sales of its own (Shopify's and WooCommerce's APIs) is compared on counts only.
  const showNetSalesPerDay = result.sourceNetSales !== null;
  return (
    <section className="border-warning/40 bg-warning/5 rounded-box border p-3 text-sm" data-testid="reconciliation" data-matches="false" aria-label={t('reconciliation.label')}>
      <div className="flex items-start gap-2">
        <ScaleIcon className="text-warning mt-0.5 size-4 shrink-0" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <p className="font-semibold">{t('reconciliation.differs', { platform: platformName })}</p>
          <p className="text-base-content/70 text-xs">{period}</p>
        </div>
      </div>
      <div className="mt-2 overflow-x-auto">
      <table className="table-xs table">
        <thead>
          <tr>
            <th scope="col" className="pl-0">
              <span className="sr-only">{t('reconciliation.figure')}</span>
            </th>
            <th scope="col" className="text-right">{t('reconciliation.ours')}</th>
            <th scope="col" className="text-right">{t('reconciliation.source', { platform: platformName })}</th>
            <th scope="col" className="text-right">{t('reconciliation.difference')}</th>
          </tr>
        </thead>
        <tbody>
          {figures.map((figure) => (
            <tr key={figure.key} data-testid={`reconciliation-${figure.key}`}>
              <th scope="row" className="pl-0 font-normal">{t(`reconciliation.figures.${figure.key}`)}</th>
              <td className="text-right whitespace-nowrap tabular-nums">{show(figure.ours, figure.money)}</td>
              <td className={`text-right whitespace-nowrap tabular-nums ${figure.source === null ? 'text-base-content/70' : figure.source !== figure.ours ? 'font-semibold' : ''}`}>
                {show(figure.source, figure.money)}
              </td>
              <td className="text-right whitespace-nowrap tabular-nums" data-testid={`reconciliation-${figure.key}-difference`}>
                {figure.source === null ? '—' : differenceText(figure.ours, figure.source, figure.money, result.currency, locale)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {(result.days.length > 0 || result.explanations.length > 0) && (
        <details className="group mt-2">
          <summary className="link link-hover text-xs font-medium">
            {t('reconciliation.details', { days: result.days.length, orders: result.explanations.length })}
          </summary>
          <div className="mt-2 max-h-72 space-y-3 overflow-y-auto pr-1">
            {result.days.length > 0 && (
              <table className="table-xs table" data-testid="reconciliation-days">
                <caption className="text-base-content/70 pb-1 text-left text-xs">{t('reconciliation.daysCaption')}</caption>
                <thead>
                  <tr>
                    <th scope="col" className="pl-0">{t('reconciliation.day')}</th>
                    {showSpendPerDay ? (
                      <th scope="col" className="text-right">{t('reconciliation.figures.spend')}</th>
                    ) : (
                      <>
                        <th scope="col" className="text-right">{t('reconciliation.figures.orders')}</th>
                        {showNetSalesPerDay && <th scope="col" className="text-right">{t('reconciliation.figures.netSales')}</th>}
                      </>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {result.days.map((day) => (
                    <tr key={`${day.day}-${day.accountId ?? ''}-${day.currency ?? ''}`}>
                      <th scope="row" className="pl-0 font-normal whitespace-nowrap">
                        {formatDay(day.day, locale)}
                        {day.accountId && <span className="text-base-content/70 block text-[0.7rem] font-normal">{accountName(day.accountId)}</span>}
                      </th>
                      {showSpendPerDay ? (
                        <td className="text-right tabular-nums">
                          {t('reconciliation.versus', { ours: show(day.ourSpend ?? 0, true, day.currency), source: show(day.sourceSpend ?? null, true, day.currency) })}
                        </td>
                      ) : (
                        <>
                          <td className="text-right tabular-nums">{t('reconciliation.versus', { ours: show(day.ourOrders, false), source: show(day.sourceOrders, false) })}</td>
                          {showNetSalesPerDay && <td className="text-right tabular-nums">{t('reconciliation.versus', { ours: show(day.ourNetSales, true), source: show(day.sourceNetSales, true) })}</td>}
                        </>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {result.explanations.length > 0 && (
              <div>
                <p className="text-base-content/70 pb-1 text-xs">{t('reconciliation.ordersCaption')}</p>
                <ul className="divide-base-content/10 divide-y" data-testid="reconciliation-orders">
                  {result.explanations.map((explanation) => (
                    <li key={`${explanation.orderExternalId}-${explanation.reason}`} className="py-1.5">
                      <div className="flex flex-wrap items-center gap-2">
                        <span className="font-medium">{explanation.orderNumber ? t('reconciliation.order', { number: explanation.orderNumber }) : explanation.orderExternalId}</span>
                        <span className="badge badge-sm badge-outline">{t(`reasons.${explanation.reason}`)}</span>
                      </div>
                      <p className="text-base-content/75 text-xs">{explanation.detail}</p>
                    </li>
                  ))}
                </ul>
              </div>
            )}
          </div>
        </details>
      )}
    </section>
  );
}
