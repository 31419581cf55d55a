import type { ApexOptions } from 'apexcharts';
import { ChartPieIcon } from 'lucide-react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { NO_SPEND_BUCKET, type DistributionOutput } from '../../../shared/analytics.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataLoading, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { useDateRange } from '../../components/date-range-picker.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { trpc } from '../../lib/trpc.ts';
import { useFigureFormat, useNarrowScreen } from '../../lib/figure-format.ts';
import { useSearchParam } from '../../lib/use-search-param.ts';

const VIEWS = ['campaigns', 'products'] as const;
type View = (typeof VIEWS)[number];
const MEASURES = ['revenue', 'spend'] as const;
type Measure = (typeof MEASURES)[number];

type Pareto = DistributionOutput['products']['revenue'];
/** The key of the point that sums the items beyond the chart's limit (distribution.service.ts). */
const OTHERS_KEY = '__others__';

/** What the store has ever reported (the gate's data status, cached): an empty range then asks for another range, not a connection. */
function useReported(): { orders: boolean; adPlatforms: boolean } {
  const status = trpc.commerce.dataStatus.useQuery();
  return { orders: (status.data?.orders ?? 0) > 0, adPlatforms: (status.data?.adPlatforms.length ?? 0) > 0 };
}

export function PerformanceDistributionPage() {
  const { t } = useTranslation('analytics');
  return (
    <DataPage title={t('distribution.title')} description={t('distribution.description')}>
      <StoreDataGate>
        <DistributionContent />
      </StoreDataGate>
    </DataPage>
  );
}

function DistributionContent() {
  const { t } = useTranslation('analytics');
  const [view, setView] = useSearchParam<View>('view', VIEWS, 'campaigns');
  const range = useDateRange();
  const query = trpc.analytics.distribution.useQuery({ from: range.from, to: range.to }, { placeholderData: (previous) => previous });

  return (
    <div className="space-y-6">
      <div role="tablist" aria-label={t('distribution.viewLabel')} className="tabs tabs-box bg-base-100 border-base-content/10 w-full border sm:w-fit">
        {VIEWS.map((option) => (
          <button
            key={option}
            type="button"
            role="tab"
            aria-selected={view === option}
            className={`tab flex-1 sm:flex-none ${view === option ? 'tab-active' : ''}`}
            onClick={() => setView(option)}
          >
            {t(`distribution.views.${option}`)}
          </button>
        ))}
      </div>
      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : query.isPending ? (
        <DataLoading label={t('distribution.loading')} cards={3} gridClassName="sm:grid-cols-3" chartClassName="h-80" />
      ) : (
        <div className={`space-y-6 transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`} data-testid={`distribution-${view}`}>
          {view === 'campaigns' ? <CampaignsView data={query.data} /> : <ProductsView data={query.data} />}
        </div>
      )}
    </div>
  );
}

function StatCard({ label, value, hint, testId }: { label: string; value: string; hint: string; testId?: string }) {
  return (
    <article className="bg-base-100 border-base-content/10 rounded-box border p-4 shadow-xs" data-testid={testId}>
      <h3 className="text-base-content/80 text-sm font-semibold">{label}</h3>
      <p className="mt-2 text-3xl font-semibold tracking-tight tabular-nums">{value}</p>
      <p className="text-base-content/70 mt-1 text-xs leading-relaxed">{hint}</p>
    </article>
  );
}

function CampaignsView({ data }: { data: DistributionOutput }) {
  const { t } = useTranslation('analytics');
  const reported = useReported();
  const format = useFigureFormat();
  const [measure, setMeasure] = useSearchParam<Measure>('measure', MEASURES, 'revenue');
  const { campaigns, currency } = data;
  if (campaigns.count === 0) {
    // Ad platforms that reported before are connected: quiet in this range, not missing.
    if (reported.adPlatforms) return <EmptyState icon={ChartPieIcon} title={t('distribution.noCampaignsTitle')} body={t('distribution.noCampaignsRangeBody')} />;
    return <EmptyState icon={ChartPieIcon} title={t('distribution.noCampaignsTitle')} body={t('distribution.noCampaignsBody')} action={{ href: '/integrations', label: t('distribution.connect') }} />;
  }
  const pareto = campaigns[measure];
  return (
    <>
      <div className="grid gap-3 sm:grid-cols-3 sm:gap-4">
        <StatCard
          testId="top10-revenue"
          label={t('distribution.topRevenueLabel')}
          value={format.percent(campaigns.revenue.top10.share, 0)}
          hint={t('distribution.topRevenueHint', { count: campaigns.revenue.top10.count, total: campaigns.count })}
        />
        <StatCard
          testId="top10-spend"
          label={t('distribution.topSpendLabel')}
          value={format.percent(campaigns.spend.top10.share, 0)}
          hint={t('distribution.topSpendHint', { count: campaigns.spend.top10.count, total: campaigns.count })}
        />
        <StatCard
          label={t('distribution.campaignsLabel')}
          value={format.integer(campaigns.count)}
          hint={t('distribution.campaignsHint', { spend: format.money(campaigns.totalSpend, currency), revenue: format.money(campaigns.totalRevenue, currency) })}
        />
      </div>
      <SectionCard
        titleId="pareto-title"
        title={t(`distribution.pareto.${measure}Title`)}
        description={t(`distribution.pareto.${measure}Hint`)}
        actions={
          <div role="group" aria-label={t('distribution.measureLabel')} className="join">
            {MEASURES.map((option) => (
              <button
                key={option}
                type="button"
                aria-pressed={measure === option}
                className={`btn btn-sm join-item ${measure === option ? 'btn-primary' : 'btn-ghost border-base-content/15'}`}
                onClick={() => setMeasure(option)}
              >
                {t(`distribution.measures.${option}`)}
              </button>
            ))}
          </div>
        }
      >
        <ParetoChart pareto={pareto} currency={currency} valueName={t(`distribution.measures.${measure}`)} ariaLabel={t(`distribution.pareto.${measure}Title`)} />
      </SectionCard>
      <RoasHistogram data={data} />
    </>
  );
}

function ProductsView({ data }: { data: DistributionOutput }) {
  const { t } = useTranslation('analytics');
  const reported = useReported();
  const format = useFigureFormat();
  const { currency } = data;
  const pareto = data.products.revenue;
  if (pareto.count === 0) {
    if (reported.orders) return <EmptyState icon={ChartPieIcon} title={t('distribution.noProductsTitle')} body={t('distribution.noProductsRangeBody')} />;
    return <EmptyState icon={ChartPieIcon} title={t('distribution.noProductsTitle')} body={t('distribution.noProductsBody')} action={{ href: '/integrations', label: t('distribution.connect') }} />;
  }
  const top = pareto.points.filter((point) => point.key !== OTHERS_KEY).slice(0, 10);
  const topValue = top[0]?.value ?? 1;
  return (
    <>
      <div className="grid gap-3 sm:grid-cols-3 sm:gap-4">
        <StatCard
          testId="top10-products"
          label={t('distribution.topProductsLabel')}
          value={format.percent(pareto.top10.share, 0)}
          hint={t('distribution.topProductsHint', { count: pareto.top10.count, total: pareto.count })}
        />
        <StatCard label={t('distribution.productsLabel')} value={format.integer(pareto.count)} hint={t('distribution.productsHint')} />
        <StatCard label={t('distribution.productSalesLabel')} value={format.money(pareto.total, currency)} hint={t('distribution.productSalesHint')} />
      </div>
      <SectionCard titleId="pareto-title" title={t('distribution.pareto.productsTitle')} description={t('distribution.pareto.productsHint')}>
        <ParetoChart pareto={pareto} currency={currency} valueName={t('distribution.measures.productSales')} ariaLabel={t('distribution.pareto.productsTitle')} />
      </SectionCard>
      <section className="bg-base-100 border-base-content/10 rounded-box border shadow-xs" aria-labelledby="top-products-title">
        <h2 id="top-products-title" className="p-4 pb-2 text-base font-semibold sm:px-6">
          {t('distribution.topProductsTitle')}
        </h2>
        <ol className="divide-base-content/10 divide-y" data-testid="top-products">
          {top.map((point, index) => (
            <li key={point.key} className="flex items-center gap-3 px-4 py-2.5 text-sm sm:px-6">
              <span className="text-base-content/60 w-5 shrink-0 text-right tabular-nums">{index + 1}</span>
              <span className="line-clamp-2 min-w-0 flex-1 wrap-break-word" title={point.label}>
                {point.label}
              </span>
              <span className="hidden w-32 sm:block" aria-hidden="true">
                <span className="bg-base-200 block h-1.5 overflow-hidden rounded-full">
                  <span className="bg-primary block h-full rounded-full" style={{ width: `${Math.max(2, (point.value / topValue) * 100)}%` }} />
                </span>
              </span>
              <span className="w-14 shrink-0 text-right tabular-nums">{format.percent(point.share)}</span>
              <span className="w-24 shrink-0 text-right font-medium tabular-nums">{format.money(point.value, currency)}</span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

/** Bars of each item's value, largest first, and the line of their cumulative share (right axis, 0-100 %). */
function ParetoChart({ pareto, currency, valueName, ariaLabel }: { pareto: Pareto; currency: string; valueName: string; ariaLabel: string }) {
  const { t } = useTranslation('analytics');
  const format = useFigureFormat();
  // The smallest items, summed into one point by the server, would dwarf the bars: they are named below the chart instead.
  const points = useMemo(() => pareto.points.filter((point) => point.key !== OTHERS_KEY), [pareto]);
  const others = pareto.points.find((point) => point.key === OTHERS_KEY);
  const labels = useMemo(() => points.map((point) => point.label), [points]);
  const series = [
    { name: valueName, type: 'column', data: points.map((point) => point.value / 100) },
    { name: t('distribution.cumulative'), type: 'line', data: points.map((point) => Number((point.cumulativeShare * 100).toFixed(2))) },
  ];
  const options = useMemo<ApexOptions>(
    () => ({
      xaxis: {
        categories: labels,
        labels: { show: labels.length <= 12, trim: true, maxHeight: 60, rotate: -30, rotateAlways: labels.length > 6 },
        tooltip: { enabled: false },
      },
      yaxis: [
        { seriesName: valueName, labels: { formatter: (value: number) => format.compactMoney(value * 100, currency) } },
        { seriesName: t('distribution.cumulative'), opposite: true, min: 0, max: 100, tickAmount: 4, labels: { formatter: (value: number) => format.percent(value / 100, 0) } },
      ],
      stroke: { width: [0, 2.5], curve: 'straight' },
      markers: { size: labels.length <= 20 ? 3 : 0 },
      tooltip: {
        shared: true,
        intersect: false,
        y: {
          formatter: (value: number, context?: { seriesIndex?: number }) => (context?.seriesIndex === 1 ? format.percent(value / 100) : format.money(value * 100, currency)),
        },
      },
      plotOptions: { bar: { columnWidth: labels.length > 30 ? '90%' : '65%', borderRadius: 2 } },
    }),
    [labels, valueName, currency, format, t],
  );
  return (
    <>
      <Chart type="line" series={series as ApexOptions['series']} options={options} height={340} ariaLabel={ariaLabel} testId="pareto-chart" />
      {others && (
        <p className="text-base-content/70 mt-2 text-xs" data-testid="pareto-others">
          {t('distribution.othersNote', { count: others.items, share: format.percent(others.share), value: format.money(others.value, currency) })}
        </p>
      )}
    </>
  );
}

function RoasHistogram({ data }: { data: DistributionOutput }) {
  const { t } = useTranslation('analytics');
  const format = useFigureFormat();
  const buckets = data.campaigns.roasHistogram;
  // On a phone the seven band labels do not fit side by side: the bars lie down.
  const narrow = useNarrowScreen();
  const labels = useMemo(
    () =>
      buckets.map((bucket) => {
        if (bucket.bucket === NO_SPEND_BUCKET) return t('distribution.histogram.noSpend');
        if (bucket.bucket.endsWith('+')) return t('distribution.histogram.bucketAtLeast', { from: format.decimal(Number(bucket.bucket.slice(0, -1))) });
        const [from, to] = bucket.bucket.split('-').map(Number) as [number, number];
        return t('distribution.histogram.bucket', { from: format.decimal(from), to: format.decimal(to) });
      }),
    [buckets, t, format],
  );
  const options = useMemo<ApexOptions>(
    () => ({
      xaxis: { categories: labels, labels: { rotate: 0, hideOverlappingLabels: false, trim: false, ...(narrow ? { formatter: (value: string) => format.integer(Number(value)) } : {}) } },
      // On a phone the count sits past the bar's end: room for it beyond the longest bar.
      yaxis: narrow ? { max: (largest: number) => Math.ceil(largest * 1.2) + 1, labels: { maxWidth: 110, formatter: (value: number | string) => String(value) } } : { labels: { formatter: (value: number) => format.integer(value) }, forceNiceScale: true, min: 0 },
      dataLabels: {
        enabled: true,
        ...(narrow ? { offsetX: 16 } : { offsetY: -18 }),
        style: { fontSize: '11px', colors: ['currentColor'] },
        formatter: (value: number) => (value ? format.integer(value) : ''),
      },
      plotOptions: { bar: { horizontal: narrow, columnWidth: '70%', barHeight: '70%', borderRadius: 4, dataLabels: { position: 'top' } } },
      tooltip: {
        y: {
          formatter: (value: number, context?: { dataPointIndex?: number }) =>
            t('distribution.histogram.tooltip', { count: value, spend: format.money(buckets[context?.dataPointIndex ?? 0]?.spend ?? 0, data.currency) }),
        },
      },
    }),
    [labels, buckets, format, t, data.currency, narrow],
  );
  return (
    <SectionCard titleId="histogram-title" title={t('distribution.histogram.title')} description={t('distribution.histogram.hint')}>
      <Chart
        type="bar"
        series={[{ name: t('distribution.histogram.campaigns'), data: buckets.map((bucket) => bucket.campaigns) }]}
        options={options}
        height={280}
        ariaLabel={t('distribution.histogram.title')}
        testId="roas-histogram"
      />
    </SectionCard>
  );
}
