import { DatabaseIcon, RouteIcon } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ATTRIBUTION_MODELS, ATTRIBUTION_WINDOWS, type AttributionModel, type AttributionReportOutput, type AttributionWindow } from '../../../shared/attribution.ts';
import { DataError, DataLoading, DataPage, StoreDataGate, useViewOnly } from '../../components/data-page.tsx';
import { useComparisonLabel, useDateRange } from '../../components/date-range-picker.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { KpiCard, useChannelName } from '../../components/kpi-card.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';
import { useSearchParam } from '../../lib/use-search-param.ts';
import { AcquisitionCohortsSection } from './acquisition-cohorts.tsx';
import { CreditsTable } from './credits-table.tsx';
import { JourneyDrawer, OrdersWithJourneys, type OpenedOrder } from './journey-drawer.tsx';
import { Distributions, ModelsSideBySide, TopPaths } from './model-sections.tsx';
import { ALL_CHANNELS, percentChange, selectionTotals } from './touchpoints-figures.ts';

const WINDOW_VALUES = ATTRIBUTION_WINDOWS.map(String);

/** /touchpoints: which channels and campaigns get the credit for the orders, under a model and a lookback window. */
export function TouchpointsPage() {
  const { t } = useTranslation('touchpoints');
  return (
    <DataPage title={t('page.title')} description={t('page.description')}>
      <TrackingGate>
        <StoreDataGate>
          <TouchpointsContent />
        </StoreDataGate>
      </TrackingGate>
    </DataPage>
  );
}

/** Without a single tracked event there are no journeys: explain, and lead to /tracking-setup (or to the demo data). */
function TrackingGate({ children }: { children: React.ReactNode }) {
  const { t } = useTranslation('touchpoints');
  const health = trpc.tracking.health.useQuery();
  const status = trpc.commerce.dataStatus.useQuery();
  if (health.isError) return <DataError error={health.error} onRetry={() => void health.refetch()} />;
  if (health.isPending || status.isPending) return <DataLoading label={t('loading')} cards={5} gridClassName="grid-cols-2 sm:grid-cols-3 xl:grid-cols-5" />;
  if (health.data.lastEventAt !== null) return <>{children}</>;
  return (
    <EmptyState
      icon={RouteIcon}
      title={t('empty.title')}
      body={t('empty.body')}
      action={{ href: '/tracking-setup', label: t('empty.action') }}
      actions={status.data?.hasData === false ? <DemoOffer /> : undefined}
    />
  );
}

/** An empty store can try the screen on the demo store's journeys. */
function DemoOffer() {
  const { t } = useTranslation('touchpoints');
  const { t: tData } = useTranslation('data');
  const utils = trpc.useUtils();
  const viewOnly = useViewOnly();
  const load = trpc.demo.load.useMutation({ onSuccess: () => utils.invalidate() });
  if (viewOnly) return null;
  return (
    <div className="mt-4 flex flex-col items-center gap-2">
      <p className="text-base-content/70 text-sm">{t('empty.demoHint')}</p>
      <button type="button" className="btn btn-outline gap-2" onClick={() => load.mutate()} disabled={load.isPending}>
        {load.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : <DatabaseIcon aria-hidden="true" />}
        {load.isPending ? tData('gate.loadingDemo') : tData('gate.loadDemo')}
      </button>
      {load.isError && <p className="text-error text-sm">{load.error.message}</p>}
    </div>
  );
}

function TouchpointsContent() {
  const { t } = useTranslation('touchpoints');
  // While the credits are being computed, the progress is followed (every 3 s); when it ends, the figures are read again.
  const status = trpc.attribution.status.useQuery(undefined, { refetchInterval: (query) => (query.state.data?.recomputing ? 3_000 : false) });
  const utils = trpc.useUtils();
  const recomputing = status.data ? status.data.recomputing !== null : null;
  const wasRecomputing = useRef(recomputing);
  useEffect(() => {
    if (wasRecomputing.current === true && recomputing === false) {
      void Promise.all([utils.attribution.report.invalidate(), utils.attribution.modelsSideBySide.invalidate(), utils.attribution.topPaths.invalidate(), utils.attribution.distributions.invalidate(), utils.attribution.journey.invalidate()]);
    }
    wasRecomputing.current = recomputing;
  }, [recomputing, utils]);
  if (status.isError) return <DataError error={status.error} onRetry={() => void status.refetch()} />;
  if (status.isPending) return <DataLoading label={t('loading')} cards={5} gridClassName="grid-cols-2 sm:grid-cols-3 xl:grid-cols-5" />;
  return <TouchpointsScreen storeWindow={String(status.data.windowDays)} recomputing={status.data.recomputing} />;
}

function TouchpointsScreen({ storeWindow, recomputing }: { storeWindow: string; recomputing: { windowDays: number; done: number; total: number } | null }) {
  const { t } = useTranslation('touchpoints');
  const range = useDateRange();
  const [model, setModel] = useSearchParam<AttributionModel>('model', ATTRIBUTION_MODELS, 'last_click');
  const [windowText, setWindow] = useSearchParam<string>('window', WINDOW_VALUES, WINDOW_VALUES.includes(storeWindow) ? storeWindow : '30');
  const window = Number(windowText) as AttributionWindow;
  const [channel, setChannel] = useSearchParam<string>('channel', CHANNEL_PARAMS, ALL_CHANNELS);
  const [journeyOf, setJourneyOf] = useState<OpenedOrder | null>(null);
  const format = useFigureFormat();
  const input = { from: range.from, to: range.to, model, window };
  const report = trpc.attribution.report.useQuery({ ...input, compare: range.compare }, { placeholderData: (previous) => previous });

  return (
    <div className="space-y-6" data-testid="touchpoints-screen">
      <Pickers model={model} setModel={setModel} windowText={windowText} setWindow={setWindow} storeWindow={storeWindow} channel={channel} setChannel={setChannel} channels={report.data?.current.channels.map((row) => row.channel) ?? []} />
      {recomputing && (
        <p className="alert alert-info alert-soft text-sm" role="status" data-testid="recomputing">
          {t('recomputing', { window: recomputing.windowDays, done: format.integer(recomputing.done), total: format.integer(recomputing.total) })}
        </p>
      )}
      {report.isError ? (
        <DataError error={report.error} onRetry={() => void report.refetch()} />
      ) : report.isPending ? (
        <DataLoading label={t('loading')} cards={5} gridClassName="grid-cols-2 sm:grid-cols-3 xl:grid-cols-5" chartClassName="h-96" />
      ) : (
        <div className={`space-y-6 transition-opacity ${report.isPlaceholderData ? 'opacity-60' : ''}`} data-model={report.data.model} data-window={report.data.window} data-testid="touchpoints-report" aria-busy={report.isFetching}>
          <KpiTiles data={report.data} channel={channel} />
          <CreditsTable data={report.data} channel={channel} />
        </div>
      )}
      <div className="grid gap-6 xl:grid-cols-2">
        <ModelsSideBySide input={input} current={model} />
        <TopPaths input={input} />
      </div>
      <Distributions input={input} />
      <OrdersWithJourneys from={range.from} to={range.to} onOpen={setJourneyOf} />
      <JourneyDrawer order={journeyOf} window={window} onClose={() => setJourneyOf(null)} />
      <AcquisitionCohortsSection />
    </div>
  );
}

/** Every channel the filter may name (the credits' channels are the classifier's). */
const CHANNEL_PARAMS = [ALL_CHANNELS, 'googleads', 'metaads', 'bingads', 'tiktokads', 'klaviyo', 'omnisend', 'mailchimp', 'email', 'organic_search', 'organic_social', 'referral', 'direct'];

interface PickersProps {
  model: AttributionModel;
  setModel: (model: AttributionModel) => void;
  windowText: string;
  setWindow: (window: string) => void;
  storeWindow: string;
  channel: string;
  setChannel: (channel: string) => void;
  channels: string[];
}

function Pickers({ model, setModel, windowText, setWindow, storeWindow, channel, setChannel, channels }: PickersProps) {
  const { t } = useTranslation('touchpoints');
  const channelName = useChannelName();
  const windowId = useId();
  const channelId = useId();
  const options = [...new Set([...channels, ...(channel === ALL_CHANNELS ? [] : [channel])])];
  return (
    <div className="bg-base-100 border-base-content/10 rounded-box flex flex-col gap-4 border p-4 shadow-xs lg:flex-row lg:items-end lg:justify-between">
      <fieldset className="min-w-0">
        <legend className="text-base-content/70 mb-1.5 text-xs font-semibold tracking-wide uppercase">{t('pickers.model')}</legend>
        <div role="group" aria-label={t('pickers.model')} className="flex flex-wrap gap-1.5" data-testid="model-picker">
          {ATTRIBUTION_MODELS.map((key) => (
            <button
              key={key}
              type="button"
              aria-pressed={model === key}
              title={t(`models.${key}.hint`)}
              className={`btn btn-sm rounded-full ${model === key ? 'btn-primary' : 'btn-ghost border-base-content/15 bg-base-100'}`}
              onClick={() => setModel(key)}
            >
              {t(`models.${key}.name`)}
            </button>
          ))}
        </div>
        <p className="text-base-content/65 mt-1.5 text-xs" data-testid="model-hint">
          {t(`models.${model}.hint`)}
        </p>
      </fieldset>
      <div className="grid grid-cols-2 gap-3 sm:flex">
        <label className="flex min-w-0 flex-col gap-1.5" htmlFor={windowId}>
          <span className="text-base-content/70 text-xs font-semibold tracking-wide uppercase">{t('pickers.window')}</span>
          <select id={windowId} className="select select-sm w-full sm:w-44" value={windowText} onChange={(event) => setWindow(event.target.value)} data-testid="window-picker">
            {WINDOW_VALUES.map((value) => (
              <option key={value} value={value}>
                {value === storeWindow ? t('pickers.windowStore', { count: Number(value) }) : t('pickers.windowDays', { count: Number(value) })}
              </option>
            ))}
          </select>
        </label>
        <label className="flex min-w-0 flex-col gap-1.5" htmlFor={channelId}>
          <span className="text-base-content/70 text-xs font-semibold tracking-wide uppercase">{t('pickers.channel')}</span>
          <select id={channelId} className="select select-sm w-full sm:w-44" value={channel} onChange={(event) => setChannel(event.target.value)} data-testid="channel-filter">
            <option value={ALL_CHANNELS}>{t('pickers.allChannels')}</option>
            {options.map((value) => (
              <option key={value} value={value}>
                {channelName(value)}
              </option>
            ))}
          </select>
        </label>
      </div>
    </div>
  );
}

function KpiTiles({ data, channel }: { data: AttributionReportOutput; channel: string }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const comparisonLabel = useComparisonLabel();
  const current = selectionTotals(data.current, channel);
  const previous = data.previous ? selectionTotals(data.previous, channel) : null;
  const ordersText = (value: number | null | undefined) => (value === null || value === undefined ? null : format.decimal(value));
  const tiles = [
    { key: 'revenue', value: format.money(current.revenueMinor, data.currency), now: current.revenueMinor, before: previous?.revenueMinor, previous: previous && format.money(previous.revenueMinor, data.currency), raw: current.revenueMinor },
    { key: 'orders', value: ordersText(current.orders), now: current.orders, before: previous?.orders, previous: previous && ordersText(previous.orders), raw: current.orders },
    { key: 'spend', value: format.money(current.spendMinor, data.currency), now: current.spendMinor, before: previous?.spendMinor, previous: previous && format.money(previous.spendMinor, data.currency), lowerIsBetter: true, raw: current.spendMinor },
    { key: 'roas', value: format.multiple(current.roas), now: current.roas, before: previous?.roas, previous: previous && format.multiple(previous.roas), raw: current.roas },
    { key: 'cac', value: format.money(current.cac, data.currency), now: current.cac, before: previous?.cac, previous: previous && format.money(previous.cac, data.currency), lowerIsBetter: true, raw: current.cac },
  ] as const;
  return (
    <section aria-label={t('kpis.label')}>
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 sm:gap-4 xl:grid-cols-5">
        {tiles.map((tile) => (
          <li key={tile.key} className={`grid ${tile.key === 'revenue' ? 'col-span-2 sm:col-span-1' : ''}`} data-testid={`tp-kpi-${tile.key}`} data-value={tile.raw ?? ''}>
            <KpiCard
              label={t(`kpis.${tile.key}`)}
              value={tile.value}
              delta={data.previous ? percentChange(tile.now, tile.before) : null}
              lowerIsBetter={'lowerIsBetter' in tile}
              hint={t(`kpis.${tile.key}Hint`, { model: t(`models.${data.model}.name`) })}
              comparisonLabel={data.previous ? comparisonLabel : t('kpis.noComparison')}
              previous={tile.previous ? t('kpis.previous', { value: tile.previous }) : undefined}
              testId={`tp-kpi-card-${tile.key}`}
            />
          </li>
        ))}
      </ul>
      {channel === ALL_CHANNELS && data.current.total.ownSourceOrders > 0 && (
        <p className="text-base-content/70 mt-2 text-xs" data-testid="own-source-note">
          {t('kpis.ownSource', { orders: format.decimal(data.current.total.ownSourceOrders), revenue: format.money(data.current.total.ownSourceRevenueMinor, data.currency) })}
        </p>
      )}
    </section>
  );
}
