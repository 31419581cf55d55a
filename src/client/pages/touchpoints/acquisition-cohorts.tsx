import { ChevronRightIcon, DownloadIcon } from 'lucide-react';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { COHORT_GROUPINGS, COHORT_HORIZONS, cohortsCsv, type AcquisitionCohortsOutput, type CohortGrouping } from '../../../shared/cohorts.ts';
import { downloadFile } from '../../lib/download-file.ts';
import { DataError } from '../../components/data-page.tsx';
import { MonthRangeInputs, useMonthRange } from '../../components/month-range-inputs.tsx';
import { useChannelName } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat, type FigureFormat } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';
import { useSearchParam } from '../../lib/use-search-param.ts';

// Acquisition cohorts (README, "Attribution: acquisition cohorts"): customers by the channel or
// campaign that first brought them and the month of their first order, with their value at 30, 90,
// 180 and 365 days, repeat rate, CAC and payback. A section of the touchpoints screen.

type Figures = AcquisitionCohortsOutput['total'];

/** The source column stays in view when the table scrolls sideways (phones). */
const PINNED = 'bg-base-100 sticky left-0 z-10';

function downloadCsv(report: AcquisitionCohortsOutput) {
  downloadFile(`acquisition-cohorts-${report.group}-${report.from}-${report.to}.csv`, [cohortsCsv(report)], 'text/csv');
}

export function AcquisitionCohortsSection() {
  const { t } = useTranslation('cohorts');
  const [group, setGroup] = useSearchParam<CohortGrouping>('cohortGroup', COHORT_GROUPINGS, 'channel');
  const range = useMonthRange();
  const { from, to, valid } = range;
  const query = trpc.attribution.acquisitionCohorts.useQuery({ from, to, group }, { enabled: valid, placeholderData: (previous) => previous });
  const report = query.data;

  return (
    <SectionCard
      titleId="acquisition-cohorts-title"
      title={t('title')}
      description={t('description')}
      testId="acquisition-cohorts"
      actions={
        <div className="flex flex-wrap items-end gap-2">
          <MonthRangeInputs range={range} fromLabel={t('from')} toLabel={t('to')} testIdPrefix="cohorts" />
          <div role="group" aria-label={t('groupBy')} className="join">
            {COHORT_GROUPINGS.map((option) => (
              <button
                key={option}
                type="button"
                aria-pressed={group === option}
                className={`btn btn-sm join-item ${group === option ? 'btn-primary' : 'btn-ghost border-base-content/15 bg-base-100'}`}
                onClick={() => setGroup(option)}
              >
                {t(`group.${option}`)}
              </button>
            ))}
          </div>
          <button type="button" className="btn btn-sm btn-outline gap-2" disabled={!report} onClick={() => report && downloadCsv(report)} data-testid="cohorts-export">
            <DownloadIcon className="size-4" aria-hidden="true" />
            {t('export')}
          </button>
        </div>
      }
    >
      {!valid ? (
        <p className="text-error text-sm">{t('badRange')}</p>
      ) : query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : !report ? (
        <div className="skeleton h-64 rounded-box" role="status" aria-label={t('loading')} />
      ) : (
        <div className={`space-y-3 transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`} data-testid="cohorts-ready" data-group={report.group}>
          <CohortTiles report={report} />
          <CohortTable report={report} />
          <p className="text-base-content/70 text-xs" data-testid="cohorts-basis">
            {t(report.paybackBasis === 'gross_profit' ? 'basis.grossProfit' : 'basis.revenue')} {t('notes', { window: report.window })}
            {report.attributionComplete ? '' : ` ${t('incomplete')}`}
          </p>
        </div>
      )}
    </SectionCard>
  );
}

function CohortTiles({ report }: { report: AcquisitionCohortsOutput }) {
  const { t } = useTranslation('cohorts');
  const format = useFigureFormat();
  const tiles = [
    { key: 'customers', label: t('columns.customers'), value: format.integer(report.total.customers) },
    { key: 'cac', label: t('columns.cac'), value: format.money(report.total.cacMinor, report.currency) },
    { key: 'ltv90', label: t('columns.ltv', { days: 90 }), value: format.money(report.total.ltvMinor[90], report.currency) },
    { key: 'repeat', label: t('columns.repeat', { days: 90 }), value: format.percent(report.total.repeatRate[90]) },
  ];
  return (
    <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
      {tiles.map((tile) => (
        <div key={tile.key} className="rounded-box border-base-content/10 bg-base-200/40 border p-3" data-testid={`cohorts-tile-${tile.key}`}>
          <div className="text-base-content/70 text-xs">{tile.label}</div>
          <div className="text-lg font-semibold tabular-nums">{tile.value}</div>
        </div>
      ))}
    </div>
  );
}


function FigureCells({ row, currency, format }: { row: Figures; currency: string; format: FigureFormat }) {
  const { t } = useTranslation('cohorts');
  const payback = row.paybackDays !== null ? t('payback.days', { days: row.paybackDays }) : row.paybackBeyondYear ? t('payback.beyondYear') : '—';
  return (
    <>
      <td className="text-right tabular-nums">{format.integer(row.customers)}</td>
      <td className="text-right tabular-nums">{format.money(row.cacMinor, currency)}</td>
      {COHORT_HORIZONS.map((h) => (
        <td key={h} className="text-right tabular-nums">{format.money(row.ltvMinor[h], currency)}</td>
      ))}
      <td className="text-right tabular-nums">{format.percent(row.repeatRate[90])}</td>
      <td className="text-right tabular-nums">{payback}</td>
    </>
  );
}

function CohortTable({ report }: { report: AcquisitionCohortsOutput }) {
  const { t } = useTranslation('cohorts');
  const format = useFigureFormat();
  const channelName = useChannelName();
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string) => setOpen((previous) => {
    const next = new Set(previous);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    return next;
  });
  if (report.sources.length === 0) return <p className="text-base-content/70 py-6 text-center text-sm" data-testid="cohorts-empty">{t('empty')}</p>;
  return (
    <div className="overflow-x-auto">
      <table className="table-sm table" data-testid="cohorts-table">
        <thead>
          <tr>
            <th rowSpan={2} className={PINNED}>{t(`group.${report.group}`)}</th>
            <th rowSpan={2} className="text-right">{t('columns.customers')}</th>
            <th rowSpan={2} className="text-right">{t('columns.cac')}</th>
            <th colSpan={4} className="border-base-content/10 border-b text-center">{t('columns.ltvGroup')}</th>
            <th rowSpan={2} className="text-right">{t('columns.repeat', { days: 90 })}</th>
            <th rowSpan={2} className="text-right">{t('columns.payback')}</th>
          </tr>
          <tr>
            {COHORT_HORIZONS.map((h) => (
              <th key={h} className="text-right">{t('columns.days', { days: h })}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.sources.map((source) => {
            const key = `${source.channel}\u0000${source.campaign}`;
            const expanded = open.has(key);
            const name = report.group === 'campaign' ? `${source.campaign || t('noCampaign')} · ${channelName(source.channel)}` : channelName(source.channel);
            return (
              <Fragment key={key}>
                <tr data-testid="cohorts-row" data-channel={source.channel} data-campaign={source.campaign}>
                  <th className={`${PINNED} font-medium`}>
                    <button type="button" className="flex items-center gap-1 text-left" aria-expanded={expanded} onClick={() => toggle(key)}>
                      <ChevronRightIcon className={`size-4 shrink-0 transition-transform ${expanded ? 'rotate-90' : ''}`} aria-hidden="true" />
                      <span className="max-w-56 truncate">{name}</span>
                    </button>
                  </th>
                  <FigureCells row={source} currency={report.currency} format={format} />
                </tr>
                {expanded &&
                  source.months.map((month) => (
                    <tr key={month.month} className="text-base-content/80 bg-base-200" data-testid="cohorts-month">
                      <th className="bg-base-200 sticky left-0 z-10 pl-9 font-normal">{format.month(`${month.month}-01`)}</th>
                      <FigureCells row={month} currency={report.currency} format={format} />
                    </tr>
                  ))}
              </Fragment>
            );
          })}
        </tbody>
        <tfoot>
          <tr data-testid="cohorts-total">
            <th className={PINNED}>{t('total')}</th>
            <FigureCells row={report.total} currency={report.currency} format={format} />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
