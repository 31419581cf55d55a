import { z } from 'zod';
import {
  createStoreInput,
  dashboardLimitsOutput,
  storeIdSchema,
  storeOutput,
  timezoneChangeAnswer,
  timezoneChangeInput,
  updateStoreInput,
} from '../../../shared/stores.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure } from '../../trpc/procedures.ts';
import {
  activeStoreOf,
  createStore,
  dashboardLimits,
  deleteStore,
  listStores,
  setActiveStore,
  toStoreDto,
  updateStore,
  visibleStore,
} from './stores.service.ts';
import { latestTimezoneChange } from './store-timezone.service.ts';

// Store management needs an account, not a subscription: a new user creates a store before paying.
// A guest sees the stores shared with them (role 'guest') but may only switch to them: renaming,
// changing the currency or the time zone and deleting look up the caller's own stores, so a shared
// one answers 404; in guest mode every mutation is refused by the builder.
export const storesRouter = router({
  list: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/stores', tags: ['stores'], summary: "The user's stores" } })
    .input(z.void())
    .output(z.array(storeOutput))
    .query(async ({ ctx }) => (await listStores(ctx.em, ctx.user)).map((store) => toStoreDto(store, ctx.user))),

  active: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/stores/active', tags: ['stores'], summary: 'The active store' } })
    .input(z.void())
    .output(z.object({ store: storeOutput.nullable() }))
    .query(async ({ ctx }) => {
      const store = await activeStoreOf(ctx.em, ctx.user, ctx.guestMode ? ctx.session.guestActiveStoreId : null);
      return { store: store ? toStoreDto(store, ctx.user) : null };
    }),

  setActive: authedProcedure
    .meta({
      openapi: { method: 'POST', path: '/stores/active', tags: ['stores'], summary: 'Switch the active store' },
      allowedInGuestMode: true,
    })
    .input(z.object({ storeId: storeIdSchema }))
    .output(z.object({ success: z.literal(true), store: storeOutput }))
    .mutation(async ({ ctx, input }) => {
      const store = await setActiveStore(ctx.em, ctx.user, input.storeId, { guestMode: ctx.guestMode, session: ctx.session });
      return { success: true as const, store: toStoreDto(store, ctx.user) };
    }),

  create: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/stores', tags: ['stores'], summary: 'Create a store' }, rest: { successStatus: 201 } })
    .input(createStoreInput)
    .output(storeOutput)
    .mutation(async ({ ctx, input }) => toStoreDto(await createStore(ctx.em, ctx.user, input.name), ctx.user)),

  update: authedProcedure
    .meta({ openapi: { method: 'PATCH', path: '/stores/{storeId}', tags: ['stores'], summary: 'Rename a store, change its currency or its time zone (which recomputes its daily figures)' } })
    .input(updateStoreInput)
    .output(storeOutput)
    .mutation(async ({ ctx, input }) => {
      const { storeId, ...changes } = input;
      return toStoreDto(await updateStore(ctx.em, ctx.user, storeId, changes), ctx.user);
    }),

  /**
   * The latest change of a store's time zone and the progress of its rebuild: the store given
   * (own or shared) or else the active one. Polled by store management while a change runs.
   */
  timezoneChange: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/stores/timezone-change', tags: ['stores'], summary: "Progress of the latest change of a store's time zone" },
      rest: { noCache: true },
    })
    .input(timezoneChangeInput)
    .output(timezoneChangeAnswer)
    .query(async ({ ctx, input }) => {
      const store =
        input?.storeId !== undefined
          ? await visibleStore(ctx.em, ctx.user, input.storeId)
          : await activeStoreOf(ctx.em, ctx.user, ctx.guestMode ? ctx.session.guestActiveStoreId : null);
      return { change: store ? await latestTimezoneChange(ctx.em, store.id) : null };
    }),

  remove: authedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/stores/{id}', tags: ['stores'], summary: 'Delete a store' } })
    .input(z.object({ id: storeIdSchema }))
    .output(z.object({ success: z.literal(true), activeStoreId: z.number().nullable() }))
    .mutation(({ ctx, input }) => deleteStore(ctx.em, ctx.user, input.id)),

  limits: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/stores/dashboard-limits', tags: ['stores'], summary: 'How many more stores the user may create' },
      rest: { noCache: true },
    })
    .input(z.void())
    .output(dashboardLimitsOutput)
    .query(({ ctx }) => dashboardLimits(ctx.em, ctx.user)),
});
