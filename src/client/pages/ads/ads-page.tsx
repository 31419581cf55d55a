import { CrosshairIcon, MegaphoneIcon, MusicIcon, SearchIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { AdPlatform, CampaignsOutput } from '../../../shared/marketing.ts';
import { DataError, DataLoading, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { useDateRange } from '../../components/date-range-picker.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { KpiCard } from '../../components/kpi-card.tsx';
import { trpc } from '../../lib/trpc.ts';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { AdsTrendChart } from './ads-trend-chart.tsx';
import { CampaignsTable } from './campaigns-table.tsx';

const PLATFORM_ICONS = { googleads: SearchIcon, metaads: MegaphoneIcon, bingads: CrosshairIcon, tiktokads: MusicIcon } as const;

/** The campaigns screen of one advertising platform (/google-ads, /meta-ads, /bing-ads). */
export function AdsPage({ platform }: { platform: AdPlatform }) {
  const { t } = useTranslation('marketing');
  return (
    <DataPage title={t(`platforms.${platform}`)} description={t('page.description', { platform: t(`platforms.${platform}`) })}>
      <StoreDataGate>
        <AdsContent platform={platform} />
      </StoreDataGate>
    </DataPage>
  );
}

function AdsContent({ platform }: { platform: AdPlatform }) {
  const { t } = useTranslation('marketing');
  const range = useDateRange();
  const status = trpc.commerce.dataStatus.useQuery();
  const query = trpc.marketing.campaigns.useQuery({ platform, from: range.from, to: range.to, compare: range.compare }, { placeholderData: (previous) => (previous?.platform === platform ? previous : undefined) });
  const platformName = t(`platforms.${platform}`);

  if (query.isError) return <DataError error={query.error} onRetry={() => void query.refetch()} />;
  if (query.isPending) return <AdsLoading />;
  const data = query.data;
  const hasActivity = data.campaigns.length > 0 || data.totals.orders > 0;
  if (!hasActivity) {
    // Never reported anything (not connected) versus quiet in this range.
    const everReported = status.data?.adPlatforms.includes(platform) ?? false;
    return (
      <EmptyState
        icon={PLATFORM_ICONS[platform]}
        title={everReported ? t('empty.rangeTitle', { platform: platformName }) : t('empty.title', { platform: platformName })}
        body={everReported ? t('empty.rangeBody', { platform: platformName }) : t('empty.body', { platform: platformName })}
        action={{ href: '/integrations', label: t('empty.action') }}
      />
    );
  }
  return (
    <div className={`space-y-6 transition-opacity ${query.isPlaceholderData ? 'opacity-60' : ''}`} data-testid="ads-content">
      <AdsKpiStrip data={data} />
      <AdsTrendChart data={data} />
      <CampaignsTable data={data} />
    </div>
  );
}

function AdsLoading() {
  const { t } = useTranslation('marketing');
  return <DataLoading label={t('loading')} cards={8} gridClassName="grid-cols-2 md:grid-cols-4" chartClassName="h-80" />;
}

function AdsKpiStrip({ data }: { data: CampaignsOutput }) {
  const { t } = useTranslation('marketing');
  const { t: tData } = useTranslation('data');
  const format = useFigureFormat();
  const { totals, deltas, series, currency } = data;
  const comparisonLabel = data.previousRange ? undefined : tData('kpi.noComparison');
  const percentOf = (key: string) => deltas[key]?.percent ?? null;
  const cards = [
    { key: 'spend', value: format.money(totals.spend, currency), sparkline: series.map((day) => day.spend), lowerIsBetter: true },
    { key: 'impressions', value: format.integer(totals.impressions) },
    { key: 'clicks', value: format.integer(totals.clicks), sparkline: series.map((day) => day.clicks) },
    { key: 'ctr', value: format.percent(totals.ctr, 2) },
    { key: 'cpc', value: format.money(totals.cpc, currency), lowerIsBetter: true },
    { key: 'conversions', value: format.decimal(totals.conversions), sparkline: series.map((day) => day.conversions) },
  ] as const;
  return (
    <section aria-label={t('kpis.label')}>
      <ul className="grid grid-cols-2 gap-3 sm:gap-4 md:grid-cols-4">
        {cards.map((card) => (
          <li key={card.key} className="grid">
            <KpiCard
              label={t(`kpis.${card.key}`)}
              value={card.value}
              delta={percentOf(card.key)}
              lowerIsBetter={'lowerIsBetter' in card ? card.lowerIsBetter : false}
              sparkline={'sparkline' in card ? card.sparkline : undefined}
              comparisonLabel={comparisonLabel}
              testId={`ads-kpi-${card.key}`}
            />
          </li>
        ))}
        <li className="col-span-2 grid">
          <RoasCard data={data} />
        </li>
      </ul>
    </section>
  );
}

/** The platform's own ROAS beside ours (net sales of the orders we attribute to the platform / its spend). */
function RoasCard({ data }: { data: CampaignsOutput }) {
  const { t } = useTranslation('marketing');
  const format = useFigureFormat();
  const platformName = t(`platforms.${data.platform}`);
  const { platformRoas, roas } = data.totals;
  const widest = Math.max(platformRoas ?? 0, roas ?? 0, 0.0001);
  const rows = [
    { key: 'platform', label: t('roas.platform', { platform: platformName }), value: platformRoas, bar: 'bg-info' },
    { key: 'ours', label: t('roas.ours'), value: roas, bar: 'bg-primary' },
  ];
  return (
    <article className="bg-base-100 border-base-content/10 rounded-box flex min-w-0 flex-col border p-4 shadow-xs" data-testid="ads-kpi-roas" aria-label={t('roas.title')}>
      <h3 className="text-base-content/80 text-sm font-semibold">{t('roas.title')}</h3>
      <p className="text-base-content/70 mt-0.5 text-xs">{t('roas.hint', { platform: platformName })}</p>
      <dl className="mt-3 space-y-3">
        {rows.map((row) => (
          <div key={row.key}>
            <div className="flex items-baseline justify-between gap-3">
              <dt className="text-base-content/80 min-w-0 truncate text-sm">{row.label}</dt>
              <dd className="text-xl font-semibold tabular-nums" data-testid={`roas-${row.key}`}>
                {format.multiple(row.value)}
              </dd>
            </div>
            <div className="bg-base-200 mt-1.5 h-1.5 overflow-hidden rounded-full" aria-hidden="true">
              <div className={`${row.bar} h-full rounded-full`} style={{ width: `${Math.min(100, ((row.value ?? 0) / widest) * 100)}%` }} />
            </div>
          </div>
        ))}
      </dl>
    </article>
  );
}
