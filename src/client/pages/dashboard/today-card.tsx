import { SunIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { NO_VALUE } from '../../../shared/metrics.ts';
import { formatKpiCount, formatKpiMoney, KpiCard } from '../../components/kpi-card.tsx';
import { trpc } from '../../lib/trpc.ts';

/** How often "today so far" is asked again while the dashboard is open. */
export const TODAY_REFRESH_MS = 5 * 60_000;

/** Today's net sales and orders so far, against yesterday up to the same local time of the store. */
export function TodayCard() {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const today = trpc.dashboard.todayVsYesterday.useQuery(undefined, { refetchInterval: TODAY_REFRESH_MS });

  if (today.isPending) return <div className="skeleton h-32 rounded-box" aria-hidden="true" />;
  if (today.isError) {
    return (
      <p role="alert" className="alert alert-warning alert-soft text-sm">
        {t('today.failed')}
      </p>
    );
  }

  const data = today.data;
  const comparison = t('today.vsYesterday', { time: new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: data.timezone }).format(new Date(data.today.until)) });
  return (
    <section className="bg-primary/5 border-primary/15 rounded-box border p-4 sm:p-5" aria-labelledby="today-title" data-testid="today-card">
      <h2 id="today-title" className="flex items-center gap-2 text-sm font-semibold">
        <SunIcon className="text-primary size-4" aria-hidden="true" />
        {t('today.title')}
      </h2>
      <div className="mt-3 grid grid-cols-2 gap-3 sm:gap-4">
        <KpiCard
          label={t('today.netSales')}
          value={formatKpiMoney(data.today.netSales, data.currency, locale)}
          delta={data.delta.netSales.percent}
          comparisonLabel={comparison}
          hint={t('today.yesterdayValue', { value: formatKpiMoney(data.yesterday.netSales, data.currency, locale) ?? NO_VALUE })}
          testId="today-net-sales"
        />
        <KpiCard
          label={t('today.orders')}
          value={formatKpiCount(data.today.orders, locale)}
          delta={data.delta.orders.percent}
          comparisonLabel={comparison}
          hint={t('today.yesterdayValue', { value: formatKpiCount(data.yesterday.orders, locale) ?? NO_VALUE })}
          testId="today-orders"
        />
      </div>
    </section>
  );
}
