import { useCallback, useMemo } from 'react';
import { useSearch } from 'wouter';
import { LOYALTY_SEGMENTS, LOYALTY_SORTS, type LoyaltyCustomersInput, type LoyaltySegment, type LoyaltySort } from '../../../shared/loyalty.ts';
import { readSearchParam, useUpdateSearch } from '../../lib/use-search-param.ts';

// What the customers part of /customer-loyalty shows lives in the URL query, so a reload, the back
// button or a shared link shows the same table: the tab (top or at-risk customers), the segment
// chosen in the grid, the search, the sort, the page and the customer whose drawer is open.

export const LOYALTY_TABS = ['top', 'at-risk'] as const;
export type LoyaltyTab = (typeof LOYALTY_TABS)[number];
export const LOYALTY_PAGE_SIZE = 25;

export interface LoyaltyView {
  tab: LoyaltyTab;
  /** The segment chosen in the grid (the top-customers tab only). */
  segment: LoyaltySegment | null;
  search: string;
  sort: LoyaltySort;
  direction: 'asc' | 'desc';
  page: number;
  /** The customer whose drawer is open. */
  customerId: number | null;
}

const DEFAULT_SORT: LoyaltySort = 'predicted_value';
const SEGMENT_NONE = '';

function positiveInteger(raw: string | null): number | null {
  const value = Number(raw);
  return raw && Number.isSafeInteger(value) && value > 0 ? value : null;
}

export function loyaltyViewFromSearch(search: string): LoyaltyView {
  const params = new URLSearchParams(search);
  const tab = readSearchParam(search, 'tab', LOYALTY_TABS, 'top');
  const segment = readSearchParam<LoyaltySegment | typeof SEGMENT_NONE>(search, 'segment', LOYALTY_SEGMENTS, SEGMENT_NONE);
  return {
    tab,
    segment: tab === 'top' && segment !== SEGMENT_NONE ? segment : null,
    search: params.get('q') ?? '',
    sort: readSearchParam(search, 'sort', LOYALTY_SORTS, DEFAULT_SORT),
    direction: readSearchParam(search, 'dir', ['asc', 'desc'] as const, 'desc'),
    page: positiveInteger(params.get('page')) ?? 1,
    customerId: positiveInteger(params.get('customer')),
  };
}

/** The filter the table and its CSV export share. */
export function loyaltyFilterOf(view: LoyaltyView): Omit<LoyaltyCustomersInput, 'page' | 'pageSize'> {
  return {
    segment: view.segment ?? undefined,
    atRisk: view.tab === 'at-risk' ? true : undefined,
    search: view.search.trim() || undefined,
    sort: view.sort,
    direction: view.direction,
  };
}

export interface LoyaltyViewState {
  view: LoyaltyView;
  /** Changes part of the view; a change of tab, segment, search or sort goes back to page 1. */
  update: (changes: Partial<LoyaltyView>) => void;
}

/** The URL parameter of each part of the view, and how it is written (null: left out, the default). */
function paramsOf(changes: Partial<LoyaltyView>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if ('tab' in changes) out.tab = changes.tab === 'top' ? null : changes.tab!;
  if ('segment' in changes) out.segment = changes.segment ?? null;
  if ('search' in changes) out.q = changes.search || null;
  if ('sort' in changes) out.sort = changes.sort === DEFAULT_SORT ? null : changes.sort!;
  if ('direction' in changes) out.dir = changes.direction === 'desc' ? null : changes.direction!;
  if ('page' in changes) out.page = changes.page === 1 ? null : String(changes.page);
  if ('customerId' in changes) out.customer = changes.customerId === null || changes.customerId === undefined ? null : String(changes.customerId);
  return out;
}

const KEEPS_PAGE: readonly (keyof LoyaltyView)[] = ['page', 'customerId'];

export function useLoyaltyView(): LoyaltyViewState {
  const search = useSearch();
  const updateSearch = useUpdateSearch();
  const view = useMemo(() => loyaltyViewFromSearch(search), [search]);
  const update = useCallback(
    (changes: Partial<LoyaltyView>) => {
      const resetsPage = (Object.keys(changes) as (keyof LoyaltyView)[]).some((key) => !KEEPS_PAGE.includes(key));
      updateSearch(paramsOf(resetsPage ? { page: 1, ...changes } : changes));
    },
    [updateSearch],
  );
  return { view, update };
}
