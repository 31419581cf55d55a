import { useCallback, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { CHANNELS, ORDER_STATUSES, type Channel, type OrderStatus } from '../../../shared/commerce-constants.ts';
import {
  CUSTOMER_TYPES,
  ORDER_PAGE_SIZES,
  ORDER_PLATFORMS,
  ORDER_SORTS,
  SORT_DIRECTIONS,
  type CustomerType,
  type OrderPageSize,
  type OrderSort,
  type OrdersFilterInput,
  type SortDirection,
} from '../../../shared/orders.ts';

// Everything the orders screen shows lives in the URL query (beside the shared ?from&to&compare), so
// a reload, the back button or a shared link shows the same page of the same filtered set.

export interface OrdersView {
  search: string;
  statuses: OrderStatus[];
  channels: Channel[];
  platforms: (typeof ORDER_PLATFORMS)[number][];
  customerType: CustomerType | null;
  sort: OrderSort;
  direction: SortDirection;
  page: number;
  pageSize: OrderPageSize;
  /** The order whose detail drawer is open. */
  orderId: number | null;
}

const DEFAULT_VIEW: OrdersView = {
  search: '',
  statuses: [],
  channels: [],
  platforms: [],
  customerType: null,
  sort: 'placedAt',
  direction: 'desc',
  page: 1,
  pageSize: 25,
  orderId: null,
};

/** Query parameter of each part of the view. */
const PARAMS = {
  search: 'q',
  statuses: 'status',
  channels: 'channel',
  platforms: 'platform',
  customerType: 'customer',
  sort: 'sort',
  direction: 'dir',
  page: 'page',
  pageSize: 'size',
  orderId: 'order',
} as const satisfies Record<keyof OrdersView, string>;

function listOf<T extends string>(raw: string | null, allowed: readonly T[]): T[] {
  if (!raw) return [];
  return raw.split(',').filter((value): value is T => (allowed as readonly string[]).includes(value));
}

function oneOf<T extends string>(raw: string | null, allowed: readonly T[], fallback: T): T {
  return raw !== null && (allowed as readonly string[]).includes(raw) ? (raw as T) : fallback;
}

function positiveInteger(raw: string | null): number | null {
  const value = Number(raw);
  return raw && Number.isSafeInteger(value) && value > 0 ? value : null;
}

function viewFromSearch(search: string): OrdersView {
  const params = new URLSearchParams(search);
  const get = (key: keyof OrdersView) => params.get(PARAMS[key]);
  const size = Number(get('pageSize'));
  return {
    search: get('search') ?? '',
    statuses: listOf(get('statuses'), ORDER_STATUSES),
    channels: listOf(get('channels'), CHANNELS),
    platforms: listOf(get('platforms'), ORDER_PLATFORMS),
    customerType: listOf(get('customerType'), CUSTOMER_TYPES)[0] ?? null,
    sort: oneOf(get('sort'), ORDER_SORTS, DEFAULT_VIEW.sort),
    direction: oneOf(get('direction'), SORT_DIRECTIONS, DEFAULT_VIEW.direction),
    page: positiveInteger(get('page')) ?? 1,
    pageSize: (ORDER_PAGE_SIZES as readonly number[]).includes(size) ? (size as OrderPageSize) : DEFAULT_VIEW.pageSize,
    orderId: positiveInteger(get('orderId')),
  };
}

/** The query string of a view (defaults left out), keeping the other parameters of `search`. */
function searchOfView(view: OrdersView, search: string): string {
  const params = new URLSearchParams(search);
  for (const key of Object.keys(PARAMS) as (keyof OrdersView)[]) {
    const value = view[key];
    const text = Array.isArray(value) ? value.join(',') : value === null ? '' : String(value);
    const fallback = DEFAULT_VIEW[key];
    const fallbackText = Array.isArray(fallback) ? fallback.join(',') : fallback === null ? '' : String(fallback);
    if (text === fallbackText) params.delete(PARAMS[key]);
    else params.set(PARAMS[key], text);
  }
  return params.toString();
}

/** The filters the list and the CSV export share (the date range comes from the shared picker). */
export function filterOfView(view: OrdersView, range: { from: string; to: string }): OrdersFilterInput {
  return {
    from: range.from,
    to: range.to,
    search: view.search.trim() || undefined,
    statuses: view.statuses.length ? view.statuses : undefined,
    channels: view.channels.length ? view.channels : undefined,
    platforms: view.platforms.length ? view.platforms : undefined,
    customerType: view.customerType ?? undefined,
    sort: view.sort,
    direction: view.direction,
  };
}

/** GET /api/orders/export.csv with the same filters, lists comma-separated. */
export function exportUrlOf(filter: OrdersFilterInput): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  return `/api/orders/export.csv?${params.toString()}`;
}

export interface OrdersViewState {
  view: OrdersView;
  /** Changes part of the view; a change of filters or sort goes back to page 1. */
  update: (changes: Partial<OrdersView>) => void;
  hasFilters: boolean;
  clearFilters: () => void;
}

const KEEPS_PAGE: readonly (keyof OrdersView)[] = ['page', 'orderId'];

export function useOrdersView(): OrdersViewState {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const view = useMemo(() => viewFromSearch(search), [search]);
  const update = useCallback(
    (changes: Partial<OrdersView>) => {
      const resetsPage = (Object.keys(changes) as (keyof OrdersView)[]).some((key) => !KEEPS_PAGE.includes(key));
      const next = { ...view, ...(resetsPage ? { page: 1 } : {}), ...changes };
      const query = searchOfView(next, search);
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [view, search, location, navigate],
  );
  const hasFilters = view.search !== '' || view.statuses.length > 0 || view.channels.length > 0 || view.platforms.length > 0 || view.customerType !== null;
  const clearFilters = useCallback(() => update({ search: '', statuses: [], channels: [], platforms: [], customerType: null }), [update]);
  return { view, update, hasFilters, clearFilters };
}
