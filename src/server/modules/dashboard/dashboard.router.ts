import { DEFAULT_CURRENCY } from '../../../shared/currencies.ts';
import { allStoresInput, allStoresOutput, dayKpisInput, dayKpisOutput, todayVsYesterdayInput, todayVsYesterdayOutput } from '../../../shared/dashboard.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure, subscribedProcedure } from '../../trpc/procedures.ts';
import { activeStoreOf, listStores } from '../stores/stores.service.ts';
import { allStoresKpis, dayKpis, todayVsYesterday } from './dashboard.service.ts';

export const dashboardRouter = router({
  /** Today's net sales and orders so far against yesterday's up to the same local time (active store). */
  todayVsYesterday: storeProcedure
    .input(todayVsYesterdayInput)
    .output(todayVsYesterdayOutput)
    .query(({ ctx, input }) => todayVsYesterday(ctx.em, ctx.store, { currency: input?.currency })),

  /**
   * One day of the active store hour by hour, with its KPIs against the comparison day; today is
   * compared with the comparison day up to the same local time. Not cached by data version: the cut moves with the clock.
   */
  day: storeProcedure
    .input(dayKpisInput)
    .output(dayKpisOutput)
    .query(({ ctx, input }) => dayKpis(ctx.em, ctx.store, input)),

  /** Every store the caller may see (own and shared), side by side in one currency, with a total row. */
  allStores: subscribedProcedure
    .input(allStoresInput)
    .output(allStoresOutput)
    .query(async ({ ctx, input }) => {
      const active = await activeStoreOf(ctx.em, ctx.user, ctx.guestMode ? ctx.session.guestActiveStoreId : null);
      const stores = await listStores(ctx.em, ctx.user);
      const currency = input.currency ?? active?.currency ?? DEFAULT_CURRENCY;
      return allStoresKpis(ctx.em, ctx.user, stores, { ...input, currency }, active?.id ?? null);
    }),
});
