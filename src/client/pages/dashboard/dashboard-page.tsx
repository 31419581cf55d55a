import { keepPreviousData } from '@tanstack/react-query';
import type { ApexOptions } from 'apexcharts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { FigureTableHead, TableScroll } from '../../components/figure-table-head.tsx';
import { KPI_KEYS, type KpiKey, type KpisOutput } from '../../../shared/commerce.ts';
import { formatMultiple, formatPercentChange, NO_VALUE, roi } from '../../../shared/metrics.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { formatDayRange, useComparisonLabel, useDateRange } from '../../components/date-range-picker.tsx';
import { formatKpiCount, formatKpiMoney, KpiCard, useChannelName } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { compactAxisMoney } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';
import { useGuestStatus } from '../../lib/use-access.ts';
import { TodayCard } from './today-card.tsx';

type DayPart = 'morning' | 'afternoon' | 'evening';

function dayPart(hour: number): DayPart {
  if (hour < 12) return 'morning';
  if (hour < 18) return 'afternoon';
  return 'evening';
}

type KpiFormat = 'money' | 'count' | 'multiple';

const KPI_FORMATS: Record<KpiKey, KpiFormat> = {
  netSales: 'money',
  spend: 'money',
  clicks: 'count',
  orders: 'count',
  roas: 'multiple',
  cac: 'money',
  mer: 'multiple',
  aov: 'money',
  ltv: 'money',
};

/** Costs: a fall is the good news. */
const LOWER_IS_BETTER: ReadonlySet<KpiKey> = new Set(['spend', 'cac']);

/** The daily series each card draws (LTV has none: it belongs to a cohort, not a day). */
const SPARKLINE_SERIES: Partial<Record<KpiKey, keyof KpisOutput['series'][number]>> = {
  netSales: 'netSales',
  spend: 'spend',
  clicks: 'clicks',
  orders: 'orders',
  roas: 'roas',
  cac: 'cac',
  mer: 'mer',
  aov: 'aov',
};

function formatKpiValue(key: KpiKey, value: number | null, currency: string, locale: string): string | null {
  if (value === null) return null;
  const format = KPI_FORMATS[key];
  if (format === 'money') return formatKpiMoney(value, currency, locale);
  if (format === 'count') return formatKpiCount(value, locale);
  return formatMultiple(value);
}

function KpiGrid({ data }: { data: KpisOutput }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const comparisonLabel = useComparisonLabel();
  return (
    <section aria-label={t('kpiLabel')}>
      <ul className="grid grid-cols-2 gap-3 sm:gap-4 md:grid-cols-3">
        {KPI_KEYS.map((key, index) => {
          const kpi = data.kpis[key];
          const seriesKey = SPARKLINE_SERIES[key];
          return (
            <li key={key} className={`flex ${index === 0 ? 'col-span-2 md:col-span-1' : ''}`}>
              <KpiCard
                label={t(`kpis.${key}`)}
                hint={t(`kpiHints.${key}`)}
                value={formatKpiValue(key, kpi.current, data.currency, locale)}
                delta={kpi.delta.percent}
                lowerIsBetter={LOWER_IS_BETTER.has(key)}
                comparisonLabel={comparisonLabel}
                sparkline={seriesKey ? data.series.map((day) => Number(day[seriesKey] ?? 0)) : undefined}
              />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Net sales per day of the range, and of the comparison period laid over it day by day. */
function NetSalesTrend({ data, previous }: { data: KpisOutput; previous: KpisOutput | undefined }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const days = data.series.map((day) => day.day);
  const dayKey = days.join(',');
  const series = [
    { name: t('trend.current'), data: data.series.map((day) => day.netSales / 100) },
    ...(previous ? [{ name: t('trend.previous'), data: previous.series.slice(0, days.length).map((day) => day.netSales / 100) }] : []),
  ];
  const options = useMemo<ApexOptions>(() => {
    const money = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    const dayLabel = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const categories = dayKey.split(',');
    return {
      xaxis: {
        categories,
        tickAmount: Math.min(categories.length - 1, 5),
        labels: { trim: false, formatter: (value: string) => (value ? dayLabel.format(new Date(`${value}T00:00:00Z`)) : '') },
        tooltip: { enabled: false },
      },
      yaxis: { labels: { formatter: compactAxisMoney(locale, data.currency) } },
      tooltip: { shared: true, y: { formatter: (value: number) => money(value) } },
      stroke: { width: [2.5, 2], dashArray: [0, 5] },
    };
  }, [data.currency, locale, dayKey]);
  return (
    <SectionCard titleId="trend-title" title={t('trend.title')} description={t('trend.description')}>
      <Chart type="area" series={series} options={options} height={280} ariaLabel={t('trend.chartLabel', { range: formatDayRange(data.range, locale) })} testId="net-sales-trend" />
    </SectionCard>
  );
}

/** Spend, net sales, our ROAS beside the platform's, and ROI per marketing channel. */
function MarketingPerformance({ data }: { data: KpisOutput }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const channelName = useChannelName();
  const channels = data.channels.filter((channel) => channel.spend > 0);
  const money = (minor: number) => formatKpiMoney(minor, data.currency, locale) ?? NO_VALUE;
  const series = [
    { name: t('marketing.spend'), data: channels.map((channel) => channel.spend / 100) },
    { name: t('marketing.netSales'), data: channels.map((channel) => channel.netSales / 100) },
  ];
  const nameKey = channels.map((channel) => channelName(channel.channel)).join('|');
  const options = useMemo<ApexOptions>(() => {
    const format = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    return {
      xaxis: { categories: nameKey.split('|') },
      yaxis: { labels: { formatter: compactAxisMoney(locale, data.currency) } },
      tooltip: { shared: true, intersect: false, y: { formatter: format } },
      plotOptions: { bar: { columnWidth: '55%', borderRadius: 4 } },
    };
  }, [data.currency, locale, nameKey]);

  return (
    <SectionCard titleId="marketing-title" title={t('marketing.title')} description={t('marketing.description')} testId="marketing-performance">
      {channels.length === 0 ? (
        <p className="text-base-content/70 py-8 text-center text-sm">{t('marketing.empty')}</p>
      ) : (
        <div className="grid gap-4 lg:grid-cols-5 lg:items-start">
          <Chart type="bar" series={series} options={options} height={260} ariaLabel={t('marketing.chartLabel')} className="lg:col-span-2" />
          <div className="min-w-0 lg:col-span-3">
            <TableScroll>
              <table className="table-sm table">
                <FigureTableHead
                  first={t('marketing.channel')}
                  figures={[t('marketing.spend'), t('marketing.netSales'), t('marketing.roas'), { label: t('marketing.platformRoas'), title: t('marketing.platformHint') }, t('marketing.roi')]}
                />
                <tbody>
                  {channels.map((channel) => {
                    const channelRoi = roi({ attributedNetSalesMinor: channel.netSales, spendMinor: channel.spend });
                    return (
                      <tr key={channel.channel} data-testid="channel-row">
                        <th scope="row" className="font-medium whitespace-nowrap">
                          {channelName(channel.channel)}
                        </th>
                        <td className="text-right tabular-nums">{money(channel.spend)}</td>
                        <td className="text-right tabular-nums">{money(channel.netSales)}</td>
                        <td className="text-right font-semibold tabular-nums">{formatMultiple(channel.roas)}</td>
                        <td className="text-base-content/70 text-right tabular-nums">{formatMultiple(channel.platformRoas)}</td>
                        <td className={`text-right tabular-nums ${channelRoi !== null && channelRoi < 0 ? 'text-error' : ''}`}>
                          {channelRoi === null ? NO_VALUE : formatPercentChange(channelRoi * 100, 0)}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableScroll>
            <p className="text-base-content/65 mt-2 text-xs">{t('marketing.platformHint')}</p>
          </div>
        </div>
      )}
    </SectionCard>
  );
}

function DashboardSkeleton() {
  return (
    <div className="space-y-4" aria-hidden="true">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3">
        {KPI_KEYS.map((key) => (
          <div key={key} className="skeleton h-36 rounded-box" />
        ))}
      </div>
      <div className="skeleton h-80 rounded-box" />
    </div>
  );
}

function DashboardFigures() {
  const range = useDateRange();
  const kpis = trpc.commerce.kpis.useQuery({ from: range.from, to: range.to, compare: range.compare }, { placeholderData: keepPreviousData });
  const previousRange = range.previous;
  const previous = trpc.commerce.kpis.useQuery(
    { from: previousRange?.from ?? range.from, to: previousRange?.to ?? range.to, compare: 'none' },
    { enabled: previousRange !== null, placeholderData: keepPreviousData },
  );

  if (kpis.isPending) return <DashboardSkeleton />;
  if (kpis.isError) return <DataError error={kpis.error} onRetry={() => void kpis.refetch()} />;
  return (
    <div className={`space-y-6 transition-opacity ${kpis.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={kpis.isFetching}>
      <KpiGrid data={kpis.data} />
      <NetSalesTrend data={kpis.data} previous={previousRange ? previous.data : undefined} />
      <MarketingPerformance data={kpis.data} />
    </div>
  );
}

export function DashboardPage({ username }: { username: string }) {
  const { t } = useTranslation('dashboard');
  // An admin viewing as a user sees that user's dashboard, greeting included.
  const { guestUsername } = useGuestStatus();
  return (
    <DataPage title={t(`greeting.${dayPart(new Date().getHours())}`, { username: guestUsername ?? username })} description={t('subtitle')}>
      <StoreDataGate>
        <div className="space-y-6">
          <TodayCard />
          <DashboardFigures />
        </div>
      </StoreDataGate>
    </DataPage>
  );
}
