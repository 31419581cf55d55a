import { useTranslation } from 'react-i18next';
import { MAX_ORDERS_OFFSET, ORDER_PAGE_SIZES, type OrderPageSize, type OrderRow, type OrderSort, type OrdersListOutput } from '../../../shared/orders.ts';
import { PageButtons } from '../../components/page-buttons.tsx';
import { SortableHeader } from '../../components/sortable-header.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { ChannelBadge, CustomerTypeBadge, StatusBadge } from './order-badges.tsx';
import { useOrderMoney, useStoreDateTime } from './order-format.ts';
import type { OrdersView } from './orders-url-state.ts';
import { RowCards } from '../../components/row-cards.tsx';

interface TableProps {
  data: OrdersListOutput;
  view: OrdersView;
  onSort: (sort: OrderSort) => void;
  onOpen: (orderId: number) => void;
}

/** The display-currency amount, with the order's own beneath it when the order was in another currency. */
function Amount({ row, field, currency }: { row: OrderRow; field: 'total' | 'netSales'; currency: string }) {
  const money = useOrderMoney();
  return (
    <span className={`tabular-nums ${row.counts ? '' : 'text-base-content/70 line-through decoration-base-content/40'}`}>
      {money(row.displayAmounts[field], currency)}
      {row.currency !== currency && <span className="text-base-content/60 block text-xs no-underline">{money(row.amounts[field], row.currency)}</span>}
    </span>
  );
}

function OrderSortHeader({ label, sort, view, onSort, align = 'left' }: { label: string; sort: OrderSort; view: OrdersView; onSort: (sort: OrderSort) => void; align?: 'left' | 'right' }) {
  const { t } = useTranslation('orders');
  return <SortableHeader label={label} sort={sort} current={view} onSort={onSort} title={t('table.sortBy', { column: label })} align={align} />;
}

/** The buyer: the platform's customer id (names and e-mails are not kept) and their orders, or "Guest"; new or returning beside it. */
function CustomerCell({ row }: { row: OrderRow }) {
  const { t } = useTranslation('orders');
  return (
    <div className="min-w-0" data-testid="order-customer">
      {row.customer ? (
        <span className="block max-w-40 truncate font-medium" title={row.customer.externalId}>
          {row.customer.externalId}
        </span>
      ) : (
        <span className="text-base-content/70 block">{t('table.guest')}</span>
      )}
      <span className="mt-0.5 flex flex-wrap items-center gap-1.5">
        <CustomerTypeBadge isNew={row.isNewCustomer} counts={row.counts} />
        {row.customer && <span className="text-base-content/70 text-xs whitespace-nowrap">{t('table.customerOrders', { count: row.customer.ordersCount })}</span>}
      </span>
    </div>
  );
}

export function OrdersTable({ data, view, onSort, onOpen }: TableProps) {
  const { t } = useTranslation('orders');
  const format = useFigureFormat();
  const dateTime = useStoreDateTime();
  const number = (row: OrderRow) => row.orderNumber ?? row.externalId;

  return (
    <>
      {/* Phones: one card per order. */}
      <RowCards rows={data.rows} testId="orders-cards" cardTestId="order-card" idAttribute="data-order-id" onOpen={onOpen}>
        {(row) => (
          <>
            <div className="flex items-start justify-between gap-3">
              <div className="min-w-0">
                <p className="truncate font-semibold">{number(row)}</p>
                <p className="text-base-content/70 text-xs">{dateTime(row.placedAt)}</p>
                <p className="text-base-content/80 truncate text-xs" data-testid="order-card-customer">
                  {row.customer ? `${row.customer.externalId} · ${t('table.customerOrders', { count: row.customer.ordersCount })}` : t('table.guest')}
                </p>
              </div>
              <div className="text-right text-sm">
                <p className="font-semibold">
                  <Amount row={row} field="total" currency={data.currency} />
                </p>
                <p className="text-base-content/70 text-xs">
                  {t('columns.netSales')} <Amount row={row} field="netSales" currency={data.currency} />
                </p>
              </div>
            </div>
            <div className="mt-2 flex flex-wrap items-center gap-1.5">
              <StatusBadge status={row.status} isTest={row.isTest} />
              <ChannelBadge channel={row.channel} />
              <CustomerTypeBadge isNew={row.isNewCustomer} counts={row.counts} />
              <span className="text-base-content/60 ml-auto text-xs">{t('table.items', { count: row.items })}</span>
            </div>
          </>
        )}
      </RowCards>

      {/* Tablets and up: the table. */}
      <div className="bg-base-100 border-base-content/10 rounded-box hidden overflow-x-auto border shadow-xs md:block">
        <table className="table table-sm" data-testid="orders-table">
          <thead>
            <tr className="text-base-content/70">
              <OrderSortHeader label={t('columns.order')} sort="orderNumber" view={view} onSort={onSort} />
              <OrderSortHeader label={t('columns.placedAt')} sort="placedAt" view={view} onSort={onSort} />
              <th scope="col">{t('columns.customer')}</th>
              <th scope="col">{t('columns.channel')}</th>
              <th scope="col">{t('columns.status')}</th>
              <th scope="col" className="text-right">
                {t('columns.items')}
              </th>
              <OrderSortHeader label={t('columns.total')} sort="total" view={view} onSort={onSort} align="right" />
              <OrderSortHeader label={t('columns.netSales')} sort="netSales" view={view} onSort={onSort} align="right" />
            </tr>
          </thead>
          <tbody>
            {data.rows.map((row) => (
              <tr key={row.id} className="hover:bg-base-200/60 cursor-pointer" onClick={() => onOpen(row.id)} data-testid="order-row">
                <td className="font-medium whitespace-nowrap">
                  <button type="button" className="link link-hover" data-order-id={row.id} onClick={(event) => {
                      event.stopPropagation();
                      onOpen(row.id);
                    }}>
                    {number(row)}
                  </button>
                </td>
                <td className="whitespace-nowrap">{dateTime(row.placedAt)}</td>
                <td>
                  <CustomerCell row={row} />
                </td>
                <td>
                  <ChannelBadge channel={row.channel} />
                </td>
                <td>
                  <StatusBadge status={row.status} isTest={row.isTest} />
                </td>
                <td className="text-right tabular-nums">{format.integer(row.items)}</td>
                <td className="text-right whitespace-nowrap">
                  <Amount row={row} field="total" currency={data.currency} />
                </td>
                <td className="text-right font-medium whitespace-nowrap">
                  <Amount row={row} field="netSales" currency={data.currency} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** How many pages the filtered set has, within the paging cap. */
function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.min(Math.ceil(total / pageSize), Math.ceil(MAX_ORDERS_OFFSET / pageSize)));
}

export function OrdersPagination({
  data,
  onPage,
  onPageSize,
}: {
  data: OrdersListOutput;
  onPage: (page: number) => void;
  onPageSize: (size: OrderPageSize) => void;
}) {
  const { t } = useTranslation('orders');
  const format = useFigureFormat();
  const pages = pageCount(data.total, data.pageSize);
  const pagesText = data.totalIsExact ? format.integer(pages) : `${format.integer(pages)}+`;
  return (
    <nav className="flex flex-wrap items-center justify-between gap-3" aria-label={t('pagination.label')}>
      <label className="flex items-center gap-2 text-sm">
        <span className="text-base-content/70">{t('pagination.perPage')}</span>
        <select className="select select-sm w-20" value={data.pageSize} onChange={(event) => onPageSize(Number(event.target.value) as OrderPageSize)} data-testid="page-size">
          {ORDER_PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <PageButtons
        page={data.page}
        pages={pages}
        onPage={onPage}
        pageText={t('pagination.page', { page: format.integer(data.page), pages: pagesText })}
        previousLabel={t('pagination.previous')}
        nextLabel={t('pagination.next')}
      />
    </nav>
  );
}
