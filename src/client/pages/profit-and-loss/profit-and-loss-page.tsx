import { keepPreviousData } from '@tanstack/react-query';
import type { ApexOptions } from 'apexcharts';
import { DownloadIcon } from 'lucide-react';
import { useCallback, useId, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { addMonthsTo, MAX_STATEMENT_MONTHS, monthList, monthsInRange, type StatementOutput } from '../../../shared/finance.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataPage, StoreDataGate, useViewOnly } from '../../components/data-page.tsx';
import { useStoreToday } from '../../components/date-range-picker.tsx';
import { useChannelName } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { TableScroll } from '../../components/figure-table-head.tsx';
import { useCurrency } from '../../lib/currency.tsx';
import type { CurrencyCode } from '../../../shared/currencies.ts';
import { trpc } from '../../lib/trpc.ts';
import { CostSettingsCard } from './cost-settings.tsx';
import { ExpensesCard } from './expenses.tsx';
import { formatPercent, formatStatementMoney } from './pnl-format.ts';
import { ProductCostsCard } from './product-costs.tsx';

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
/** How far back the month pickers reach. */
const SELECTABLE_MONTHS = 36;
const DEFAULT_MONTHS = 12;

/** The statement's months from the URL (?from=YYYY-MM&to=YYYY-MM), by default the last 12 months. */
function useMonthRange() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const currentMonth = useStoreToday().slice(0, 7);
  const params = new URLSearchParams(search);
  const fromParam = params.get('from');
  const toParam = params.get('to');
  const to = toParam && MONTH_PATTERN.test(toParam) ? toParam : currentMonth;
  const from = fromParam && MONTH_PATTERN.test(fromParam) ? fromParam : addMonthsTo(to, -(DEFAULT_MONTHS - 1));
  const setRange = useCallback(
    (next: { from: string; to: string }) => {
      const query = new URLSearchParams(search);
      query.set('from', next.from);
      query.set('to', next.to);
      navigate(`${location}?${query.toString()}`, { replace: true });
    },
    [search, location, navigate],
  );
  const problem = from > to ? 'startAfterEnd' : monthsInRange(from, to) > MAX_STATEMENT_MONTHS ? 'tooLong' : null;
  return { from, to, currentMonth, setRange, problem };
}

export function ProfitAndLossPage() {
  const { t } = useTranslation('finance');
  const range = useMonthRange();
  const { currency } = useCurrency();
  const csvHref = `/api/profit-and-loss.csv?${new URLSearchParams({ from: range.from, to: range.to, currency }).toString()}`;
  return (
    <DataPage
      title={t('page.title')}
      description={t('page.description')}
      showDateRange={false}
      actions={
        <>
          <MonthRangePicker range={range} />
          <a className={`btn btn-outline gap-2 ${range.problem ? 'btn-disabled' : ''}`} href={csvHref} download data-testid="pnl-export" aria-disabled={range.problem !== null}>
            <DownloadIcon aria-hidden="true" className="size-4" />
            {t('actions.exportCsv')}
          </a>
        </>
      }
    >
      <StoreDataGate>
        {range.problem ? (
          <div role="alert" className="alert alert-warning alert-soft">
            {t(`range.${range.problem}`, { max: MAX_STATEMENT_MONTHS })}
          </div>
        ) : (
          <Statement from={range.from} to={range.to} currency={currency} />
        )}
        <CostsSection />
      </StoreDataGate>
    </DataPage>
  );
}

function MonthRangePicker({ range }: { range: ReturnType<typeof useMonthRange> }) {
  const { t, i18n } = useTranslation('finance');
  const id = useId();
  const locale = i18n.resolvedLanguage ?? 'en';
  const months = useMemo(() => monthList(addMonthsTo(range.currentMonth, -(SELECTABLE_MONTHS - 1)), range.currentMonth).reverse(), [range.currentMonth]);
  const label = (month: string) => new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
  const options = (selected: string) => (months.includes(selected) ? months : [selected, ...months]);
  return (
    <div className="flex items-end gap-2" role="group" aria-label={t('range.label')}>
      <label className="flex flex-col text-xs" htmlFor={`${id}-from`}>
        <span className="text-base-content/70 mb-1">{t('range.from')}</span>
        <select id={`${id}-from`} className="select select-sm w-32" value={range.from} onChange={(event) => range.setRange({ from: event.target.value, to: range.to })} data-testid="pnl-from">
          {options(range.from).map((month) => (
            <option key={month} value={month}>
              {label(month)}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs" htmlFor={`${id}-to`}>
        <span className="text-base-content/70 mb-1">{t('range.to')}</span>
        <select id={`${id}-to`} className="select select-sm w-32" value={range.to} onChange={(event) => range.setRange({ from: range.from, to: event.target.value })} data-testid="pnl-to">
          {options(range.to).map((month) => (
            <option key={month} value={month}>
              {label(month)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

type Column = StatementOutput['total'];

interface StatementRow {
  key: string;
  label: string;
  value: (column: Column) => number | null;
  kind: 'money' | 'percent';
  /** Subtotals are emphasised; costs are indented under them. */
  emphasis?: 'subtotal' | 'total';
  cost?: boolean;
}

/** A cost shown as a negative amount (0 stays 0, never "-0"). */
function asCost(value: number): number {
  return value === 0 ? 0 : -value;
}

function useStatementRows(statement: StatementOutput): StatementRow[] {
  const { t } = useTranslation('finance');
  const channelName = useChannelName();
  return [
    { key: 'netSales', label: t('lines.netSales'), value: (c) => c.netSales, kind: 'money', emphasis: 'subtotal' },
    { key: 'cogs', label: t('lines.cogs'), value: (c) => asCost(c.cogs), kind: 'money', cost: true },
    { key: 'grossProfit', label: t('lines.grossProfit'), value: (c) => c.grossProfit, kind: 'money', emphasis: 'subtotal' },
    { key: 'shippingCosts', label: t('lines.shippingCosts'), value: (c) => asCost(c.shippingCosts), kind: 'money', cost: true },
    { key: 'paymentFees', label: t('lines.paymentFees'), value: (c) => asCost(c.paymentFees), kind: 'money', cost: true },
    ...statement.adPlatforms.map(
      (platform): StatementRow => ({ key: `adSpend.${platform}`, label: t('lines.adSpend', { platform: channelName(platform) }), value: (c) => asCost(c.adSpend[platform] ?? 0), kind: 'money', cost: true }),
    ),
    { key: 'emailSpend', label: t('lines.emailSpend'), value: (c) => asCost(c.emailSpend), kind: 'money', cost: true },
    { key: 'contributionMargin', label: t('lines.contributionMargin'), value: (c) => c.contributionMargin, kind: 'money', emphasis: 'subtotal' },
    { key: 'customExpenses', label: t('lines.customExpenses'), value: (c) => asCost(c.customExpenses), kind: 'money', cost: true },
    { key: 'netProfit', label: t('lines.netProfit'), value: (c) => c.netProfit, kind: 'money', emphasis: 'total' },
    { key: 'marginPercent', label: t('lines.marginPercent'), value: (c) => c.marginPercent, kind: 'percent' },
  ];
}

function Statement({ from, to, currency }: { from: string; to: string; currency: CurrencyCode }) {
  const { t } = useTranslation('finance');
  const query = trpc.finance.statement.useQuery({ from, to, currency }, { placeholderData: keepPreviousData });
  if (query.isError && !query.data) return <DataError error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) {
    return (
      <div className="space-y-4" role="status" aria-label={t('statement.loading')}>
        <div className="skeleton h-96 rounded-box" />
      </div>
    );
  }
  return (
    <div className={`space-y-6 transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={query.isFetching}>
      <StatementTable statement={query.data} />
      <NetProfitChart statement={query.data} />
    </div>
  );
}

function StatementTable({ statement }: { statement: StatementOutput }) {
  const { t, i18n } = useTranslation('finance');
  const locale = i18n.resolvedLanguage ?? 'en';
  const rows = useStatementRows(statement);
  const monthLabel = (month: string) => new Intl.DateTimeFormat(locale, { month: 'short', year: '2-digit', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
  const cell = (row: StatementRow, column: Column) => {
    const value = row.value(column);
    const text = row.kind === 'percent' ? formatPercent(value, locale) : formatStatementMoney(value, statement.currency, locale);
    const negative = value !== null && value < 0;
    return { text, value, className: negative ? (row.cost ? 'text-base-content/80' : 'text-error') : '' };
  };
  return (
    <section className="card bg-base-100 border-base-content/10 min-w-0 border shadow-xs" aria-labelledby="pnl-statement-title">
      <div className="card-body gap-3 p-4 sm:p-6">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="pnl-statement-title" className="card-title text-base">
            {t('statement.title')}
          </h2>
          <p className="text-base-content/70 text-xs">{t('statement.currencyNote', { currency: statement.currency })}</p>
        </div>
        <TableScroll>
          <table className="table-sm table min-w-max tabular-nums [&_td]:px-2 [&_th]:px-2" data-testid="pnl-statement">
            <thead>
              <tr>
                <th scope="col" className="bg-base-100 sticky left-0 z-10 min-w-40">
                  {t('statement.line')}
                </th>
                {statement.months.map(({ month }) => (
                  <th key={month} scope="col" className="text-right">
                    {monthLabel(month)}
                  </th>
                ))}
                <th scope="col" className="bg-base-200/60 text-right">
                  {t('statement.total')}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const total = cell(row, statement.total);
                return (
                  <tr key={row.key} data-line={row.key} className={row.emphasis ? 'border-base-content/20 border-t font-semibold' : ''}>
                    <th scope="row" className={`bg-base-100 sticky left-0 z-10 font-normal ${row.emphasis ? 'font-semibold' : ''} ${row.cost ? 'pl-6!' : ''} ${row.emphasis === 'total' ? 'text-primary' : ''}`}>
                      {row.label}
                    </th>
                    {statement.months.map(({ month, column }) => {
                      const value = cell(row, column);
                      return (
                        <td key={month} className={`text-right ${value.className}`} data-value={value.value ?? ''}>
                          {value.text}
                        </td>
                      );
                    })}
                    <td className={`bg-base-200/60 text-right font-semibold ${total.className}`} data-testid={`pnl-total-${row.key}`} data-value={total.value ?? ''}>
                      {total.text}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
        <p className="text-base-content/70 text-xs">{t('statement.footnote')}</p>
      </div>
    </section>
  );
}

function NetProfitChart({ statement }: { statement: StatementOutput }) {
  const { t, i18n } = useTranslation('finance');
  const locale = i18n.resolvedLanguage ?? 'en';
  const monthKey = statement.months.map((m) => m.month).join(',');
  const series = useMemo(
    () => [
      { name: t('lines.netProfit'), data: statement.months.map((m) => m.column.netProfit / 100) },
      { name: t('lines.grossProfit'), data: statement.months.map((m) => m.column.grossProfit / 100) },
    ],
    [statement, t],
  );
  const options = useMemo<ApexOptions>(
    () => ({
      xaxis: { labels: { rotate: -45, hideOverlappingLabels: true }, categories: monthKey.split(',').map((month) => new Intl.DateTimeFormat(locale, { month: 'short', year: '2-digit', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`))) },
      yaxis: { labels: { formatter: (value: number) => formatStatementMoney(Math.round(value * 100), statement.currency, locale) ?? '' } },
      tooltip: { y: { formatter: (value: number) => formatStatementMoney(Math.round(value * 100), statement.currency, locale) ?? '' } },
      plotOptions: { bar: { columnWidth: '60%', borderRadius: 3, colors: { ranges: [{ from: -1e12, to: -0.000001, color: 'rgb(220, 38, 38)' }] } } },
      dataLabels: { enabled: false },
    }),
    [monthKey, locale, statement.currency],
  );
  return (
    <SectionCard titleId="pnl-chart-title" title={t('chart.title')}>
      <Chart type="bar" series={series} options={options} height={280} ariaLabel={t('chart.ariaLabel')} testId="pnl-chart" />
    </SectionCard>
  );
}

function CostsSection() {
  const { t } = useTranslation('finance');
  const viewOnly = useViewOnly();
  return (
    <section className="space-y-4" aria-labelledby="pnl-costs-title">
      <div>
        <h2 id="pnl-costs-title" className="text-lg font-semibold">
          {t('costs.title')}
        </h2>
        <p className="text-base-content/70 text-sm">{viewOnly ? t('costs.viewOnly') : t('costs.description')}</p>
      </div>
      <ProductCostsCard viewOnly={viewOnly} />
      <div className="grid gap-6 lg:grid-cols-2">
        <ExpensesCard viewOnly={viewOnly} />
        <CostSettingsCard viewOnly={viewOnly} />
      </div>
    </section>
  );
}
