import { DownloadIcon, SearchXIcon, XIcon } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { LoyaltyCustomerRow, LoyaltySort } from '../../../shared/loyalty.ts';
import { DataError } from '../../components/data-page.tsx';
import { PageButtons } from '../../components/page-buttons.tsx';
import { SearchBox } from '../../components/search-box.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { SortableHeader } from '../../components/sortable-header.tsx';
import { toast } from '../../components/toast.tsx';
import { downloadFile } from '../../lib/download-file.ts';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { serverMessage } from '../../lib/session.ts';
import { useStoreDateTime } from '../../lib/store-time.ts';
import { trpc } from '../../lib/trpc.ts';
import { AudiencePush } from './audience-push.tsx';
import { CustomerDrawer } from './customer-drawer.tsx';
import { LOYALTY_PAGE_SIZE, LOYALTY_TABS, loyaltyFilterOf, type LoyaltyTab, type LoyaltyViewState } from './loyalty-url-state.ts';
import { RowCards } from '../../components/row-cards.tsx';

// The top-customers and at-risk-customers tables of /customer-loyalty: search, sort and pages on
// the server (loyalty.customers), the CSV of the whole filter (loyalty.exportCsv), a drawer per customer.

const SEARCH_MAX_LENGTH = 200;
/** Most valuable first by default; names and e-mails are sealed, so they do not sort. */
const SORTABLE: Partial<Record<'orders' | 'spent' | 'lastOrder' | 'churnRisk' | 'predictedValue', LoyaltySort>> = {
  orders: 'orders',
  spent: 'spent',
  lastOrder: 'last_order',
  churnRisk: 'churn_risk',
  predictedValue: 'predicted_value',
};

export function LoyaltyCustomers({ state }: { state: LoyaltyViewState }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const { view, update } = state;
  const filter = loyaltyFilterOf(view);
  const list = trpc.loyalty.customers.useQuery({ ...filter, page: view.page, pageSize: LOYALTY_PAGE_SIZE }, { placeholderData: (previous) => previous });
  const data = list.data;

  // Closing the drawer puts focus back on the customer it showed.
  const returnFocusTo = useRef<number | null>(null);
  useEffect(() => {
    if (view.customerId !== null) {
      returnFocusTo.current = view.customerId;
      return;
    }
    const customerId = returnFocusTo.current;
    returnFocusTo.current = null;
    if (customerId === null) return;
    [...document.querySelectorAll<HTMLElement>(`[data-customer-id="${customerId}"]`)].find((element) => element.offsetParent !== null)?.focus();
  }, [view.customerId]);

  const onSearch = useCallback((search: string) => update({ search }), [update]);
  const onSort = (sort: LoyaltySort) => update(view.sort === sort ? { direction: view.direction === 'desc' ? 'asc' : 'desc' } : { sort, direction: 'desc' });
  const open = (customerId: number) => update({ customerId });
  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  const first = data ? (data.page - 1) * data.pageSize + 1 : 0;
  const last = data ? first + data.customers.length - 1 : 0;
  const ready = data !== undefined && !list.isPlaceholderData;
  const tabLabel = (tab: LoyaltyTab) => t(`tabs.${tab}`);

  return (
    <SectionCard
      titleId="loyalty-customers-title"
      title={view.tab === 'at-risk' ? t('tabs.at-risk') : t('tabs.top')}
      description={view.tab === 'at-risk' ? t('customers.atRiskDescription') : t('customers.topDescription')}
      testId="loyalty-customers"
    >
      <div role="tablist" aria-label={t('tabs.label')} className="tabs tabs-box w-full sm:w-fit">
        {LOYALTY_TABS.map((tab) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={view.tab === tab}
            className={`tab grow sm:grow-0 ${view.tab === tab ? 'tab-active' : ''}`}
            onClick={() => update({ tab, segment: null })}
            data-testid={`tab-${tab}`}
          >
            {tabLabel(tab)}
          </button>
        ))}
      </div>

      <div className="flex flex-col gap-2 lg:flex-row lg:flex-wrap lg:items-center" role="search" aria-label={t('customers.searchLabel')}>
        <SearchBox value={view.search} onSearch={onSearch} label={t('customers.search')} placeholder={t('customers.searchPlaceholder')} maxLength={SEARCH_MAX_LENGTH} testId="loyalty-search" />
        {view.segment && (
          <button type="button" className="badge badge-primary badge-soft gap-1 py-3" onClick={() => update({ segment: null })} data-testid="segment-filter" title={t('customers.clearSegment')}>
            {t('customers.segmentFilter', { segment: t(`segmentNames.${view.segment}`) })}
            <XIcon className="size-3.5" aria-hidden="true" />
          </button>
        )}
        <ExportButton filter={filter} />
      </div>

      {/* at_risk_customers: the server's key of the at-risk table (AT_RISK_CUSTOMERS_SEGMENT, modules/audiences). */}
      <AudiencePush segment={view.segment ?? (view.tab === 'at-risk' ? 'at_risk_customers' : null)} label={view.segment ? t(`segmentNames.${view.segment}`) : t('tabs.at-risk')} />

      <p className="text-base-content/75 text-sm" aria-live="polite" data-testid="loyalty-count" data-total={data?.total ?? ''} data-state={ready ? 'ready' : 'loading'}>
        {data ? (data.customers.length ? t('customers.showing', { first: format.integer(first), last: format.integer(last), total: format.integer(data.total), count: data.total }) : t('customers.none')) : t('customers.loading')}
      </p>

      {list.isError && !data ? (
        <DataError error={list.error} onRetry={() => void list.refetch()} />
      ) : !data ? (
        <div className="space-y-2" role="status" aria-label={t('customers.loading')}>
          {Array.from({ length: 8 }, (_, index) => (
            <div key={index} className="skeleton h-11 rounded-box" />
          ))}
        </div>
      ) : data.customers.length === 0 ? (
        <section className="border-base-content/15 rounded-box border border-dashed px-5 py-10 text-center" data-testid="loyalty-empty">
          <SearchXIcon className="text-base-content/50 mx-auto size-10" aria-hidden="true" />
          <h3 className="mt-3 font-semibold">{t('empty.title')}</h3>
          <p className="text-base-content/70 mt-1 text-sm">{view.search ? t('empty.search') : view.tab === 'at-risk' ? t('empty.atRisk') : t('empty.segment')}</p>
          {(view.search || view.segment) && (
            <button type="button" className="btn btn-sm btn-primary mt-4" onClick={() => update({ search: '', segment: null })}>
              {t('empty.clear')}
            </button>
          )}
        </section>
      ) : (
        <div className={`space-y-4 transition-opacity ${list.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={list.isFetching}>
          <CustomersTable rows={data.customers} currency={data.currency} view={view} onSort={onSort} onOpen={open} />
          <nav className="flex flex-wrap items-center justify-end gap-3" aria-label={t('pagination.label')}>
            <PageButtons
              page={data.page}
              pages={pages}
              onPage={(page) => update({ page })}
              pageText={t('pagination.page', { page: format.integer(data.page), pages: format.integer(pages) })}
              previousLabel={t('pagination.previous')}
              nextLabel={t('pagination.next')}
            />
          </nav>
        </div>
      )}

      <CustomerDrawer customerId={view.customerId} onClose={() => update({ customerId: null })} />
    </SectionCard>
  );
}

/** Downloads the CSV of every customer of the current filter (not only this page). */
function ExportButton({ filter }: { filter: ReturnType<typeof loyaltyFilterOf> }) {
  const { t } = useTranslation('loyalty');
  const utils = trpc.useUtils();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const file = await utils.loyalty.exportCsv.fetch(filter, { staleTime: 0 });
      downloadFile(file.fileName, [file.csv], 'text/csv;charset=utf-8');
    } catch (error) {
      toast({ title: t('customers.exportFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn btn-sm gap-2 lg:ml-auto" onClick={() => void download()} disabled={busy} data-testid="loyalty-export">
      {busy ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <DownloadIcon className="size-4" aria-hidden="true" />}
      {t('customers.export')}
    </button>
  );
}

function ChurnBadge({ risk }: { risk: number | null }) {
  const format = useFigureFormat();
  if (risk === null) return <span className="text-base-content/50">—</span>;
  const tone = risk >= 0.5 ? 'badge-error' : risk >= 0.25 ? 'badge-warning' : 'badge-success';
  return <span className={`badge badge-sm badge-soft ${tone} tabular-nums`}>{format.percent(risk, 0)}</span>;
}

interface TableProps {
  rows: LoyaltyCustomerRow[];
  currency: string;
  view: LoyaltyViewState['view'];
  onSort: (sort: LoyaltySort) => void;
  onOpen: (customerId: number) => void;
}

function CustomersTable({ rows, currency, view, onSort, onOpen }: TableProps) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const dateTime = useStoreDateTime();
  const nameOf = (row: LoyaltyCustomerRow) => row.name ?? row.externalId;
  const header = (key: keyof typeof SORTABLE, align: 'left' | 'right' = 'right') => {
    const label = t(`columns.${key}`);
    return <SortableHeader key={key} label={label} sort={SORTABLE[key]!} current={view} onSort={onSort} title={t('columns.sortBy', { column: label })} align={align} />;
  };
  return (
    <>
      {/* Phones: one card per customer, like the orders screen. */}
      <RowCards rows={rows} testId="loyalty-cards" cardTestId="loyalty-card" idAttribute="data-customer-id" onOpen={onOpen}>
        {(row) => (
          <>
            <div className="flex items-start justify-between gap-3">
              <div className="min-w-0">
                <p className="truncate font-semibold">{nameOf(row)}</p>
                <p className="text-base-content/70 truncate text-xs">{row.email ?? t('customers.noEmail')}</p>
                <p className="text-base-content/70 text-xs">{t('customers.lastOrder', { date: dateTime(row.lastOrderAt) })}</p>
              </div>
              <div className="shrink-0 text-right text-sm">
                <p className="font-semibold tabular-nums">{format.money(row.spentMinor, currency)}</p>
                <p className="text-base-content/70 text-xs">{t('customers.orders', { count: row.orders })}</p>
              </div>
            </div>
            <div className="mt-2 flex flex-wrap items-center gap-2 text-xs">
              <span className="text-base-content/70">{t('columns.churnRisk')}</span>
              <ChurnBadge risk={row.churnRisk} />
              <span className="text-base-content/70 ml-auto">
                {t('columns.predictedValue')} <span className="text-base-content font-medium tabular-nums">{format.money(row.predictedValue12mMinor, currency)}</span>
              </span>
            </div>
          </>
        )}
      </RowCards>

      {/* Tablets and up: the table, scrolling sideways when narrow. */}
      <div className="border-base-content/10 rounded-box hidden overflow-x-auto border md:block">
        <table className="table table-sm" data-testid="loyalty-table">
          <thead>
            <tr className="text-base-content/70">
              <th scope="col">{t('columns.customer')}</th>
              {header('orders')}
              {header('spent')}
              {header('lastOrder', 'left')}
              {header('churnRisk')}
              {header('predictedValue')}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} className="hover:bg-base-200/60 cursor-pointer" onClick={() => onOpen(row.id)} data-testid="loyalty-row">
                <td className="min-w-0">
                  <button
                    type="button"
                    className="link link-hover block max-w-64 truncate text-left font-medium"
                    data-customer-id={row.id}
                    data-testid="loyalty-name"
                    onClick={(event) => {
                      event.stopPropagation();
                      onOpen(row.id);
                    }}
                  >
                    {nameOf(row)}
                  </button>
                  <span className="text-base-content/70 block max-w-64 truncate text-xs" data-testid="loyalty-email">
                    {row.email ?? t('customers.noEmail')}
                  </span>
                </td>
                <td className="text-right tabular-nums">{format.integer(row.orders)}</td>
                <td className="text-right font-medium whitespace-nowrap tabular-nums" data-testid="loyalty-spent" data-minor={row.spentMinor}>
                  {format.money(row.spentMinor, currency)}
                </td>
                <td className="whitespace-nowrap">{dateTime(row.lastOrderAt)}</td>
                <td className="text-right">
                  <ChurnBadge risk={row.churnRisk} />
                </td>
                <td className="text-right whitespace-nowrap tabular-nums">{format.money(row.predictedValue12mMinor, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
