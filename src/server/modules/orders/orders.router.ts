import {
  orderDetailInput,
  orderDetailOutput,
  ordersExportScopeOutput,
  ordersFilterInput,
  ordersListInput,
  ordersListOutput,
} from '../../../shared/orders.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { storeInScope } from '../commerce/commerce.router.ts';
import { listOrders, orderDetail } from './orders.service.ts';

export const ordersRouter = router({
  /** One page of the store's orders, filtered, searched and sorted, with the size of the filtered set. */
  list: storeProcedure
    .input(ordersListInput)
    .output(ordersListOutput)
    .query(async ({ ctx, input }) => listOrders(ctx.em, await storeInScope(ctx, input.storeId), input)),

  /** One order with its lines, refunds, attribution and customer summary. */
  detail: storeProcedure
    .input(orderDetailInput)
    .output(orderDetailOutput)
    .query(async ({ ctx, input }) => orderDetail(ctx.em, await storeInScope(ctx, input.storeId), input)),

  /**
   * Access and input check of the CSV export (GET /api/orders/export.csv, orders.export.ts): the
   * store the caller may read and the parsed filters; the route then streams the rows.
   */
  exportScope: storeProcedure
    .input(ordersFilterInput)
    .output(ordersExportScopeOutput)
    .query(async ({ ctx, input }) => {
      const store = await storeInScope(ctx, input.storeId);
      return { storeId: store.id, currency: store.currency, timezone: store.timezone, filter: input };
    }),
});
