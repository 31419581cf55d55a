import { keepPreviousData } from '@tanstack/react-query';
import type { ApexOptions } from 'apexcharts';
import { ArrowDownIcon, ArrowUpDownIcon, ArrowUpIcon, DownloadIcon, PlayIcon, SaveIcon } from 'lucide-react';
import { useEffect, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { presetRange } from '../../../shared/date-ranges.ts';
import { delta } from '../../../shared/metrics.ts';
import {
  DIMENSION_METRICS,
  isTimeDimension,
  MAX_REPORT_METRICS,
  REPORT_DIMENSIONS,
  REPORT_GRANULARITIES,
  REPORT_METRICS,
  type ReportDefinition,
  type ReportDimension,
  type ReportGranularity,
  type ReportMetric,
  type ReportResult,
  type SavedReport,
} from '../../../shared/reports.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataPage, StoreDataGate, useViewOnly } from '../../components/data-page.tsx';
import { formatDayRange, useDateRange, useStoreToday } from '../../components/date-range-picker.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { TableScroll } from '../../components/figure-table-head.tsx';
import { useCurrency } from '../../lib/currency.tsx';
import { serverMessage } from '../../lib/session.ts';
import type { CurrencyCode } from '../../../shared/currencies.ts';
import { trpc } from '../../lib/trpc.ts';
import { SavedReportsCard } from './saved-reports.tsx';
import { useReportFormat } from './report-format.ts';

export function ReportsPage() {
  const { t } = useTranslation('reports');
  return (
    <DataPage title={t('page.title')} description={t('page.description')}>
      <StoreDataGate>
        <ReportBuilder />
      </StoreDataGate>
    </DataPage>
  );
}

interface Draft {
  metrics: ReportMetric[];
  dimension: ReportDimension;
  granularity: ReportGranularity;
}

const DEFAULT_DRAFT: Draft = { metrics: ['netSales', 'orders'], dimension: 'channel', granularity: 'total' };

function ReportBuilder() {
  const { t } = useTranslation('reports');
  const range = useDateRange();
  const search = useSearch();
  const [location, navigate] = useLocation();
  const today = useStoreToday();
  const { currency } = useCurrency();
  const viewOnly = useViewOnly();
  const openedId = Number(new URLSearchParams(search).get('report')) || null;
  const saved = trpc.reports.list.useQuery();
  const opened = saved.data?.find((report) => report.id === openedId) ?? null;
  const [draft, setDraft] = useState<Draft>(DEFAULT_DRAFT);
  const [ran, setRan] = useState<ReportDefinition | null>(null);

  const definition: ReportDefinition = {
    metrics: draft.metrics,
    dimension: draft.dimension,
    granularity: isTimeDimension(draft.dimension) ? 'total' : draft.granularity,
    compare: range.compare,
    range: range.preset === 'custom' ? { from: range.from, to: range.to } : { preset: range.preset },
  };
  const problem = draft.metrics.length === 0 ? t('builder.noMetric') : null;

  // Opening a saved report (?report=<id>) loads its definition into the builder and runs it.
  useEffect(() => {
    if (!opened) return;
    const { definition: savedDefinition } = opened;
    setDraft({ metrics: savedDefinition.metrics, dimension: savedDefinition.dimension, granularity: savedDefinition.granularity });
    setRan(savedDefinition);
    const days = 'preset' in savedDefinition.range ? presetRange(savedDefinition.range.preset, today) : savedDefinition.range;
    const params = new URLSearchParams(search);
    params.set('from', days.from);
    params.set('to', days.to);
    params.set('compare', savedDefinition.compare);
    if (params.toString() !== new URLSearchParams(search).toString()) navigate(`${location}?${params.toString()}`, { replace: true });
  }, [opened?.id, opened?.updatedAt]);

  const openReport = (report: SavedReport | null) => {
    const params = new URLSearchParams(search);
    if (report) params.set('report', String(report.id));
    else params.delete('report');
    navigate(`${location}?${params.toString()}`, { replace: true });
  };

  return (
    <div className="space-y-6">
      <section className="card bg-base-100 border-base-content/10 border shadow-xs" aria-labelledby="report-builder-title">
        <div className="card-body gap-4 p-4 sm:p-6">
          <div className="flex flex-wrap items-baseline justify-between gap-2">
            <h2 id="report-builder-title" className="card-title text-base">
              {opened ? t('builder.editing', { name: opened.name }) : t('builder.title')}
            </h2>
            {opened && (
              <button type="button" className="btn btn-ghost btn-xs" onClick={() => openReport(null)}>
                {t('builder.newReport')}
              </button>
            )}
          </div>
          <MetricPicker draft={draft} onChange={setDraft} />
          <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
            <label className="fieldset py-0">
              <span className="fieldset-legend pt-0 pb-1 text-sm">{t('builder.dimension')}</span>
              <select className="select w-full" value={draft.dimension} onChange={(event) => setDraft({ ...draft, dimension: event.target.value as ReportDimension })} data-testid="report-dimension">
                {REPORT_DIMENSIONS.map((dimension) => (
                  <option key={dimension} value={dimension}>
                    {t(`dimensions.${dimension}`)}
                  </option>
                ))}
              </select>
            </label>
            <label className="fieldset py-0">
              <span className="fieldset-legend pt-0 pb-1 text-sm">{t('builder.granularity')}</span>
              <select
                className="select w-full"
                value={isTimeDimension(draft.dimension) ? 'total' : draft.granularity}
                disabled={isTimeDimension(draft.dimension)}
                onChange={(event) => setDraft({ ...draft, granularity: event.target.value as ReportGranularity })}
                data-testid="report-granularity"
              >
                {REPORT_GRANULARITIES.map((granularity) => (
                  <option key={granularity} value={granularity}>
                    {t(`granularities.${granularity}`)}
                  </option>
                ))}
              </select>
              <span className="text-base-content/70 text-xs">{isTimeDimension(draft.dimension) ? t('builder.granularityTime') : t('builder.granularityHint')}</span>
            </label>
            <div className="fieldset content-end py-0 lg:content-start">
              {/* An empty legend line on wide screens, so the button lines up with the selects rather than with the hint under them. */}
              <span className="fieldset-legend invisible pt-0 pb-1 text-sm max-lg:hidden" aria-hidden="true">
                &nbsp;
              </span>
              <button type="button" className="btn btn-primary gap-2" disabled={problem !== null} onClick={() => setRan(definition)} data-testid="report-run">
                <PlayIcon aria-hidden="true" className="size-4" />
                {t('builder.run')}
              </button>
            </div>
          </div>
          <p className="text-base-content/70 text-xs">{t('builder.rangeHint')}</p>
          {problem && (
            <p role="alert" className="text-error text-sm">
              {problem}
            </p>
          )}
        </div>
      </section>

      {ran ? (
        <ReportResultView definition={ran} currency={currency} opened={opened} viewOnly={viewOnly} onSaved={openReport} />
      ) : (
        <div className="text-base-content/70 rounded-box border-base-content/15 border border-dashed p-8 text-center text-sm">{t('result.notRun')}</div>
      )}

      <SavedReportsCard reports={saved} openedId={openedId} onOpen={openReport} viewOnly={viewOnly} />
    </div>
  );
}

function MetricPicker({ draft, onChange }: { draft: Draft; onChange: (draft: Draft) => void }) {
  const { t } = useTranslation('reports');
  const available = DIMENSION_METRICS[draft.dimension];
  const toggle = (metric: ReportMetric) => {
    const metrics = draft.metrics.includes(metric) ? draft.metrics.filter((m) => m !== metric) : [...draft.metrics, metric];
    onChange({ ...draft, metrics });
  };
  return (
    <fieldset className="fieldset py-0">
      <legend className="fieldset-legend pt-0 pb-1 text-sm">{t('builder.metrics', { max: MAX_REPORT_METRICS })}</legend>
      <div className="flex flex-wrap gap-2" data-testid="report-metrics">
        {REPORT_METRICS.map((metric) => {
          const checked = draft.metrics.includes(metric);
          const disabled = !checked && draft.metrics.length >= MAX_REPORT_METRICS;
          return (
            <label key={metric} className={`btn btn-sm gap-2 ${checked ? 'btn-primary btn-soft' : 'btn-ghost border-base-content/15'} ${available.includes(metric) ? '' : 'opacity-60'}`} title={available.includes(metric) ? undefined : t('builder.notForDimension')}>
              <input type="checkbox" className="checkbox checkbox-xs" checked={checked} disabled={disabled} onChange={() => toggle(metric)} data-metric={metric} />
              {t(`metrics.${metric}`)}
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}

function ReportResultView({ definition, currency, opened, viewOnly, onSaved }: { definition: ReportDefinition; currency: CurrencyCode; opened: SavedReport | null; viewOnly: boolean; onSaved: (report: SavedReport) => void }) {
  const { t, i18n } = useTranslation('reports');
  const query = trpc.reports.run.useQuery({ ...definition, currency }, { placeholderData: keepPreviousData });
  const csvHref = `/api/reports/export.csv?${new URLSearchParams({ definition: JSON.stringify(definition), currency }).toString()}`;
  if (query.isError && !query.data) return <DataError error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <div className="skeleton h-80 rounded-box" role="status" aria-label={t('result.loading')} />;
  const result = query.data;
  return (
    <SectionCard
      titleId="report-result-title"
      title={t('result.title')}
      description={t('result.summary', { range: formatDayRange(result.range, i18n.resolvedLanguage ?? 'en'), currency: result.currency, count: result.rows.length })}
      className={`transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`}
      aria-busy={query.isFetching}
      actions={
        <div className="flex flex-wrap gap-2">
          <a className="btn btn-sm btn-outline gap-2" href={csvHref} download data-testid="report-export">
            <DownloadIcon aria-hidden="true" className="size-4" />
            {t('result.exportCsv')}
          </a>
          {!viewOnly && <SaveReportForm definition={definition} opened={opened} onSaved={onSaved} />}
        </div>
      }
    >
      {result.rows.length === 0 ? (
        <p className="text-base-content/70 py-8 text-center text-sm">{t('result.empty')}</p>
      ) : (
        <>
          <ResultChart result={result} />
          <ResultTable result={result} />
        </>
      )}
    </SectionCard>
  );
}

function SaveReportForm({ definition, opened, onSaved }: { definition: ReportDefinition; opened: SavedReport | null; onSaved: (report: SavedReport) => void }) {
  const { t } = useTranslation('reports');
  const id = useId();
  const utils = trpc.useUtils();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const save = trpc.reports.save.useMutation({
    onSuccess: async (report) => {
      utils.reports.list.setData(undefined, (list) => [...(list ?? []), report].sort((a, b) => a.name.localeCompare(b.name)));
      onSaved(report);
      setName('');
      toast({ title: t('saved.savedToast', { name: report.name }), variant: 'success' });
      await utils.reports.list.invalidate();
    },
    onError: (failure) => setError(serverMessage(failure) ?? t('common.connection')),
  });
  const update = trpc.reports.update.useMutation({
    onSuccess: async (report) => {
      toast({ title: t('saved.updatedToast', { name: report.name }), variant: 'success' });
      await utils.reports.list.invalidate();
    },
    onError: (failure) => toast({ title: t('saved.updateFailed'), description: serverMessage(failure) ?? t('common.connection'), variant: 'destructive' }),
  });
  return (
    <div className="flex flex-wrap items-start gap-2">
      {opened && (
        <button type="button" className="btn btn-sm gap-2" disabled={update.isPending} onClick={() => update.mutate({ id: opened.id, definition })} data-testid="report-update">
          <SaveIcon aria-hidden="true" className="size-4" />
          {t('saved.updateOpened')}
        </button>
      )}
      <form
        className="flex items-start gap-2"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!name.trim()) {
            setError(t('saved.nameRequired'));
            return;
          }
          save.mutate({ name, definition });
        }}
      >
        <div className="flex flex-col">
          <input
            id={id}
            className={`input input-sm w-44 ${error ? 'input-error' : ''}`}
            placeholder={t('saved.namePlaceholder')}
            aria-label={t('saved.nameLabel')}
            value={name}
            maxLength={120}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={(event) => {
              setName(event.target.value);
              setError(null);
            }}
            data-testid="report-name"
          />
          {error && (
            <span id={`${id}-error`} className="text-error mt-1 text-xs">
              {error}
            </span>
          )}
        </div>
        <button type="submit" className="btn btn-sm btn-primary gap-2" disabled={save.isPending} data-testid="report-save">
          <SaveIcon aria-hidden="true" className="size-4" />
          {opened ? t('saved.saveAsNew') : t('saved.save')}
        </button>
      </form>
    </div>
  );
}

type ResultRow = ReportResult['rows'][number];
type SortColumn = 'label' | 'period' | ReportMetric;
interface TableSort {
  column: SortColumn;
  direction: 'asc' | 'desc';
}

/**
 * The rows in a clicked column's order; rows without a value ("—") last both ways. Time rows sort
 * by their key (chronological), other labels alphabetically as shown.
 */
export function sortedRows(rows: ResultRow[], sort: TableSort | null, labelOf: (row: ResultRow) => string, locale: string): ResultRow[] {
  if (!sort) return rows;
  const sign = sort.direction === 'asc' ? 1 : -1;
  const collator = new Intl.Collator(locale, { numeric: true, sensitivity: 'base' });
  return [...rows].sort((a, b) => {
    if (sort.column === 'label') return sign * collator.compare(labelOf(a), labelOf(b));
    if (sort.column === 'period') return sign * collator.compare(a.period ?? '', b.period ?? '') || collator.compare(labelOf(a), labelOf(b));
    const x = a.values[sort.column] ?? null;
    const y = b.values[sort.column] ?? null;
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return sign * (x - y);
  });
}

/** Metrics whose rise is bad news for the store. */
const WORSE_WHEN_UP: readonly ReportMetric[] = ['refunds', 'cac'];

function SortHeader({ label, column, sort, onSort, align }: { label: string; column: SortColumn; sort: TableSort | null; onSort: (column: SortColumn) => void; align: 'left' | 'right' }) {
  const { t } = useTranslation('reports');
  const active = sort?.column === column;
  const Icon = !active ? ArrowUpDownIcon : sort.direction === 'asc' ? ArrowUpIcon : ArrowDownIcon;
  return (
    <th scope="col" aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'} className={align === 'right' ? 'text-right' : ''} data-column={column}>
      <button
        type="button"
        className={`inline-flex items-center gap-1 font-semibold whitespace-nowrap hover:text-base-content ${align === 'right' ? 'flex-row-reverse' : ''} ${active ? 'text-base-content' : ''}`}
        onClick={() => onSort(column)}
        title={t('result.sortBy', { column: label })}
        data-testid={`report-sort-${column}`}
      >
        {label}
        <Icon className={`size-3.5 shrink-0 ${active ? '' : 'opacity-40'}`} aria-hidden="true" />
      </button>
    </th>
  );
}

/** A value, and with a comparison its change in per cent beneath (the previous value in its tooltip). */
function ValueCell({ metric, value, previous, comparing, format, percent, emphasis = false }: {
  metric: ReportMetric;
  value: number | null;
  previous: number | null;
  comparing: boolean;
  format: ReturnType<typeof useReportFormat>;
  percent: Intl.NumberFormat;
  emphasis?: boolean;
}) {
  const { t } = useTranslation('reports');
  // Δ % through the one definition (metrics.ts): none when either side has no value or the previous one is 0.
  const percentChange = comparing ? delta(value, previous).percent : null;
  const change = percentChange === null ? null : percentChange / 100;
  const tone = change === null || change === 0 ? 'text-base-content/70' : (change > 0) !== WORSE_WHEN_UP.includes(metric) ? 'text-success' : 'text-error';
  return (
    <td className={`text-right whitespace-nowrap ${(value ?? 0) < 0 ? 'text-error' : ''} ${emphasis ? 'font-semibold' : ''}`} data-value={value ?? ''}>
      {format.value(metric, value)}
      {comparing && (
        <span className={`block text-xs font-normal ${tone}`} title={t('result.previousValue', { value: format.value(metric, previous) })} data-testid="report-change" data-change={change ?? ''}>
          {change === null ? '—' : percent.format(change)}
          <span className="sr-only"> {t('result.previousValue', { value: format.value(metric, previous) })}</span>
        </span>
      )}
    </td>
  );
}

function ResultTable({ result }: { result: ReportResult }) {
  const { t, i18n } = useTranslation('reports');
  const locale = i18n.resolvedLanguage ?? 'en';
  const format = useReportFormat(result.currency);
  const [sort, setSort] = useState<TableSort | null>(null);
  const comparing = result.previousRange !== null;
  const percent = useMemo(() => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' }), [locale]);
  // A column of a former result (another metric set) sorts nothing.
  const activeSort = sort && (sort.column === 'label' || (sort.column === 'period' && result.hasPeriod) || result.metrics.includes(sort.column as ReportMetric)) ? sort : null;
  const labelOf = (row: ResultRow) => (isTimeDimension(result.dimension) ? row.key : format.label(result, row.label));
  const rows = sortedRows(result.rows, activeSort, labelOf, locale);
  const onSort = (column: SortColumn) =>
    setSort((current) =>
      current?.column === column ? { column, direction: current.direction === 'asc' ? 'desc' : 'asc' } : { column, direction: column === 'label' || column === 'period' ? 'asc' : 'desc' },
    );
  const captionId = useId();
  return (
    <>
      <TableScroll testId="report-table-scroll">
        <table className="table-sm table tabular-nums" data-testid="report-table" aria-describedby={comparing ? captionId : undefined}>
          <thead>
            <tr>
              <SortHeader label={t(`dimensions.${result.dimension}`)} column="label" sort={activeSort} onSort={onSort} align="left" />
              {result.hasPeriod && <SortHeader label={t('result.period')} column="period" sort={activeSort} onSort={onSort} align="left" />}
              {result.metrics.map((metric) => (
                <SortHeader key={metric} label={t(`metrics.${metric}`)} column={metric} sort={activeSort} onSort={onSort} align="right" />
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.period ?? ''}|${row.key}`} data-testid="report-row">
                <th scope="row" className="max-w-56 truncate font-normal" title={format.label(result, row.label)}>
                  {format.label(result, row.label)}
                </th>
                {result.hasPeriod && <td className="whitespace-nowrap">{row.period}</td>}
                {result.metrics.map((metric) => (
                  <ValueCell key={metric} metric={metric} value={row.values[metric] ?? null} previous={row.previous?.[metric] ?? null} comparing={comparing} format={format} percent={percent} />
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="bg-base-200/60 text-base-content" data-testid="report-total">
              <th scope="row" className="font-semibold" title={t('result.totalHint')}>
                {t('result.total')}
              </th>
              {result.hasPeriod && <td />}
              {result.metrics.map((metric) => (
                <ValueCell key={metric} metric={metric} value={result.totals.values[metric] ?? null} previous={result.totals.previous?.[metric] ?? null} comparing={comparing} format={format} percent={percent} emphasis />
              ))}
            </tr>
          </tfoot>
        </table>
      </TableScroll>
      {comparing && (
        <p id={captionId} className="text-base-content/70 pt-2 text-xs">
          {t('result.changeCaption')}
        </p>
      )}
    </>
  );
}

/** The first metric by dimension value: bars for categories, a line over time. */
function ResultChart({ result }: { result: ReportResult }) {
  const { t } = useTranslation('reports');
  const format = useReportFormat(result.currency);
  const metric = result.metrics[0]!;
  const timeSeries = isTimeDimension(result.dimension);
  const rows = timeSeries ? result.rows : result.rows.filter((row) => !result.hasPeriod || row.period === result.rows[0]?.period).slice(0, 15);
  const money = format.isMoney(metric);
  const series = useMemo(() => [{ name: t(`metrics.${metric}`), data: rows.map((row) => { const value = row.values[metric] ?? null; return value === null ? null : money ? value / 100 : value; }) }], [rows, metric, money, t]);
  const categories = rows.map((row) => format.label(result, row.label));
  const categoryKey = categories.join('|');
  const options = useMemo<ApexOptions>(
    () => ({
      xaxis: { categories: categoryKey.split('|'), labels: { rotate: -45, rotateAlways: categoryKey.split('|').length > 4, trim: false, maxHeight: 120 } },
      yaxis: { labels: { formatter: (value: number) => format.value(metric, money ? Math.round(value * 100) : value) } },
      tooltip: { y: { formatter: (value: number) => format.value(metric, money ? Math.round(value * 100) : value) } },
      plotOptions: { bar: { borderRadius: 3, columnWidth: '55%' } },
      dataLabels: { enabled: false },
      stroke: { width: timeSeries ? 2 : 0 },
    }),
    [categoryKey, metric, money, timeSeries],
  );
  return <Chart type={timeSeries ? 'area' : 'bar'} series={series} options={options} height={260} ariaLabel={t('result.chartLabel', { metric: t(`metrics.${metric}`) })} testId="report-chart" />;
}
