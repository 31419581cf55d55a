import { DownloadIcon, TriangleAlertIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { AttributionReportOutput } from '../../../shared/attribution.ts';
import { SectionCard } from '../../components/section-card.tsx';
import { useChannelName } from '../../components/kpi-card.tsx';
import { formatChange, useFigureFormat } from '../../lib/figure-format.ts';
import { useSearchParam } from '../../lib/use-search-param.ts';
import { campaignRowsOf, channelRowsOf, creditsCsv, overClaimPercent, rowsTotals, type CreditTotals } from './touchpoints-figures.ts';
import { downloadFile } from '../../lib/download-file.ts';

type Period = AttributionReportOutput['current'];
type Row = Period['channels'][number] | Period['campaigns'][number];

const LEVELS = ['channel', 'campaign'] as const;
type Level = (typeof LEVELS)[number];
const FIGURE_KEYS = ['spend', 'orders', 'revenue', 'roas', 'cac', 'platformConversions', 'platformRevenue'] as const;
type FigureKey = (typeof FIGURE_KEYS)[number];

/** Credits per channel (or campaign) under the model, beside spend and what the platforms say about themselves; CSV export. */
export function CreditsTable({ data, channel }: { data: AttributionReportOutput; channel: string }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const channelName = useChannelName();
  const [level, setLevel] = useSearchParam<Level>('level', LEVELS, 'channel');
  const rows: Row[] = [...(level === 'channel' ? channelRowsOf(data.current, channel) : campaignRowsOf(data.current, channel))].sort((a, b) => b.revenueMinor - a.revenueMinor || b.spendMinor - a.spendMinor);
  const totals = rowsTotals(rows);
  const modelName = t(`models.${data.model}.name`);

  const figure = (key: FigureKey, row: Row | CreditTotals): string => {
    switch (key) {
      case 'spend':
        return format.money(row.spendMinor, data.currency);
      case 'orders':
        return format.decimal(row.orders);
      case 'revenue':
        return format.money(row.revenueMinor, data.currency);
      case 'roas':
        return format.multiple(row.roas);
      case 'cac':
        return format.money(row.cac, data.currency);
      case 'platformConversions':
        return format.decimal(row.platformConversions);
      case 'platformRevenue':
        return format.money(row.platformReportedRevenueMinor, data.currency);
    }
  };

  const download = () => {
    const columns = {
      channel: t('table.columns.channel'),
      campaign: t('table.columns.campaign'),
      spend: t('table.columns.spend'),
      orders: t('table.columns.orders'),
      revenue: t('table.columns.revenue'),
      roas: t('table.columns.roas'),
      cac: t('table.columns.cac'),
      platformConversions: t('table.columns.platformConversions'),
      platformRevenue: t('table.columns.platformRevenue'),
      total: t('table.total'),
    };
    downloadFile(`touchpoints-${data.model}-${data.window}d-${level}-${data.current.from}-${data.current.to}.csv`, ['\ufeff', creditsCsv(rows, columns, data.currency, channelName)], 'text/csv;charset=utf-8');
  };

  return (
    <SectionCard
      titleId="credits-title"
      title={t('table.title', { model: modelName })}
      description={t('table.description', { window: data.window })}
      testId="credits-card"
      actions={
        <div className="flex flex-wrap gap-2">
          <div role="group" aria-label={t('table.level')} className="join">
            {LEVELS.map((option) => (
              <button key={option} type="button" aria-pressed={level === option} className={`btn btn-sm join-item ${level === option ? 'btn-primary' : 'btn-ghost border-base-content/15 bg-base-100'}`} onClick={() => setLevel(option)}>
                {t(`table.levels.${option}`)}
              </button>
            ))}
          </div>
          <button type="button" className="btn btn-sm btn-outline gap-2" onClick={download} data-testid="credits-export" disabled={rows.length === 0}>
            <DownloadIcon className="size-4" aria-hidden="true" />
            {t('table.export')}
          </button>
        </div>
      }
    >
      <div className="-mx-4 overflow-x-auto sm:-mx-6">
        <table className="table table-sm [&_td]:px-2 [&_th]:px-2 [&_tr>*:first-child]:pl-4 [&_tr>*:last-child]:pr-4 sm:[&_tr>*:first-child]:pl-6 sm:[&_tr>*:last-child]:pr-6" data-testid="credits-table" data-level={level}>
          <thead>
            <tr>
              <th scope="col" className="bg-base-100 sticky left-0 z-10 min-w-36 align-bottom">
                {t(level === 'channel' ? 'table.columns.channel' : 'table.columns.campaign')}
              </th>
              {FIGURE_KEYS.map((key) => (
                <th key={key} scope="col" className={`text-right align-bottom leading-tight whitespace-normal ${key.startsWith('platform') ? 'bg-base-200/50' : ''}`}>
                  {t(`table.columns.${key}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const overClaim = overClaimPercent(row.platformReportedRevenueMinor, row.revenueMinor);
              return (
                <tr key={'campaign' in row ? `${row.channel}:${row.campaign}` : row.channel} className="hover:bg-base-200/50" data-testid="credits-row" data-channel={row.channel} data-orders={row.orders} data-revenue={row.revenueMinor}>
                  <th scope="row" className="bg-base-100 sticky left-0 z-10 max-w-56 font-normal">
                    {'campaign' in row ? (
                      <>
                        <span className="block truncate font-medium" title={row.campaign || t('table.noCampaign')}>
                          {row.campaign || t('table.noCampaign')}
                        </span>
                        <span className="text-base-content/60 block truncate text-xs">{channelName(row.channel)}</span>
                      </>
                    ) : (
                      <span className="block truncate font-medium">{channelName(row.channel)}</span>
                    )}
                    {row.ownSourceOrders > 0 && (
                      <span className="text-base-content/60 block text-xs" data-testid="own-source-part">
                        {t('table.ownSourcePart', { orders: format.decimal(row.ownSourceOrders) })}
                      </span>
                    )}
                  </th>
                  {FIGURE_KEYS.map((key) => (
                    <td key={key} className={`text-right whitespace-nowrap tabular-nums ${key.startsWith('platform') ? 'bg-base-200/50' : ''}`} data-key={key}>
                      {figure(key, row)}
                      {key === 'platformRevenue' && overClaim !== null && (
                        <span className="text-warning ml-1 inline-flex items-center gap-0.5 text-xs font-semibold" title={t('table.overClaimHint')} data-testid="over-claim">
                          <TriangleAlertIcon className="size-3" aria-hidden="true" />
                          {Number.isFinite(overClaim) ? formatChange(overClaim, format.locale, 0) : t('table.overClaimAll')}
                        </span>
                      )}
                    </td>
                  ))}
                </tr>
              );
            })}
            {rows.length === 0 && (
              <tr>
                <td colSpan={FIGURE_KEYS.length + 1} className="text-base-content/70 py-8 text-center">
                  {t('table.empty')}
                </td>
              </tr>
            )}
          </tbody>
          <tfoot>
            <tr className="text-base-content border-base-content/20 border-t-2" data-testid="credits-totals" data-orders={totals.orders} data-revenue={totals.revenueMinor}>
              <th scope="row" className="bg-base-100 sticky left-0 z-10">
                {t('table.total')}
              </th>
              {FIGURE_KEYS.map((key) => (
                <td key={key} className={`text-right font-semibold whitespace-nowrap tabular-nums ${key.startsWith('platform') ? 'bg-base-200/50' : ''}`} data-key={key}>
                  {figure(key, totals)}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
      <p className="text-base-content/65 text-xs">{t('table.platformNote')}</p>
    </SectionCard>
  );
}
