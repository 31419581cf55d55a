import { keepPreviousData } from '@tanstack/react-query';
import type { ApexOptions } from 'apexcharts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { FigureTableHead, TableScroll } from '../../components/figure-table-head.tsx';
import { NO_VALUE } from '../../../shared/metrics.ts';
import type { RevenueBreakdownOutput } from '../../../shared/revenue.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { formatDayRange, useComparisonLabel, useDateRange } from '../../components/date-range-picker.tsx';
import { formatKpiCount, formatKpiMoney, KpiCard, useChannelName } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { trpc } from '../../lib/trpc.ts';
import { useFigureFormat } from '../../lib/figure-format.ts';

type RevenueKpi = 'gross' | 'discounts' | 'refunds' | 'netSales';

const KPI_STRIP: readonly RevenueKpi[] = ['netSales', 'gross', 'discounts', 'refunds'];
/** What the store gives away: a rise is bad news. */
const LOWER_IS_BETTER: ReadonlySet<RevenueKpi> = new Set(['discounts', 'refunds']);

export function RevenuePage() {
  const { t } = useTranslation('revenue');
  return (
    <DataPage title={t('page.title')} description={t('page.description')}>
      <StoreDataGate>
        <RevenueContent />
      </StoreDataGate>
    </DataPage>
  );
}

function RevenueContent() {
  const { t } = useTranslation('revenue');
  const range = useDateRange();
  const query = trpc.revenue.breakdown.useQuery({ from: range.from, to: range.to, compare: range.compare }, { placeholderData: keepPreviousData });

  if (query.isError && !query.data) return <DataError error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) {
    return (
      <div className="space-y-4" role="status" aria-label={t('loading')}>
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          {KPI_STRIP.map((key) => (
            <div key={key} className="skeleton h-32 rounded-box" />
          ))}
        </div>
        <div className="skeleton h-80 rounded-box" />
      </div>
    );
  }
  const data = query.data;
  return (
    <div className={`space-y-6 transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={query.isFetching} data-testid="revenue-content">
      <KpiStrip data={data} />
      <ComponentsChart data={data} />
      <div className="grid gap-6 lg:grid-cols-3">
        <ChannelBreakdown data={data} />
        <NewVsReturning data={data} />
      </div>
      <div className="grid gap-6 lg:grid-cols-3">
        <TopProducts data={data} />
        <RefundsPanel data={data} />
      </div>
    </div>
  );
}

function KpiStrip({ data }: { data: RevenueBreakdownOutput }) {
  const { t, i18n } = useTranslation('revenue');
  const locale = i18n.resolvedLanguage ?? 'en';
  const comparisonLabel = useComparisonLabel();
  return (
    <section aria-label={t('kpis.label')}>
      <ul className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        {KPI_STRIP.map((key) => (
          <li key={key} className="flex">
            <KpiCard
              testId={`revenue-kpi-${key}`}
              label={t(`kpis.${key}`)}
              hint={t(`kpiHints.${key}`)}
              value={formatKpiMoney(data.kpis[key].current, data.currency, locale)}
              delta={data.kpis[key].delta.percent}
              lowerIsBetter={LOWER_IS_BETTER.has(key)}
              comparisonLabel={comparisonLabel}
              sparkline={data.series.map((day) => day[key])}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Per day: net sales, discounts and refunds stacked (gross sales when no refund falls on another day). */
function ComponentsChart({ data }: { data: RevenueBreakdownOutput }) {
  const { t, i18n } = useTranslation('revenue');
  const locale = i18n.resolvedLanguage ?? 'en';
  const days = data.series.map((day) => day.day);
  const dayKey = days.join(',');
  const series = [
    { name: t('kpis.netSales'), data: data.series.map((day) => day.netSales / 100) },
    { name: t('kpis.discounts'), data: data.series.map((day) => day.discounts / 100) },
    { name: t('kpis.refunds'), data: data.series.map((day) => day.refunds / 100) },
  ];
  const options = useMemo<ApexOptions>(() => {
    const money = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    const dayLabel = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const categories = dayKey.split(',');
    // A bar chart labels every category: keep five, evenly spaced, so they fit side by side on a phone.
    const every = Math.max(1, Math.ceil(categories.length / 5));
    const labelled = new Set(categories.filter((_, index) => index % every === 0));
    return {
      chart: { stacked: true },
      xaxis: {
        categories,
        labels: { trim: false, hideOverlappingLabels: false, formatter: (value: string) => (labelled.has(value) ? dayLabel.format(new Date(`${value}T00:00:00Z`)) : '') },
        tooltip: { enabled: false },
      },
      yaxis: { labels: { formatter: money } },
      tooltip: {
        shared: true,
        intersect: false,
        x: { formatter: (_value: number, context?: { dataPointIndex?: number }) => {
          const day = categories[context?.dataPointIndex ?? -1];
          return day ? dayLabel.format(new Date(`${day}T00:00:00Z`)) : '';
        } },
        y: { formatter: money },
      },
      plotOptions: { bar: { columnWidth: categories.length > 60 ? '95%' : '65%', borderRadius: 0 } },
      legend: { position: 'top', horizontalAlign: 'left' },
    };
  }, [data.currency, locale, dayKey]);
  return (
    <SectionCard titleId="components-title" title={t('components.title')} description={t('components.description')} testId="revenue-components">
      <Chart type="bar" series={series} options={options} height={300} ariaLabel={t('components.chartLabel', { range: formatDayRange(data.range, locale) })} testId="revenue-components-chart" />
    </SectionCard>
  );
}

const DONUT_SLICES = 6;
const OTHER_CHANNELS = '__others__';

function ChannelBreakdown({ data }: { data: RevenueBreakdownOutput }) {
  const { t } = useTranslation('revenue');
  const channelName = useChannelName();
  const format = useFigureFormat();
  // The palette has six colours: the five largest channels, then the rest as one slice.
  const positive = data.channels.filter((channel) => channel.netSales > 0);
  const slices = positive.length <= DONUT_SLICES ? positive : [...positive.slice(0, DONUT_SLICES - 1), { channel: OTHER_CHANNELS, netSales: positive.slice(DONUT_SLICES - 1).reduce((sum, channel) => sum + channel.netSales, 0) }];
  const sliceName = (channel: string) => (channel === OTHER_CHANNELS ? t('channels.others') : channelName(channel));
  const labelKey = slices.map((slice) => sliceName(slice.channel)).join('|');
  const options = useMemo<ApexOptions>(
    () => ({
      labels: labelKey.split('|'),
      legend: { position: 'bottom' },
      tooltip: { y: { formatter: (value: number) => format.money(Math.round(value * 100), data.currency) } },
      plotOptions: { pie: { donut: { size: '62%' } } },
    }),
    [labelKey, format, data.currency],
  );
  return (
    <SectionCard titleId="channels-title" title={t('channels.title')} description={t('channels.description')} className="lg:col-span-2" testId="revenue-channels">
      {data.channels.length === 0 ? (
        <p className="text-base-content/70 py-8 text-center text-sm">{t('empty')}</p>
      ) : (
        <div className="grid gap-4 md:grid-cols-5 md:items-center">
          <Chart type="donut" series={slices.map((slice) => slice.netSales / 100)} options={options} height={260} ariaLabel={t('channels.chartLabel')} className="md:col-span-2" testId="revenue-channels-chart" />
          <div className="overflow-x-auto md:col-span-3">
            <table className="table table-sm">
              <FigureTableHead first={t('channels.channel')} figures={[t('channels.orders'), t('kpis.netSales'), t('channels.share')]} />
              <tbody>
                {data.channels.map((channel) => (
                  <tr key={channel.channel} data-testid="revenue-channel-row">
                    <th scope="row" className="font-medium whitespace-nowrap">
                      {channelName(channel.channel)}
                    </th>
                    <td className="text-right tabular-nums">{format.integer(channel.orders)}</td>
                    <td className="text-right whitespace-nowrap tabular-nums">{format.money(channel.netSales, data.currency)}</td>
                    <td className="text-right tabular-nums">{format.percent(channel.share)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </SectionCard>
  );
}

function NewVsReturning({ data }: { data: RevenueBreakdownOutput }) {
  const { t } = useTranslation('revenue');
  const format = useFigureFormat();
  const groups = [
    { key: 'new', ...data.customers.new },
    { key: 'returning', ...data.customers.returning },
  ] as const;
  const totalNet = groups.reduce((sum, group) => sum + Math.max(group.netSales, 0), 0);
  return (
    <SectionCard titleId="customers-title" title={t('customers.title')} description={t('customers.description')} testId="revenue-customers">
      <div className="space-y-4">
        {totalNet > 0 && (
          <div className="bg-base-200 flex h-3 overflow-hidden rounded-full" aria-hidden="true">
            <div className="bg-primary" style={{ width: `${(Math.max(data.customers.new.netSales, 0) / totalNet) * 100}%` }} />
            <div className="bg-info" style={{ width: `${(Math.max(data.customers.returning.netSales, 0) / totalNet) * 100}%` }} />
          </div>
        )}
        {groups.map((group) => (
          <div key={group.key} className="border-base-content/10 rounded-box border p-3" data-testid={`customers-${group.key}`}>
            <p className="flex items-center gap-2 text-sm font-semibold">
              <span className={`inline-block size-2.5 rounded-full ${group.key === 'new' ? 'bg-primary' : 'bg-info'}`} aria-hidden="true" />
              {t(`customers.${group.key}`)}
            </p>
            <dl className="mt-2 grid grid-cols-3 gap-2 text-sm">
              <div>
                <dt className="text-base-content/65 text-xs">{t('customers.orders')}</dt>
                <dd className="font-semibold tabular-nums">{format.integer(group.orders)}</dd>
              </div>
              <div className="min-w-0">
                <dt className="text-base-content/65 text-xs">{t('kpis.netSales')}</dt>
                <dd className="truncate font-semibold tabular-nums">{formatKpiMoney(group.netSales, data.currency, format.locale)}</dd>
              </div>
              <div className="min-w-0">
                <dt className="text-base-content/65 text-xs">{t('customers.aov')}</dt>
                <dd className="truncate font-semibold tabular-nums">{format.money(group.aov, data.currency)}</dd>
              </div>
            </dl>
          </div>
        ))}
        <p className="text-base-content/60 text-xs">{t('customers.hint')}</p>
      </div>
    </SectionCard>
  );
}

function TopProducts({ data }: { data: RevenueBreakdownOutput }) {
  const { t } = useTranslation('revenue');
  const format = useFigureFormat();
  const { top, others } = data.products;
  return (
    <SectionCard titleId="products-title" title={t('products.title')} description={t('products.description', { count: top.length })} className="lg:col-span-2" testId="revenue-products">
      {top.length === 0 ? (
        <p className="text-base-content/70 py-8 text-center text-sm">{t('products.empty')}</p>
      ) : (
        <TableScroll scrollClassName="max-h-[28rem] overflow-y-auto" testId="revenue-products-scroll">
          <table className="table table-sm table-pin-rows">
            <FigureTableHead first={t('products.product')} figures={[t('products.units'), t('kpis.netSales'), t('products.cogs'), t('products.margin')]} />
            <tbody>
              {top.map((product, index) => (
                <tr key={product.productId ?? `line-${index}`} data-testid="revenue-product-row">
                  <th scope="row" className="max-w-56 font-normal">
                    <span className="block truncate font-medium" title={product.title}>
                      {product.title}
                    </span>
                    {product.sku && <span className="text-base-content/60 block truncate text-xs">{product.sku}</span>}
                  </th>
                  <td className="text-right tabular-nums">{format.integer(product.units)}</td>
                  <td className="text-right whitespace-nowrap tabular-nums">{format.money(product.netSales, data.currency)}</td>
                  <td className="text-right whitespace-nowrap tabular-nums">{format.money(product.cogs, data.currency)}</td>
                  <td className="text-right tabular-nums">{format.percent(product.margin)}</td>
                </tr>
              ))}
              {others && (
                <tr className="text-base-content/75 italic" data-testid="revenue-product-others">
                  <th scope="row" className="font-normal">
                    {t('products.others', { count: others.products })}
                  </th>
                  <td className="text-right tabular-nums">{format.integer(others.units)}</td>
                  <td className="text-right whitespace-nowrap tabular-nums">{format.money(others.netSales, data.currency)}</td>
                  <td className="text-right whitespace-nowrap tabular-nums">{format.money(others.cogs, data.currency)}</td>
                  <td className="text-right tabular-nums">{format.percent(others.margin)}</td>
                </tr>
              )}
            </tbody>
          </table>
        </TableScroll>
      )}
      <p className="text-base-content/60 mt-2 text-xs">{t('products.hint')}</p>
    </SectionCard>
  );
}

function RefundsPanel({ data }: { data: RevenueBreakdownOutput }) {
  const { t } = useTranslation('revenue');
  const format = useFigureFormat();
  const { refunds } = data;
  return (
    <SectionCard titleId="refunds-title" title={t('refunds.title')} description={t('refunds.description')} testId="revenue-refunds">
      <dl className="grid grid-cols-3 gap-2">
        <div>
          <dt className="text-base-content/65 text-xs">{t('refunds.count')}</dt>
          <dd className="text-lg font-semibold tabular-nums">{formatKpiCount(refunds.count, format.locale)}</dd>
        </div>
        <div className="min-w-0">
          <dt className="text-base-content/65 text-xs">{t('refunds.amount')}</dt>
          <dd className="truncate text-lg font-semibold tabular-nums">{formatKpiMoney(refunds.amount, data.currency, format.locale)}</dd>
        </div>
        <div>
          <dt className="text-base-content/65 text-xs" title={t('refunds.rateHint')}>
            {t('refunds.rate')}
          </dt>
          <dd className="text-lg font-semibold tabular-nums">{format.percent(refunds.rate)}</dd>
        </div>
      </dl>
      <h3 className="text-base-content/70 mt-4 text-xs font-semibold tracking-wide uppercase">{t('refunds.reasons')}</h3>
      {refunds.reasons.length === 0 ? (
        <p className="text-base-content/70 mt-1 text-sm">{t('refunds.none')}</p>
      ) : (
        <ul className="divide-base-content/10 mt-1 divide-y text-sm" data-testid="refund-reasons">
          {refunds.reasons.map((reason) => (
            <li key={reason.reason ?? ''} className="flex items-baseline justify-between gap-3 py-1.5">
              <span className="min-w-0 truncate" title={reason.reason ?? undefined}>
                {reason.reason ?? t('refunds.noReason')} <span className="text-base-content/60 tabular-nums">× {format.integer(reason.count)}</span>
              </span>
              <span className="shrink-0 tabular-nums">{format.money(reason.amount, data.currency)}</span>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  );
}
