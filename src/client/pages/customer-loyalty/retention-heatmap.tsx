import type { TFunction } from 'i18next';
import { CalendarRangeIcon } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { LoyaltyRetentionOutput, RetentionCell, RetentionCohort } from '../../../shared/loyalty-retention.ts';
import { DataError } from '../../components/data-page.tsx';
import { MonthRangeInputs, useMonthRange } from '../../components/month-range-inputs.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat, type FigureFormat } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';
import { columnCount, intensity, scaleTop, STRONG_FILL } from './retention-scale.ts';

/** The text colour on a fill: the light theme's deep orange needs dark text up to nearly full strength, the dark theme's bright orange from about half. */
function textOn(level: number): string {
  return `${level >= STRONG_FILL.light ? 'text-primary-content' : 'text-base-content'} ${level >= STRONG_FILL.dark ? 'dark:text-primary-content' : 'dark:text-base-content'}`;
}

// Cohort retention (README, "Customer loyalty: cohort retention"): one row per month of first
// order, one column per month since; each cell the share of the cohort who ordered in that month.
// Hovering or focusing a cell shows its cohort size, customers and revenue per customer below the grid.

/** The cohort month's column stays in view when the grid scrolls sideways (phones). */
const PINNED = 'bg-base-100 sticky left-0 z-10';

interface Selected {
  cohort: RetentionCohort;
  cell: RetentionCell;
}

export function RetentionSection() {
  const { t } = useTranslation('loyalty');
  const range = useMonthRange();
  const { from, to, valid } = range;
  const query = trpc.loyalty.retention.useQuery({ from, to }, { enabled: valid, placeholderData: (previous) => previous });

  return (
    <SectionCard
      titleId="retention-title"
      title={t('retention.title')}
      description={t('retention.description')}
      testId="retention"
      actions={
        <div className="flex flex-wrap items-end gap-2">
          <MonthRangeInputs range={range} fromLabel={t('retention.from')} toLabel={t('retention.to')} testIdPrefix="retention" />
        </div>
      }
    >
      {!valid ? (
        <p className="text-error text-sm">{t('retention.invalidRange')}</p>
      ) : query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data === undefined ? (
        <RetentionSkeleton />
      ) : query.data.cohorts.every((cohort) => cohort.customers === 0) ? (
        <EmptyState icon={CalendarRangeIcon} title={t('retention.empty.title')} body={t('retention.empty.body')} headingLevel={3} />
      ) : (
        <Heatmap report={query.data} />
      )}
    </SectionCard>
  );
}

function RetentionSkeleton() {
  const { t } = useTranslation('loyalty');
  return (
    <div role="status" aria-live="polite" data-testid="retention-loading">
      <span className="sr-only">{t('retention.loading')}</span>
      <div className="grid grid-cols-8 gap-1" aria-hidden="true">
        {Array.from({ length: 48 }, (_, index) => (
          <div key={index} className="skeleton h-8 rounded-sm" />
        ))}
      </div>
    </div>
  );
}

function cellText(t: TFunction<'loyalty'>, format: FigureFormat, report: LoyaltyRetentionOutput, { cohort, cell }: Selected): string {
  return t('retention.cell', {
    month: format.month(`${cohort.month}-01`),
    monthsSince: cell.monthsSince,
    share: format.percent(cell.retention),
    active: format.integer(cell.activeCustomers),
    customers: format.integer(cohort.customers),
    revenue: format.money(cell.revenuePerCustomerMinor, report.currency),
  }) + (cell.partial ? ` ${t('retention.partial')}` : '');
}

function Heatmap({ report }: { report: LoyaltyRetentionOutput }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const [selected, setSelected] = useState<Selected | null>(null);
  const top = scaleTop(report.cohorts);
  const columns = columnCount(report.cohorts);

  return (
    <div className="space-y-3">
      <div className="overflow-x-auto" onMouseLeave={() => setSelected(null)}>
        <table className="table-xs table w-auto border-separate border-spacing-0.5" data-testid="retention-heatmap">
          <caption className="sr-only">{t('retention.caption')}</caption>
          <thead>
            <tr>
              <th scope="col" className={`${PINNED} text-left`}>{t('retention.cohort')}</th>
              <th scope="col" className="text-right">{t('retention.customers')}</th>
              {Array.from({ length: columns }, (_, monthsSince) => (
                <th key={monthsSince} scope="col" className="min-w-12 text-center font-normal" title={t('retention.monthsSinceLong', { count: monthsSince })}>
                  {t('retention.monthsSince', { count: monthsSince })}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {report.cohorts.map((cohort) => (
              <tr key={cohort.month} data-testid="retention-row" data-month={cohort.month}>
                <th scope="row" className={`${PINNED} whitespace-nowrap text-left font-medium`}>{format.month(`${cohort.month}-01`)}</th>
                <td className="text-right tabular-nums" data-testid="retention-customers">{format.integer(cohort.customers)}</td>
                {Array.from({ length: columns }, (_, monthsSince) => {
                  const cell = cohort.cells[monthsSince];
                  if (!cell) return <td key={monthsSince} aria-hidden="true" />;
                  const level = intensity(cell.retention, cell.monthsSince, top);
                  const text = cellText(t, format, report, { cohort, cell });
                  const show = () => setSelected({ cohort, cell });
                  return (
                    <td
                      key={monthsSince}
                      tabIndex={0}
                      aria-label={text}
                      data-testid="retention-cell"
                      data-months-since={monthsSince}
                      onMouseEnter={show}
                      onFocus={show}
                      className={`rounded-sm px-1 py-1.5 text-center tabular-nums outline-offset-1 focus-visible:outline-2 focus-visible:outline-primary ${
                        cell.monthsSince === 0 ? 'bg-base-300 text-base-content' : textOn(level)
                      } ${cell.partial ? 'italic' : ''}`}
                      style={cell.monthsSince === 0 ? undefined : { backgroundColor: `color-mix(in oklab, var(--color-primary) ${Math.round(level * 100)}%, transparent)` }}
                    >
                      {format.percent(cell.retention, cell.retention > 0 && cell.retention < 0.1 ? 1 : 0)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="bg-base-200 rounded-box min-h-10 px-3 py-2 text-sm" role="status" aria-live="polite" data-testid="retention-detail">
        {selected ? cellText(t, format, report, selected) : t('retention.hint')}
      </p>
      <div className="text-base-content/70 flex flex-wrap items-center gap-2 text-xs" data-testid="retention-legend">
        <span>{format.percent(0, 0)}</span>
        <span className="h-3 w-32 rounded-sm" style={{ background: 'linear-gradient(to right, transparent, var(--color-primary))' }} aria-hidden="true" />
        <span>{format.percent(top, 0)}</span>
        <span>{t('retention.legend')}</span>
        <span className="italic">{t('retention.partialLegend')}</span>
      </div>
    </div>
  );
}
