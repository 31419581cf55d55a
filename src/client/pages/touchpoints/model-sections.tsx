import type { ApexOptions } from 'apexcharts';
import { ArrowRightIcon } from 'lucide-react';
import { Fragment, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ATTRIBUTION_MODELS, type AttributionModel, type AttributionWindow } from '../../../shared/attribution.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError } from '../../components/data-page.tsx';
import { useChannelName } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';

export interface RangeInput {
  from: string;
  to: string;
  model: AttributionModel;
  window: AttributionWindow;
}

const MODEL_COLOURS: Record<AttributionModel, string> = {
  first_click: '#4285f4',
  last_click: '#f97316',
  linear: '#22c55e',
  time_decay: '#8b5cf6',
  position_based: '#ec4899',
};

function SectionSkeleton({ label, height = 'h-72' }: { label: string; height?: string }) {
  return <div className={`skeleton rounded-box ${height}`} role="status" aria-label={label} />;
}

/** Each channel's credited revenue under the five models: where the models disagree is where the choice matters. */
export function ModelsSideBySide({ input, current }: { input: RangeInput; current: AttributionModel }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const channelName = useChannelName();
  const query = trpc.attribution.modelsSideBySide.useQuery({ from: input.from, to: input.to, window: input.window }, { placeholderData: (previous) => previous });
  const channels = useMemo(() => [...(query.data?.channels ?? [])].sort((a, b) => (b.models[current]?.revenueMinor ?? 0) - (a.models[current]?.revenueMinor ?? 0)), [query.data, current]);
  const currency = query.data?.currency ?? 'USD';
  const options = useMemo<ApexOptions>(
    () => ({
      xaxis: { categories: channels.map((row) => channelName(row.channel)), labels: { formatter: (value: string) => format.compactMoney(Number(value) * 100, currency) } },
      // Horizontal bars: the y-axis names the channels (the wrapper's default formats numbers).
      yaxis: { labels: { formatter: (value: number | string) => String(value), maxWidth: 140 } },
      plotOptions: { bar: { horizontal: true, barHeight: '80%', borderRadius: 2 } },
      grid: { padding: { right: 24 } },
      colors: ATTRIBUTION_MODELS.map((model) => MODEL_COLOURS[model]),
      legend: { position: 'bottom' },
      tooltip: { shared: true, intersect: false, y: { formatter: (value: number) => format.money(value * 100, currency) } },
    }),
    [channels, channelName, format, currency],
  );
  const series = ATTRIBUTION_MODELS.map((model) => ({ name: t(`models.${model}.name`), data: channels.map((row) => (row.models[model]?.revenueMinor ?? 0) / 100) }));

  return (
    <SectionCard titleId="models-title" title={t('models.title')} description={t('models.description')} testId="models-card">
      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : query.isPending ? (
        <SectionSkeleton label={t('loading')} />
      ) : channels.length === 0 ? (
        <p className="text-base-content/70 py-10 text-center text-sm">{t('noOrders')}</p>
      ) : (
        <>
          <Chart type="bar" series={series} options={options} height={Math.max(260, channels.length * 70)} ariaLabel={t('models.aria')} categoryHeading={t('table.columns.channel')} testId="models-chart" />
          <details className="collapse-arrow border-base-content/10 collapse border">
            <summary className="collapse-title min-h-0 py-2 text-sm font-medium">{t('models.showTable')}</summary>
            <div className="collapse-content overflow-x-auto px-0">
              <table className="table table-xs" data-testid="models-table">
                <thead>
                  <tr>
                    <th scope="col">{t('table.columns.channel')}</th>
                    {ATTRIBUTION_MODELS.map((model) => (
                      <th key={model} scope="col" className="text-right">
                        {t(`models.${model}.name`)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {channels.map((row) => (
                    <tr key={row.channel} data-channel={row.channel}>
                      <th scope="row" className="font-medium">
                        {channelName(row.channel)}
                      </th>
                      {ATTRIBUTION_MODELS.map((model) => (
                        <td key={model} className={`text-right whitespace-nowrap tabular-nums ${model === current ? 'font-semibold' : ''}`}>
                          {format.money(row.models[model]?.revenueMinor ?? 0, currency)}
                          <span className="text-base-content/60 block text-[0.7rem]">{t('models.ordersCell', { orders: format.decimal(row.models[model]?.orders ?? 0) })}</span>
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </SectionCard>
  );
}

/** The most frequent sequences of channels before an order ("Meta Ads → Google Ads → Direct"). */
export function TopPaths({ input }: { input: RangeInput }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const channelName = useChannelName();
  const query = trpc.attribution.topPaths.useQuery({ from: input.from, to: input.to, window: input.window }, { placeholderData: (previous) => previous });
  const top = query.data?.paths[0]?.orders ?? 0;
  return (
    <SectionCard titleId="paths-title" title={t('paths.title')} description={t('paths.description')} testId="paths-card">
      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : query.isPending ? (
        <SectionSkeleton label={t('loading')} />
      ) : query.data.paths.length === 0 ? (
        <p className="text-base-content/70 py-10 text-center text-sm">{t('noOrders')}</p>
      ) : (
        <ol className="divide-base-content/10 -my-1 max-h-[30rem] divide-y overflow-y-auto" data-testid="paths-list">
          {query.data.paths.map((entry) => (
            <li key={`${entry.ownSource ? 'own' : 'tp'}:${entry.path.join('>')}`} className="py-2.5" data-testid="path-row" data-path={entry.path.join('>')}>
              <div className="flex items-start justify-between gap-3">
                <p className="flex min-w-0 flex-wrap items-center gap-1 text-sm font-medium" aria-label={entry.path.map(channelName).join(' → ')}>
                  {entry.path.map((channel, index) => (
                    <Fragment key={index}>
                      {index > 0 && <ArrowRightIcon className="text-base-content/40 size-3.5 shrink-0" aria-hidden="true" />}
                      <span className="badge badge-sm badge-ghost border-base-content/15 whitespace-nowrap">{channelName(channel)}</span>
                    </Fragment>
                  ))}
                  {entry.ownSource && <span className="text-base-content/60 text-xs font-normal">{t('paths.ownSource')}</span>}
                </p>
                <p className="shrink-0 text-right text-sm tabular-nums">
                  <span className="font-semibold">{t('paths.orders', { count: entry.orders, formatted: format.integer(entry.orders) })}</span>
                  <span className="text-base-content/65 block text-xs">{format.money(entry.revenueMinor, query.data.currency)}</span>
                </p>
              </div>
              <div className="bg-base-200 mt-1.5 h-1 overflow-hidden rounded-full" aria-hidden="true">
                <div className="bg-primary h-full rounded-full" style={{ width: `${top > 0 ? (entry.orders / top) * 100 : 0}%` }} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </SectionCard>
  );
}

/** One distribution of orders (a bar per bucket), in a card of its own. */
function DistributionCard({ kind, buckets, colour, query }: { kind: 'time' | 'count'; buckets: { label: string; orders: number }[] | undefined; colour?: string; query: { error: unknown; isError: boolean; refetch: () => unknown } }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const options = useMemo<ApexOptions>(
    () => ({
      xaxis: { categories: (buckets ?? []).map((bucket) => bucket.label) },
      yaxis: { labels: { formatter: (value: number) => format.integer(value) } },
      plotOptions: { bar: { columnWidth: '60%', borderRadius: 2 } },
      ...(colour ? { colors: [colour] } : {}),
      tooltip: { y: { formatter: (value: number) => t('paths.orders', { count: value, formatted: format.integer(value) }) } },
    }),
    [buckets, colour, t, format],
  );
  return (
    <SectionCard titleId={`${kind}-title`} title={t(`distributions.${kind}Title`)} description={t(`distributions.${kind}Description`)} testId={`${kind}-card`}>
      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : !buckets ? (
        <SectionSkeleton label={t('loading')} height="h-60" />
      ) : (
        <Chart type="bar" series={[{ name: t('distributions.orders'), data: buckets.map((bucket) => bucket.orders) }]} options={options} height={240} ariaLabel={t(`distributions.${kind}Title`)} categoryHeading={t(`distributions.${kind}Heading`)} testId={`${kind}-chart`} />
      )}
    </SectionCard>
  );
}

/** Days from the first touchpoint to the order, and touchpoints per order. */
export function Distributions({ input }: { input: RangeInput }) {
  const { t } = useTranslation('touchpoints');
  const query = trpc.attribution.distributions.useQuery({ from: input.from, to: input.to, window: input.window }, { placeholderData: (previous) => previous });
  const time = useMemo(() => query.data?.timeToConversion.map((entry) => ({ label: t('distributions.days', { bucket: entry.bucket }), orders: entry.orders })), [query.data, t]);
  const count = useMemo(() => query.data?.touchpointsPerOrder.map((entry) => ({ label: entry.bucket === '0' ? t('distributions.ownSource') : entry.bucket, orders: entry.orders })), [query.data, t]);
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <DistributionCard kind="time" buckets={time} query={query} />
      <DistributionCard kind="count" buckets={count} colour="#8b5cf6" query={query} />
    </div>
  );
}
