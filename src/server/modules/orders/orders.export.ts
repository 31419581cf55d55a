import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Readable } from 'node:stream';
import { formatMinorUnits } from '../../../shared/metrics.ts';
import type { OrderRow, OrdersFilter } from '../../../shared/orders.ts';
import { csvStream, sendCsv, type CsvCell } from '../../csv.ts';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';
import { dayInZone } from '../../../shared/date-ranges.ts';
import { orderBatches } from './orders.service.ts';

// GET /api/orders/export.csv?<the table's filters>: every order of the filtered set as CSV, streamed
// batch by batch. Access and input go through the `orders.exportScope` procedure like any /api call;
// this route only turns the query string into its input and the batches into CSV.

export const ORDERS_CSV_HEADER = [
  'Order number',
  'External ID',
  'Placed at (UTC)',
  'Store day',
  'Platform',
  'Status',
  'Test order',
  'Counts in totals',
  'Channel',
  'Customer',
  'Currency',
  'Gross sales',
  'Discounts',
  'Shipping',
  'Taxes',
  'Refunds',
  'Net sales',
  'Items',
  'Display currency',
  'Net sales (display currency)',
] as const;

function csvCells(row: OrderRow, displayCurrency: string): CsvCell[] {
  const money = (minor: number) => formatMinorUnits(minor);
  return [
    row.orderNumber,
    row.externalId,
    row.placedAt,
    row.placedDay,
    row.platform,
    row.status,
    row.isTest ? 'yes' : 'no',
    row.counts ? 'yes' : 'no',
    row.channel,
    row.counts ? (row.isNewCustomer ? 'new' : 'returning') : '',
    row.currency,
    money(row.amounts.gross),
    money(row.amounts.discounts),
    money(row.amounts.shipping),
    money(row.amounts.taxes),
    money(row.amounts.refunds),
    money(row.amounts.netSales),
    row.items,
    displayCurrency,
    money(row.displayAmounts.netSales),
  ];
}

/** The filtered set as a CSV stream; the next batch is read only once the client took the last one. */
export function ordersCsv(em: EntityManager, store: { id: number; currency: string }, filter: OrdersFilter): Readable {
  const displayCurrency = filter.currency ?? store.currency;
  async function* batches() {
    for await (const rows of orderBatches(em, store, filter)) yield rows.map((row) => csvCells(row, displayCurrency));
  }
  return csvStream(ORDERS_CSV_HEADER, batches());
}

/** Query-string fields that hold lists: `statuses=paid,pending` or `statuses=paid&statuses=pending`. */
const LIST_FIELDS = ['statuses', 'channels', 'platforms'] as const;

function exportInputOf(query: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...query };
  for (const field of LIST_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => String(part).split(','));
    input[field] = parts.map((part) => part.trim()).filter((part) => part !== '');
  }
  for (const [key, value] of Object.entries(input)) if (value === '') delete input[key];
  return input;
}

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

export const ordersExportPlugin = fp(async (app: FastifyInstance, options: { createContext: CreateContext }) => {
  app.get('/api/orders/export.csv', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    let context: Context;
    let scope: Awaited<ReturnType<ReturnType<typeof createCaller>['orders']['exportScope']>>;
    try {
      context = await options.createContext({ req: request, res: reply });
      scope = await createCaller(context).orders.exportScope(exportInputOf(request.query as Record<string, unknown>) as never);
    } catch (error) {
      return sendError(reply, error);
    }
    const stream = ordersCsv(context.em, { id: scope.storeId, currency: scope.currency }, scope.filter);
    stream.on('error', (error) => request.log.error({ err: error }, 'Orders CSV export failed'));
    return sendCsv(reply, 'orders', dayInZone(new Date(), scope.timezone), stream);
  });
});
