import { DownloadIcon, HistoryIcon, SearchXIcon } from 'lucide-react';
import { MAX_ORDERS_OFFSET } from '../../../shared/orders.ts';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { DataError, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { useDateRange } from '../../components/date-range-picker.tsx';
import { trpc } from '../../lib/trpc.ts';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { OrderDrawer } from './order-drawer.tsx';
import { OrdersPagination, OrdersTable } from './orders-table.tsx';
import { OrdersToolbar } from './orders-toolbar.tsx';
import { exportUrlOf, filterOfView, useOrdersView } from './orders-url-state.ts';

/** Whether a page lies past the paging cap (the server refuses it): said at once, without a request. */
export function isPastPagingCap(page: number, pageSize: number): boolean {
  return (page - 1) * pageSize >= MAX_ORDERS_OFFSET;
}

export function OrdersPage() {
  const { t } = useTranslation('orders');
  return (
    <DataPage title={t('page.title')} description={t('page.description')}>
      <StoreDataGate>
        <OrdersContent />
      </StoreDataGate>
    </DataPage>
  );
}

function OrdersContent() {
  const { t } = useTranslation('orders');
  const format = useFigureFormat();
  const state = useOrdersView();
  const { view, update, hasFilters, clearFilters } = state;
  const range = useDateRange();
  const filter = filterOfView(view, range);
  const tooDeep = isPastPagingCap(view.page, view.pageSize);
  const list = trpc.orders.list.useQuery(
    { ...filter, page: view.page, pageSize: view.pageSize },
    {
      placeholderData: (previous) => previous,
      enabled: !tooDeep,
    },
  );

  // Closing the drawer puts focus back on the order it showed (its button in the table, or its card on
  // phones), wherever the focus was when it opened (a click on a cell leaves it on the page).
  const returnFocusTo = useRef<number | null>(null);
  useEffect(() => {
    if (view.orderId !== null) {
      returnFocusTo.current = view.orderId;
      return;
    }
    const orderId = returnFocusTo.current;
    returnFocusTo.current = null;
    if (orderId === null) return;
    const target = [...document.querySelectorAll<HTMLElement>(`[data-order-id="${orderId}"]`)].find((element) => element.offsetParent !== null);
    target?.focus();
  }, [view.orderId]);
  const closeDrawer = () => update({ orderId: null });

  const toggleSort = (sort: typeof view.sort) =>
    update(view.sort === sort ? { direction: view.direction === 'desc' ? 'asc' : 'desc' } : { sort, direction: sort === 'orderNumber' ? 'asc' : 'desc' });

  const data = tooDeep ? undefined : list.data;
  // A new date range or filter elsewhere (the shared picker) can leave the page past the end.
  const pastTheEnd = data !== undefined && !list.isPlaceholderData && data.rows.length === 0 && data.total > 0 && view.page > 1;
  useEffect(() => {
    if (pastTheEnd) update({ page: 1 });
  }, [pastTheEnd, update]);
  const first = data ? (data.page - 1) * data.pageSize + 1 : 0;
  const last = data ? first + data.rows.length - 1 : 0;
  const totalText = data ? (data.totalIsExact ? format.integer(data.total) : `${format.integer(data.total)}+`) : '';

  return (
    <div className="space-y-4">
      <OrdersToolbar state={state} />

      <div className="flex flex-wrap items-center justify-between gap-2">
        {/* data-state: "ready" once the count is the current filters' (not the previous filters' while the new ones load). */}
        <p
          className="text-base-content/75 text-sm"
          aria-live="polite"
          data-testid="orders-count"
          data-total={data?.total ?? ''}
          data-state={tooDeep || (data && !list.isPlaceholderData) ? 'ready' : 'loading'}
        >
          {tooDeep ? '' : data ? (data.rows.length ? t('summary.showing', { first: format.integer(first), last: format.integer(last), total: totalText, count: data.total }) : t('summary.none')) : t('summary.loading')}
        </p>
        <a className="btn btn-sm gap-2" href={exportUrlOf(filter)} download data-testid="export-csv">
          <DownloadIcon className="size-4" aria-hidden="true" />
          {t('toolbar.export')}
        </a>
      </div>

      {tooDeep ? (
        <section className="bg-base-100 border-base-content/15 rounded-box border border-dashed px-5 py-12 text-center" role="status" data-testid="orders-too-deep">
          <HistoryIcon className="text-base-content/50 mx-auto size-10" aria-hidden="true" />
          <h2 className="mt-3 font-semibold">{t('deep.title', { page: format.integer(view.page) })}</h2>
          <p className="text-base-content/70 mx-auto mt-1 max-w-prose text-sm">{t('deep.body', { max: format.integer(MAX_ORDERS_OFFSET) })}</p>
          <button type="button" className="btn btn-sm btn-primary mt-4" onClick={() => update({ page: 1 })}>
            {t('deep.first')}
          </button>
        </section>
      ) : list.isError && !data ? (
        <DataError error={list.error} onRetry={() => void list.refetch()} />
      ) : !data ? (
        <div className="space-y-2" role="status" aria-label={t('summary.loading')}>
          {Array.from({ length: 8 }, (_, index) => (
            <div key={index} className="skeleton h-11 rounded-box" />
          ))}
        </div>
      ) : data.rows.length === 0 ? (
        <section className="bg-base-100 border-base-content/15 rounded-box border border-dashed px-5 py-12 text-center" data-testid="orders-empty">
          <SearchXIcon className="text-base-content/50 mx-auto size-10" aria-hidden="true" />
          <h2 className="mt-3 font-semibold">{t('empty.title')}</h2>
          <p className="text-base-content/70 mt-1 text-sm">{hasFilters ? t('empty.filtered') : t('empty.range')}</p>
          {hasFilters && (
            <button type="button" className="btn btn-sm btn-primary mt-4" onClick={clearFilters}>
              {t('toolbar.clear')}
            </button>
          )}
        </section>
      ) : (
        <div className={`space-y-4 transition-opacity ${list.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={list.isFetching}>
          <OrdersTable data={data} view={view} onSort={toggleSort} onOpen={(orderId) => update({ orderId })} />
          <OrdersPagination data={data} onPage={(page) => update({ page })} onPageSize={(pageSize) => update({ pageSize })} />
        </div>
      )}

      <OrderDrawer orderId={view.orderId} onClose={closeDrawer} />
    </div>
  );
}
