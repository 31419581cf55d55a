import type { ApexOptions } from 'apexcharts';
import { ActivityIcon, CheckCircle2Icon, SparklesIcon, TrendingDownIcon, TrendingUpIcon } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import type { AnomalyItem } from '../../../shared/anomalies.ts';
import { ANOMALY_LANGUAGES, ANOMALY_LOWER_IS_BETTER, ANOMALY_METRIC_UNITS, type AnomalyLanguage, type AnomalyValueUnit } from '../../../shared/anomaly-figures.ts';
import type { AnomalyPanelOutput } from '../../../shared/anomaly-panel.ts';
import { anomalyLanguageOf, recommendationSentence } from '../../../shared/anomaly-recommendations.ts';
import { NO_VALUE } from '../../../shared/metrics.ts';
import { Chart } from '../../components/chart.tsx';
import { useViewOnly } from '../../components/data-page.tsx';
import { formatKpiCount, formatKpiMoney } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { compactAxisMoney, formatChange, formatMultipleIn } from '../../lib/figure-format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

// The dashboard's anomaly panel (spec: "Anomaly panel: loading, none, detected. Items can be
// acknowledged or marked resolved."; README, "Anomaly insights: the panel").

/** ?anomalies=all keeps resolved items in the list (survives a reload, like the date range). */
const RESOLVED_PARAM = 'anomalies';

const SEVERITY_BADGES: Record<AnomalyItem['severity'], string> = { high: 'badge-error', medium: 'badge-warning', low: 'badge-info' };

export function formatAnomalyFigure(unit: AnomalyValueUnit, value: number | null, currency: string, locale: string): string {
  if (value === null || !Number.isFinite(value)) return NO_VALUE;
  if (unit === 'money') return formatKpiMoney(Math.round(value * 100), currency, locale) ?? NO_VALUE;
  if (unit === 'count') return formatKpiCount(value, locale) ?? NO_VALUE;
  if (unit === 'multiple') return formatMultipleIn(value, locale);
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value);
}

function useShowResolved(): [boolean, (show: boolean) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const show = new URLSearchParams(search).get(RESOLVED_PARAM) === 'all';
  const set = (next: boolean) => {
    const params = new URLSearchParams(search);
    if (next) params.set(RESOLVED_PARAM, 'all');
    else params.delete(RESOLVED_PARAM);
    const query = params.toString();
    navigate(query ? `${location}?${query}` : location, { replace: true });
  };
  return [show, set];
}

export function AnomalyPanel({ currency }: { currency: string }) {
  const { t } = useTranslation('dashboard');
  const [showResolved, setShowResolved] = useShowResolved();
  const input = { includeResolved: showResolved };
  const list = trpc.anomalies.list.useQuery(input);

  const toggle = (
    <label className="label cursor-pointer gap-2 text-sm">
      <input type="checkbox" className="toggle toggle-sm toggle-primary" checked={showResolved} onChange={(event) => setShowResolved(event.target.checked)} data-testid="anomalies-show-resolved" />
      {t('anomalies.showResolved')}
    </label>
  );

  return (
    <SectionCard titleId="anomalies-title" title={t('anomalies.title')} description={t('anomalies.description')} actions={toggle} testId="anomaly-panel">
      {list.isPending ? (
        <div role="status" aria-live="polite" className="flex items-center gap-3 py-6" data-testid="anomalies-loading">
          <span className="loading loading-spinner loading-sm text-primary" aria-hidden="true" />
          <span className="text-base-content/75 text-sm">{t('anomalies.loading')}</span>
        </div>
      ) : list.isError ? (
        <div role="alert" className="alert alert-warning alert-soft text-sm">
          <span>{t('anomalies.failed')}</span>
          <button type="button" className="btn btn-sm" onClick={() => void list.refetch()}>
            {t('anomalies.retry')}
          </button>
        </div>
      ) : (
        <AnomalyResults data={list.data} currency={currency} input={input} />
      )}
    </SectionCard>
  );
}

function AnomalyResults({ data, currency, input }: { data: AnomalyPanelOutput; currency: string; input: { includeResolved: boolean } }) {
  const { t } = useTranslation('dashboard');
  return (
    <div className="space-y-3" aria-live="polite">
      {data.status === 'normal' && (
        <div className="bg-success/8 border-success/25 rounded-box flex items-center gap-3 border p-4" data-testid="anomalies-normal">
          <CheckCircle2Icon className="text-success size-6 shrink-0" aria-hidden="true" />
          <div>
            <p className="font-semibold">{t('anomalies.normal')}</p>
            <p className="text-base-content/70 text-sm">{t('anomalies.normalBody')}</p>
          </div>
        </div>
      )}
      {data.items.length > 0 && (
        <ul className="space-y-3" aria-labelledby="anomalies-title">
          {data.items.map((item) => (
            <li key={item.id}>
              <AnomalyCard item={item} currency={currency} input={input} explainAvailable={data.explainAvailable} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function useAnomalyState(input: { includeResolved: boolean }) {
  const utils = trpc.useUtils();
  const options = (state: 'acknowledged' | 'resolved') => ({
    // Optimistic: the item changes (or leaves the list) at once; an error puts the list back.
    onMutate: async ({ id }: { id: string }) => {
      await utils.anomalies.list.cancel(input);
      const before = utils.anomalies.list.getData(input);
      utils.anomalies.list.setData(input, (current) => {
        if (!current) return current;
        const items = current.items
          .map((item) => (item.id === id ? { ...item, state } : item))
          .filter((item) => input.includeResolved || item.state !== 'resolved');
        return { ...current, items, status: items.some((item) => item.state !== 'resolved') ? 'detected' : 'normal' };
      });
      return { before };
    },
    onError: (_error: unknown, _variables: { id: string }, context: { before: AnomalyPanelOutput | undefined } | undefined) => {
      if (context?.before) utils.anomalies.list.setData(input, context.before);
    },
    onSettled: () => utils.anomalies.list.invalidate(),
  });
  return {
    acknowledge: trpc.anomalies.acknowledge.useMutation(options('acknowledged')),
    resolve: trpc.anomalies.resolve.useMutation(options('resolved')),
  };
}

function AnomalyCard({ item, currency, input, explainAvailable }: { item: AnomalyItem; currency: string; input: { includeResolved: boolean }; explainAvailable: boolean }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const viewOnly = useViewOnly();
  const { acknowledge, resolve } = useAnomalyState(input);
  const unit = ANOMALY_METRIC_UNITS[item.metric] ?? 'count';
  const metric = t(`anomalies.metrics.${item.metric}`, { defaultValue: item.metric });
  const scope = t(`anomalies.scopes.${item.scope.level}`, { label: item.scope.label });
  const severity = t(`anomalies.severities.${item.severity}`);
  // The same sentences as GET /api/anomalies and the alert e-mails; codes the detection adds later read as the generic one.
  const recommendation = recommendationSentence(item.recommendation, item.scope.label, anomalyLanguageOf(locale));
  const up = item.percentChange !== null && item.percentChange > 0;
  const good = item.percentChange === null || item.percentChange === 0 ? null : up !== ANOMALY_LOWER_IS_BETTER.has(item.metric);
  const dayText = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${item.day}T00:00:00Z`));
  const pending = acknowledge.isPending || resolve.isPending;
  const failure = acknowledge.error ?? resolve.error;
  const headingId = `anomaly-${item.id}-title`;
  const changedAt = item.stateChangedAt ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(item.stateChangedAt)) : null;

  return (
    <article
      className={`rounded-box border-base-content/10 bg-base-100 border p-3 sm:p-4 ${item.state === 'resolved' ? 'opacity-70' : ''}`}
      aria-labelledby={headingId}
      data-testid="anomaly-item"
      data-anomaly-id={item.id}
      data-state={item.state}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 id={headingId} className="flex flex-wrap items-center gap-2 font-semibold">
            <ActivityIcon className="text-primary size-4 shrink-0" aria-hidden="true" />
            <span>{metric}</span>
            <span className={`badge badge-sm badge-soft ${SEVERITY_BADGES[item.severity]}`} data-testid="anomaly-severity">
              {severity}
            </span>
            {item.state !== 'new' && (
              <span className="badge badge-sm badge-ghost" data-testid="anomaly-state">
                {t(`anomalies.states.${item.state}`)}
              </span>
            )}
          </h3>
          <p className="text-base-content/70 text-sm" data-testid="anomaly-scope">
            {scope} · {dayText}
            {item.intraday ? ` (${t('anomalies.intraday')})` : ''}
          </p>
        </div>
      </div>

      <dl className="mt-3 grid grid-cols-3 gap-2 text-sm">
        <div>
          <dt className="text-base-content/65 text-xs">{t('anomalies.detectedValue')}</dt>
          <dd className="font-semibold tabular-nums" data-testid="anomaly-detected">{formatAnomalyFigure(unit, item.detectedValue, currency, locale)}</dd>
        </div>
        <div>
          <dt className="text-base-content/65 text-xs">{t('anomalies.expectedValue')}</dt>
          <dd className="tabular-nums" data-testid="anomaly-expected">{formatAnomalyFigure(unit, item.expectedValue, currency, locale)}</dd>
        </div>
        <div>
          <dt className="text-base-content/65 text-xs">{t('anomalies.change')}</dt>
          <dd className={`flex items-center gap-1 font-semibold tabular-nums ${good === null ? '' : good ? 'text-success' : 'text-error'}`} data-testid="anomaly-change">
            {good !== null && (up ? <TrendingUpIcon className="size-4" aria-hidden="true" /> : <TrendingDownIcon className="size-4" aria-hidden="true" />)}
            {formatChange(item.percentChange, locale)}
          </dd>
        </div>
      </dl>

      <p className="bg-base-200/60 rounded-field mt-3 p-2 text-sm" data-testid="anomaly-recommendation">
        {recommendation}
      </p>

      {item.evidence.length > 1 && <EvidenceChart item={item} unit={unit} currency={currency} metric={metric} scope={item.scope.label} />}

      {failure && (
        <p role="alert" className="text-error mt-2 text-sm" data-testid="anomaly-error">
          {t('anomalies.actionFailed', { message: serverMessage(failure) ?? t('anomalies.failed') })}
        </p>
      )}
      {changedAt && item.state !== 'new' && (
        <p className="text-base-content/60 mt-2 text-xs">{t('anomalies.stateChanged', { state: t(`anomalies.states.${item.state}`), time: changedAt })}</p>
      )}

      <div className="mt-3 flex flex-wrap gap-2">
        {!viewOnly && item.state === 'new' && (
          <button type="button" className="btn btn-sm" disabled={pending} onClick={() => acknowledge.mutate({ id: item.id })} data-testid="anomaly-acknowledge">
            {acknowledge.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
            {acknowledge.isPending ? t('anomalies.acknowledging') : t('anomalies.acknowledge')}
          </button>
        )}
        {!viewOnly && item.state !== 'resolved' && (
          <button type="button" className="btn btn-sm btn-primary btn-soft" disabled={pending} onClick={() => resolve.mutate({ id: item.id })} data-testid="anomaly-resolve">
            {resolve.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
            {resolve.isPending ? t('anomalies.resolving') : t('anomalies.resolve')}
          </button>
        )}
        {explainAvailable && <ExplainAction id={item.id} />}
      </div>
    </article>
  );
}

/** "Explain": the optional LLM's reading of the item, in the user's language. */
function ExplainAction({ id }: { id: string }) {
  const { t, i18n } = useTranslation('dashboard');
  const base = (i18n.resolvedLanguage ?? 'en').split('-')[0] as AnomalyLanguage;
  const language: AnomalyLanguage = ANOMALY_LANGUAGES.includes(base) ? base : 'en';
  const [asked, setAsked] = useState(false);
  const explanation = trpc.anomalies.explain.useQuery({ id, language }, { enabled: asked, retry: false, staleTime: Infinity });
  const panelId = `anomaly-${id}-explanation`;
  return (
    <>
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        onClick={() => (asked ? void explanation.refetch() : setAsked(true))}
        disabled={explanation.isFetching}
        aria-controls={panelId}
        data-testid="anomaly-explain"
      >
        {explanation.isFetching ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <SparklesIcon className="size-4" aria-hidden="true" />}
        {explanation.isFetching ? t('anomalies.explaining') : t('anomalies.explain')}
      </button>
      <div id={panelId} aria-live="polite" className="basis-full">
        {asked && explanation.data && (
          <div className="border-primary/20 bg-primary/5 rounded-field border p-2 text-sm" data-testid="anomaly-explanation">
            <p className="text-xs font-semibold">{t('anomalies.explanationTitle')}</p>
            <p className="whitespace-pre-line">{explanation.data.text}</p>
          </div>
        )}
        {asked && explanation.isError && (
          <p role="alert" className="text-error text-sm">
            {t('anomalies.explainFailed', { message: serverMessage(explanation.error) ?? t('anomalies.failed') })}
          </p>
        )}
      </div>
    </>
  );
}

/** The series with the expected value and its robust band (the last days of the evidence). */
function EvidenceChart({ item, unit, currency, metric, scope }: { item: AnomalyItem; unit: AnomalyValueUnit; currency: string; metric: string; scope: string }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const points = item.evidence;
  const series = [
    { name: t('anomalies.evidenceValue'), data: points.map((point) => point.value) },
    { name: t('anomalies.evidenceExpected'), data: points.map((point) => point.expected) },
    { name: t('anomalies.evidenceBand'), data: points.map((point) => point.upper) },
    { name: t('anomalies.evidenceBand'), data: points.map((point) => point.lower) },
  ];
  const categoriesKey = points.map((point) => point.at).join(',');
  const options = useMemo<ApexOptions>(() => {
    const categories = categoriesKey.split(',');
    const dayLabel = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const label = (value: string) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? dayLabel.format(new Date(`${value}T00:00:00Z`)) : value ?? '');
    const figure = (value: number) => formatAnomalyFigure(unit, value, currency, locale);
    return {
      chart: { sparkline: { enabled: false }, toolbar: { show: false }, zoom: { enabled: false } },
      xaxis: { categories, tickAmount: 4, labels: { trim: false, formatter: label }, tooltip: { enabled: false } },
      yaxis: { labels: { formatter: unit === 'money' ? compactAxisMoney(locale, currency) : figure } },
      // The value in the brand colour, the expected value and both edges of its band in one grey.
      colors: ['#ea580c', '#8b8f98', '#b4b8c0', '#b4b8c0'],
      legend: { show: false },
      tooltip: { shared: true, y: { formatter: figure } },
      stroke: { width: [2.5, 2, 1, 1], dashArray: [0, 5, 3, 3], curve: 'straight' },
      markers: { size: [0, 0, 0, 0], discrete: [{ seriesIndex: 0, dataPointIndex: categories.includes(item.day) ? categories.indexOf(item.day) : categories.length - 1, size: 5, fillColor: '#dc2626', strokeColor: '#dc2626' }] },
    };
  }, [categoriesKey, currency, locale, unit, item.day]);
  return (
    <Chart
      type="line"
      series={series}
      options={options}
      height={150}
      ariaLabel={t('anomalies.evidence', { metric, scope, days: points.length })}
      categoryHeading={t('anomalies.evidenceDay')}
      className="mt-3"
      testId="anomaly-evidence"
    />
  );
}
