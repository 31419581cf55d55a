import {
  chooseAccountsInput,
  connectInput,
  listAccountsOutput,
  integrationOutput,
  listIntegrationsInput,
  listIntegrationsOutput,
  platformInput,
  setBackfillMonthsInput,
  startOAuthInput,
  startOAuthOutput,
  uploadEmailCsvInput,
} from '../../../shared/integrations.ts';
import type { PlatformKey } from '../../../shared/platforms.ts';
import { AppError } from '../../errors.ts';
import type { Context } from '../../trpc/context.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure, VIEW_ONLY_STORE_MESSAGE } from '../../trpc/procedures.ts';
import { storeInScope } from '../commerce/commerce.router.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { storeRoleOf } from '../stores/stores.service.ts';
import {
  cancelSync,
  connectWithCredentials,
  disconnect,
  integrationOf,
  listConnectionAccounts,
  listIntegrations,
  setChosenAccounts,
  setBackfillMonths,
  startOAuth,
  syncNow,
  uploadEmailCsv,
} from './integrations.service.ts';

type StoreContext = Context & { store: StoreEntity; user: NonNullable<Context['user']> };

/** The store a call targets (the active one or `storeId`, 404 when not visible); changes need its owner. */
async function targetStore(ctx: StoreContext, storeId: number | undefined, change: boolean): Promise<StoreEntity> {
  const store = await storeInScope(ctx, storeId);
  if (change && storeRoleOf(store, ctx.user) !== 'owner') throw new AppError('FORBIDDEN', VIEW_ONLY_STORE_MESSAGE);
  return store;
}

function viewerOf(ctx: StoreContext, store: StoreEntity) {
  return { isOwner: storeRoleOf(store, ctx.user) === 'owner', origin: ctx.origin ?? '' };
}

/** Runs a change on the target store and answers the platform's entry as it is afterwards. */
async function change(ctx: StoreContext, input: { platform: PlatformKey; storeId?: number }, apply: (store: StoreEntity) => Promise<void>) {
  const store = await targetStore(ctx, input.storeId, true);
  await apply(store);
  return integrationOf(ctx.em, store, input.platform, viewerOf(ctx, store));
}

export const integrationsRouter = router({
  /** Every platform key with its connection, current sync and last reconciliation. */
  list: storeProcedure
    .input(listIntegrationsInput)
    .output(listIntegrationsOutput)
    .query(async ({ ctx, input }) => {
      const store = await targetStore(ctx, input?.storeId, false);
      return listIntegrations(ctx.em, store, viewerOf(ctx, store));
    }),

  /** The platform's consent page URL to send the browser to; it comes back to /api/integrations/oauth/:platform/callback. */
  startOAuth: storeProcedure
    .input(startOAuthInput)
    .output(startOAuthOutput)
    .mutation(async ({ ctx, input }) => {
      const store = await targetStore(ctx, input.storeId, true);
      const authorizeUrl = await startOAuth(ctx.em, { store, user: ctx.user, origin: ctx.origin ?? '', platform: input.platform, shop: input.shop, sessionKey: ctx.sessionKey });
      return { authorizeUrl };
    }),

  /** API credentials (WooCommerce, Klaviyo, Omnisend, Mailchimp): verified with the platform before anything is stored. */
  connect: storeProcedure
    .input(connectInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) => change(ctx, input, (store) => connectWithCredentials(ctx.em, store, input.platform, input.credentials))),

  /** A CSV of e-mail campaign metrics for the generic 'email' platform (replaces the previous file). */
  uploadEmailCsv: storeProcedure
    .input(uploadEmailCsvInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) =>
      change(ctx, { platform: 'email', storeId: input.storeId }, (store) => uploadEmailCsv(ctx.em, store, input.fileName, input.csvText)),
    ),

  disconnect: storeProcedure
    .input(platformInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) => change(ctx, input, (store) => disconnect(ctx.em, store, input.platform))),

  syncNow: storeProcedure
    .input(platformInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) => change(ctx, input, (store) => syncNow(ctx.em, store, input.platform))),

  cancelSync: storeProcedure
    .input(platformInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) => change(ctx, input, (store) => cancelSync(ctx.em, store, input.platform))),

  /** The accounts the platform login reaches (asked of the platform now), with the ones chosen for syncing. */
  accounts: storeProcedure
    .input(platformInput)
    .output(listAccountsOutput)
    .query(async ({ ctx, input }) => listConnectionAccounts(ctx.em, await targetStore(ctx, input.storeId, false), input.platform)),

  /** Syncs exactly these accounts (newly chosen ones are backfilled). */
  chooseAccounts: storeProcedure
    .input(chooseAccountsInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) => change(ctx, input, (store) => setChosenAccounts(ctx.em, store, input.platform, input.accountIds))),

  setBackfillMonths: storeProcedure
    .input(setBackfillMonthsInput)
    .output(integrationOutput)
    .mutation(({ ctx, input }) => change(ctx, input, (store) => setBackfillMonths(ctx.em, store, input.platform, input.months))),
});

