import { ChevronLeftIcon, ChevronRightIcon, MousePointerClickIcon, SearchIcon, ShoppingBagIcon, XIcon } from 'lucide-react';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { ATTRIBUTION_MODELS, type AttributionWindow, type journeyOutput } from '../../../shared/attribution.ts';
import { DataError } from '../../components/data-page.tsx';
import { useChannelName } from '../../components/kpi-card.tsx';
import { Modal } from '../../components/modal.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { useStoreDateTime } from '../../lib/store-time.ts';
import { trpc } from '../../lib/trpc.ts';
import { gapBefore } from './touchpoints-figures.ts';

const PAGE_SIZE = 25;

/** An order whose journey is shown, with the number the list shows it by. */
export interface OpenedOrder {
  id: number;
  number: string;
}

/** The range's orders, newest first, each opening its journey. */
export function OrdersWithJourneys({ from, to, onOpen }: { from: string; to: string; onOpen: (order: OpenedOrder) => void }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const channelName = useChannelName();
  const dateTime = useStoreDateTime();
  const searchId = useId();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const query = trpc.orders.list.useQuery(
    { from, to, page, pageSize: PAGE_SIZE, sort: 'placedAt', direction: 'desc', search: search.trim() || undefined },
    { placeholderData: (previous) => previous },
  );
  const pages = query.data ? Math.max(1, Math.ceil(query.data.total / PAGE_SIZE)) : 1;

  return (
    <SectionCard
      titleId="journeys-title"
      title={t('orders.title')}
      description={t('orders.description')}
      testId="journeys-card"
      actions={
        <label htmlFor={searchId} className="input input-sm w-full sm:w-64">
          <SearchIcon className="size-4 opacity-60" aria-hidden="true" />
          <input
            id={searchId}
            type="search"
            placeholder={t('orders.search')}
            aria-label={t('orders.search')}
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
              setPage(1);
            }}
          />
        </label>
      }
    >
      {query.isError ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : query.isPending ? (
        <div className="skeleton h-60 rounded-box" role="status" aria-label={t('loading')} />
      ) : (
        <>
          <ul className={`divide-base-content/10 border-base-content/10 -mx-4 max-h-[34rem] divide-y overflow-y-auto border-y sm:-mx-6 ${query.isPlaceholderData ? 'opacity-60' : ''}`} data-testid="journey-orders">
            {query.data.rows.map((order) => (
              <li key={order.id}>
                <button
                  type="button"
                  className="hover:bg-base-200/60 flex w-full items-center gap-3 px-4 py-2.5 text-left sm:px-6"
                  onClick={() => onOpen({ id: order.id, number: order.orderNumber ?? order.externalId })}
                  data-testid="journey-order"
                  data-order-id={order.id}
                  data-external-id={order.externalId}
                >
                  <span className="min-w-0 flex-1">
                    <span className="block truncate text-sm font-medium" data-testid="journey-order-number">{t('orders.number', { number: order.orderNumber ?? order.externalId })}</span>
                    <span className="text-base-content/65 block truncate text-xs">{dateTime(order.placedAt)}</span>
                  </span>
                  <span className="badge badge-sm badge-ghost border-base-content/15 hidden whitespace-nowrap sm:inline-flex">{channelName(order.channel)}</span>
                  <span className="w-24 shrink-0 text-right text-sm tabular-nums">{format.money(order.displayAmounts.netSales, query.data.currency)}</span>
                  <span className="text-primary inline-flex shrink-0 items-center gap-1 text-sm font-medium">
                    <span className="hidden sm:inline">{t('orders.open')}</span>
                    <ChevronRightIcon className="size-4" aria-hidden="true" />
                  </span>
                </button>
              </li>
            ))}
            {query.data.rows.length === 0 && <li className="text-base-content/70 px-6 py-8 text-center text-sm">{t('orders.none')}</li>}
          </ul>
          {pages > 1 && (
            <nav className="flex items-center justify-between gap-3 text-sm" aria-label={t('orders.pages')}>
              <button type="button" className="btn btn-sm btn-ghost gap-1" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                <ChevronLeftIcon className="size-4" aria-hidden="true" />
                {t('orders.previous')}
              </button>
              <span className="text-base-content/70 tabular-nums">{t('orders.page', { page, pages: query.data.totalIsExact ? format.integer(pages) : `${format.integer(pages)}+` })}</span>
              <button type="button" className="btn btn-sm btn-ghost gap-1" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                {t('orders.next')}
                <ChevronRightIcon className="size-4" aria-hidden="true" />
              </button>
            </nav>
          )}
        </>
      )}
    </SectionCard>
  );
}

/** One order's visits on a timeline, in a panel on the right, with the credit each model gives them. */
export function JourneyDrawer({ order, window, onClose }: { order: OpenedOrder | null; window: AttributionWindow; onClose: () => void }) {
  const { t } = useTranslation('touchpoints');
  const journey = trpc.attribution.journey.useQuery({ orderId: order?.id ?? 0, window }, { enabled: order !== null });
  return (
    <Modal open={order !== null} titleId="journey-title" onClose={onClose} variant="drawer" testId="journey-drawer">
      <header className="border-base-content/10 flex items-start justify-between gap-3 border-b px-5 py-4">
        <div className="min-w-0">
          <h2 id="journey-title" className="truncate text-lg font-semibold">
            {journey.data && order ? t('journey.title', { number: order.number }) : t('journey.loading')}
          </h2>
          {journey.data && <p className="text-base-content/70 mt-1 text-sm">{t('journey.subtitle', { count: journey.data.visits.length, window: journey.data.window })}</p>}
        </div>
        <button type="button" className="btn btn-ghost btn-sm btn-square" onClick={onClose} aria-label={t('journey.close')}>
          <XIcon aria-hidden="true" />
        </button>
      </header>
      <div className="flex-1 space-y-6 overflow-y-auto px-5 py-5">
        {journey.isError ? (
          <DataError error={journey.error} onRetry={() => void journey.refetch()} />
        ) : !journey.data ? (
          <div className="space-y-3" role="status" aria-label={t('journey.loading')}>
            <div className="skeleton h-40 rounded-box" />
            <div className="skeleton h-32 rounded-box" />
          </div>
        ) : (
          <JourneyBody data={journey.data} />
        )}
      </div>
    </Modal>
  );
}

type Journey = z.infer<typeof journeyOutput>;

function JourneyBody({ data }: { data: Journey }) {
  const { t } = useTranslation('touchpoints');
  const format = useFigureFormat();
  const channelName = useChannelName();
  const dateTime = useStoreDateTime();
  return (
    <>
      <section aria-labelledby="journey-visits">
        <h3 id="journey-visits" className="text-base-content/70 mb-3 text-xs font-semibold tracking-wide uppercase">
          {t('journey.visits')}
        </h3>
        {data.visits.length === 0 && (
          <p className="alert alert-soft mb-3 text-sm" data-testid="journey-no-visits">
            {t('journey.noVisits', { channel: channelName(data.ownChannel) })}
          </p>
        )}
        <ul className="timeline timeline-vertical timeline-compact timeline-snap-icon -ml-2" data-testid="journey-timeline">
          {data.visits.map((visit, index) => {
            const gap = gapBefore(visit.at, data.placedAt);
            return (
              <li key={`${visit.at}:${index}`} data-testid="journey-visit" data-channel={visit.channel} data-in-window={visit.inWindow}>
                {index > 0 && <hr className="bg-base-content/15" />}
                <div className="timeline-middle">
                  <span className={`grid size-7 place-items-center rounded-full ${visit.inWindow ? 'bg-primary/15 text-primary' : 'bg-base-200 text-base-content/50'}`}>
                    <MousePointerClickIcon className="size-4" aria-hidden="true" />
                  </span>
                </div>
                <div className={`timeline-end mb-5 ml-1 min-w-0 ${visit.inWindow ? '' : 'opacity-60'}`}>
                  <p className="flex flex-wrap items-center gap-2">
                    <span className="font-semibold">{channelName(visit.channel)}</span>
                    {visit.campaign && <span className="badge badge-sm badge-ghost border-base-content/15 max-w-48 truncate">{visit.campaign}</span>}
                    {!visit.inWindow && <span className="badge badge-sm badge-warning badge-soft">{t('journey.outsideWindow')}</span>}
                  </p>
                  <p className="text-base-content/70 text-xs">
                    <time dateTime={visit.at}>{dateTime(visit.at)}</time> · {t(`journey.gap.${gap.unit}`, { count: gap.count })}
                  </p>
                  {(visit.referrerHost || visit.landingUrl) && (
                    <p className="text-base-content/60 mt-0.5 line-clamp-2 text-xs break-all" title={visit.landingUrl ?? undefined}>
                      {visit.referrerHost && t('journey.from', { host: visit.referrerHost })}
                      {visit.referrerHost && visit.landingUrl && ' · '}
                      {visit.landingUrl && t('journey.landing', { url: visit.landingUrl })}
                    </p>
                  )}
                </div>
                <hr className="bg-base-content/15" />
              </li>
            );
          })}
          <li data-testid="journey-order-placed">
            {data.visits.length > 0 && <hr className="bg-base-content/15" />}
            <div className="timeline-middle">
              <span className="bg-success/15 text-success grid size-7 place-items-center rounded-full">
                <ShoppingBagIcon className="size-4" aria-hidden="true" />
              </span>
            </div>
            <div className="timeline-end ml-1 min-w-0">
              <p className="font-semibold">{t('journey.placed', { amount: format.money(data.revenueMinor, data.currency) })}</p>
              <p className="text-base-content/70 text-xs">
                <time dateTime={data.placedAt}>{dateTime(data.placedAt)}</time>
              </p>
            </div>
          </li>
        </ul>
      </section>

      <section aria-labelledby="journey-credits">
        <h3 id="journey-credits" className="text-base-content/70 mb-2 text-xs font-semibold tracking-wide uppercase">
          {t('journey.credits')}
        </h3>
        <ul className="divide-base-content/10 border-base-content/10 rounded-box divide-y border" data-testid="journey-credits">
          {ATTRIBUTION_MODELS.map((model) => (
            <li key={model} className="px-3 py-2" data-model={model}>
              <p className="text-sm font-semibold">{t(`models.${model}.name`)}</p>
              <ul className="mt-0.5 space-y-0.5">
                {(data.credits[model] ?? []).map((credit) => (
                  <li key={`${credit.channel}:${credit.campaign}`} className="flex justify-between gap-3 text-sm" data-testid="journey-credit" data-channel={credit.channel} data-share={credit.share}>
                    <span className="min-w-0 truncate" title={credit.campaign ? `${channelName(credit.channel)} · ${credit.campaign}` : undefined}>
                      {channelName(credit.channel)}
                      {credit.campaign && <span className="text-base-content/60"> · {credit.campaign}</span>}
                    </span>
                    <span className="shrink-0 tabular-nums">
                      <span className="font-medium">{format.percent(credit.share, 0)}</span> · {format.money(credit.revenueMinor, data.currency)}
                    </span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
