import type { ApexOptions } from 'apexcharts';
import { ArrowRightIcon, ChevronRightIcon, RadarIcon } from 'lucide-react';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { GRANULARITIES, type Granularity, type TrendOutput } from '../../../shared/analytics.ts';
import { KPI_KEYS, type KpiKey } from '../../../shared/commerce-constants.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { useDateRange } from '../../components/date-range-picker.tsx';
import { deltaTone } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { trpc } from '../../lib/trpc.ts';
import { formatChange, useFigureFormat, useNarrowScreen, xTickAmount, type FigureFormat } from '../../lib/figure-format.ts';
import { scrollSelectedIntoRow, useScrollEdges } from '../../lib/scroll-edges.ts';
import { useSearchParam } from '../../lib/use-search-param.ts';

/** Money KPIs are in minor units; the rest are counts or ratios. */
const MONEY_KPIS: ReadonlySet<KpiKey> = new Set(['netSales', 'spend', 'cac', 'aov', 'ltv']);
const RATIO_KPIS: ReadonlySet<KpiKey> = new Set(['roas', 'mer']);
/** One colour per channel on every chart, so a channel keeps its colour when the KPI changes. */
const CHANNEL_COLOURS: Record<string, string> = {
  googleads: '#4285f4',
  metaads: '#8b5cf6',
  bingads: '#14b8a6',
  tiktokads: '#ec4899',
  klaviyo: '#f59e0b',
  omnisend: '#84cc16',
  mailchimp: '#eab308',
  email: '#f97316',
  organic_search: '#22c55e',
  organic_social: '#f43f5e',
  referral: '#a16207',
  direct: '#94a3b8',
};
const FALLBACK_COLOUR = '#64748b';

/** Costs: a rise is bad news. */
const LOWER_IS_BETTER: ReadonlySet<KpiKey> = new Set(['spend', 'cac']);

function kpiValueText(kpi: KpiKey, value: number | null, currency: string, format: FigureFormat): string {
  if (MONEY_KPIS.has(kpi)) return format.money(value, currency);
  if (RATIO_KPIS.has(kpi)) return format.multiple(value);
  return format.integer(value);
}

export function AnalyticsPage() {
  const { t } = useTranslation('analytics');
  return (
    <DataPage title={t('page.title')} description={t('page.description')}>
      <StoreDataGate>
        <AnalyticsContent />
      </StoreDataGate>
    </DataPage>
  );
}

/**
 * The KPI chip row on a phone, where it scrolls sideways: the selected chip is scrolled into view,
 * and the edge where more chips hide fades out.
 */
function useChipRow(selected: string) {
  const { ref, edges } = useScrollEdges<HTMLDivElement>();
  useEffect(() => scrollSelectedIntoRow(ref.current, '[aria-pressed="true"]'), [selected, ref]);
  return { ref, fadeLeft: edges.left, fadeRight: edges.right };
}

function AnalyticsContent() {
  const { t } = useTranslation('analytics');
  const [kpi, setKpi] = useSearchParam<KpiKey>('kpi', KPI_KEYS, 'netSales');
  const [granularity, setGranularity] = useSearchParam<Granularity>('granularity', GRANULARITIES, 'day');
  const range = useDateRange();
  const query = trpc.analytics.trend.useQuery({ kpi, granularity, from: range.from, to: range.to, compare: range.compare }, { placeholderData: (previous) => previous });
  const chips = useChipRow(kpi);

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <div
          ref={chips.ref}
          role="group"
          aria-label={t('kpiPicker')}
          className={`relative -mx-1 flex gap-2 overflow-x-auto px-1 pb-1 lg:flex-wrap lg:overflow-visible ${chips.fadeLeft ? 'mask-l-from-[calc(100%-2rem)]' : ''} ${chips.fadeRight ? 'mask-r-from-[calc(100%-2rem)]' : ''}`}
          data-testid="kpi-chips"
        >
          {KPI_KEYS.map((key) => (
            <button
              key={key}
              type="button"
              aria-pressed={kpi === key}
              className={`btn btn-sm shrink-0 rounded-full ${kpi === key ? 'btn-primary' : 'btn-ghost border-base-content/15 bg-base-100'}`}
              onClick={() => setKpi(key)}
            >
              {t(`kpis.${key}`)}
            </button>
          ))}
        </div>
        <div role="group" aria-label={t('granularity.label')} className="join self-start" data-testid="granularity">
          {GRANULARITIES.map((option) => (
            <button
              key={option}
              type="button"
              aria-pressed={granularity === option}
              className={`btn btn-sm join-item ${granularity === option ? 'btn-primary' : 'btn-ghost border-base-content/15 bg-base-100'}`}
              onClick={() => setGranularity(option)}
            >
              {t(`granularity.${option}`)}
            </button>
          ))}
        </div>
      </div>

      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : query.isPending ? (
        <div className="skeleton h-96 rounded-box" role="status" aria-label={t('loading')} />
      ) : (
        <div className={`space-y-6 transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`}>
          <TrendCard data={query.data} />
          <BreakdownCard data={query.data} />
        </div>
      )}

      <FunnelSection />
    </div>
  );
}

function bucketLabel(granularity: Granularity, from: string, format: FigureFormat): string {
  return granularity === 'month' ? format.month(from) : format.shortDay(from);
}

function TrendCard({ data }: { data: TrendOutput }) {
  const { t, i18n } = useTranslation('analytics');
  const format = useFigureFormat();
  const narrow = useNarrowScreen();
  const kpiName = t(`kpis.${data.kpi}`);
  const money = MONEY_KPIS.has(data.kpi);
  const scale = (value: number | null) => (value === null ? null : money ? value / 100 : value);
  const categories = useMemo(() => data.points.map((point) => bucketLabel(data.granularity, point.from, format)), [data, format]);
  const series = [
    { name: t('trend.current'), data: data.points.map((point) => scale(point.value)) },
    ...(data.previousRange ? [{ name: t('trend.previous'), data: data.points.map((point) => scale(point.previousValue)) }] : []),
  ];
  const options = useMemo<ApexOptions>(() => {
    const text = (value: number | null) => (value === null || value === undefined ? '—' : kpiValueText(data.kpi, money ? value * 100 : value, data.currency, format));
    return {
      xaxis: { categories, tickAmount: xTickAmount(categories.length, narrow), tickPlacement: 'on', labels: { trim: false } },
      stroke: { width: [2.5, 2], dashArray: [0, 5] },
      yaxis: { labels: { formatter: (value: number) => (money ? format.compactMoney(value * 100, data.currency) : RATIO_KPIS.has(data.kpi) ? format.multiple(value) : format.integer(value)) } },
      tooltip: {
        shared: true,
        intersect: false,
        x: {
          formatter: (_value: number, context?: { dataPointIndex?: number }) => {
            const point = data.points[context?.dataPointIndex ?? -1];
            if (!point) return '';
            const current = point.from === point.to ? format.shortDay(point.from) : `${format.shortDay(point.from)} – ${format.shortDay(point.to)}`;
            const previous = point.previousFrom ? (point.previousFrom === point.previousTo ? format.shortDay(point.previousFrom) : `${format.shortDay(point.previousFrom)} – ${format.shortDay(point.previousTo!)}`) : null;
            return previous ? `${current} (${t('trend.vs', { range: previous })})` : current;
          },
        },
        y: { formatter: text },
      },
      markers: { size: categories.length <= 16 ? 3 : 0, hover: { size: 5 } },
    };
  }, [categories, data, money, format, t, narrow]);

  const delta = data.total.delta.percent;
  const tone = delta === null ? 'neutral' : deltaTone(delta, LOWER_IS_BETTER.has(data.kpi));
  const toneClass = { good: 'badge-success', bad: 'badge-error', neutral: 'badge-ghost' }[tone];

  return (
    <SectionCard
      titleId="trend-title"
      title={t('trend.title', { kpi: kpiName })}
      description={t(`hints.${data.kpi}`)}
      testId="trend-card"
      data-kpi={data.kpi}
      data-granularity={data.granularity}
      actions={
        <div className="sm:text-right">
          <p className="text-2xl font-semibold tabular-nums" data-testid="trend-total">
            {kpiValueText(data.kpi, data.total.current, data.currency, format)}
          </p>
          {data.previousRange && (
            <p className="mt-1 flex flex-wrap items-center gap-2 text-xs sm:justify-end">
              <span className={`badge badge-sm badge-soft font-semibold tabular-nums ${toneClass}`}>{formatChange(delta, i18n.resolvedLanguage ?? 'en')}</span>
              <span className="text-base-content/65">{t('trend.previousTotal', { value: kpiValueText(data.kpi, data.total.previous, data.currency, format) })}</span>
            </p>
          )}
        </div>
      }
    >
      <Chart
        type="line"
        series={series}
        options={options}
        height={320}
        ariaLabel={t('trend.aria', { kpi: kpiName, granularity: t(`granularity.${data.granularity}`) })}
        testId="trend-chart"
      />
      {!data.previousRange && <p className="text-base-content/60 text-xs">{t('trend.noComparison')}</p>}
    </SectionCard>
  );
}

function BreakdownCard({ data }: { data: TrendOutput }) {
  const { t } = useTranslation('analytics');
  const { t: tMarketing } = useTranslation('marketing');
  const format = useFigureFormat();
  const narrow = useNarrowScreen();
  const kpiName = t(`kpis.${data.kpi}`);
  const money = MONEY_KPIS.has(data.kpi);
  const categories = useMemo(() => data.points.map((point) => bucketLabel(data.granularity, point.from, format)), [data, format]);
  const channelName = (channel: string) => t(`channels.${channel}`, { defaultValue: tMarketing(`platforms.${channel}`, { defaultValue: channel }) });
  const options = useMemo<ApexOptions>(
    () => ({
      chart: { stacked: true },
      xaxis: { categories, tickAmount: xTickAmount(categories.length, narrow), labels: { trim: false } },
      colors: (data.breakdown ?? []).map((entry) => CHANNEL_COLOURS[entry.channel] ?? FALLBACK_COLOUR),
      yaxis: { labels: { formatter: (value: number) => (money ? format.compactMoney(value * 100, data.currency) : format.integer(value)) } },
      tooltip: { shared: true, intersect: false, y: { formatter: (value: number) => (money ? format.money(value * 100, data.currency) : format.integer(value)) } },
      plotOptions: { bar: { columnWidth: categories.length > 60 ? '95%' : '60%', borderRadius: 0 } },
      legend: { position: 'bottom' },
    }),
    [categories, money, format, data.currency, narrow, data.breakdown],
  );

  if (data.breakdown === null) {
    return (
      <SectionCard titleId="breakdown-title" title={t('breakdown.title')}>
        <p className="text-base-content/70 text-sm" data-testid="breakdown-not-applicable">
          {t('breakdown.notApplicable', { kpi: kpiName })}
        </p>
      </SectionCard>
    );
  }
  const series = data.breakdown.map((entry) => ({ name: channelName(entry.channel), data: entry.values.map((value) => (money ? value / 100 : value)) }));
  return (
    <SectionCard titleId="breakdown-title" title={t('breakdown.title')} description={t('breakdown.hint', { kpi: kpiName })}>
      {data.breakdown.length === 0 ? (
        <p className="text-base-content/70 py-10 text-center text-sm">{t('breakdown.empty')}</p>
      ) : (
        <>
          <Chart type="bar" series={series} options={options} height={300} ariaLabel={t('breakdown.aria', { kpi: kpiName })} testId="breakdown-chart" />
          <ul className="mt-1 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2 lg:grid-cols-3">
            {data.breakdown.map((entry) => (
              <li key={entry.channel} className="border-base-content/10 flex justify-between gap-3 border-b py-1.5">
                <span className="truncate">{channelName(entry.channel)}</span>
                <span className="font-medium tabular-nums">{money ? format.money(entry.total, data.currency) : format.integer(entry.total)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </SectionCard>
  );
}

const FUNNEL_STEPS = ['sessions', 'productViews', 'addToCart', 'checkout', 'orders'] as const;

/** The marketing funnel needs the tracking snippet's events, which do not exist yet: say so, without made-up numbers. */
function FunnelSection() {
  const { t } = useTranslation('analytics');
  return (
    <section className="bg-base-100 rounded-box border-base-content/15 relative overflow-hidden border border-dashed p-5 sm:p-8" aria-labelledby="funnel-title" data-testid="funnel-empty-state">
      <div aria-hidden="true" className="bg-primary/5 pointer-events-none absolute -top-24 -right-16 size-64 rounded-full blur-3xl" />
      <div className="relative">
        <div className="flex items-start gap-4">
          <div className="bg-primary/10 text-primary ring-primary/15 grid size-12 shrink-0 place-items-center rounded-2xl text-2xl ring-1">
            <RadarIcon aria-hidden="true" />
          </div>
          <div className="min-w-0">
            <h2 id="funnel-title" className="text-lg font-semibold">
              {t('funnel.title')}
            </h2>
            <p className="text-base-content/75 mt-1 max-w-2xl text-sm leading-relaxed">{t('funnel.body')}</p>
          </div>
        </div>
        <ol className="mt-6 flex flex-col gap-2 sm:flex-row sm:items-center sm:gap-1" aria-label={t('funnel.stepsLabel')}>
          {FUNNEL_STEPS.map((step, index) => (
            <li key={step} className="flex min-w-0 flex-1 items-center gap-1">
              <div className="bg-base-200/70 border-base-content/10 flex min-w-0 flex-1 items-center gap-3 rounded-lg border px-3 py-2.5 sm:flex-col sm:items-start sm:gap-1">
                <span className="bg-base-100 text-base-content/70 grid size-6 shrink-0 place-items-center rounded-full text-xs font-semibold tabular-nums">{index + 1}</span>
                <span className="min-w-0 flex-1 text-sm font-medium sm:truncate">{t(`funnel.steps.${step}`)}</span>
                <span className="text-base-content/40 text-sm sm:text-lg" aria-hidden="true">
                  —
                </span>
              </div>
              {index < FUNNEL_STEPS.length - 1 && <ChevronRightIcon className="text-base-content/30 hidden size-4 shrink-0 sm:block" aria-hidden="true" />}
            </li>
          ))}
        </ol>
        <Link href="/tracking-setup" className="btn btn-primary mt-6 gap-2">
          {t('funnel.action')}
          <ArrowRightIcon aria-hidden="true" />
        </Link>
      </div>
    </section>
  );
}
