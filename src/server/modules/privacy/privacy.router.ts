import { router } from '../../trpc/init.ts';
import { authedProcedure } from '../../trpc/procedures.ts';
import { latestAccountExport, requestAccountExport } from './account-export.ts';
import { listPrivacyRequests } from './privacy.service.ts';

/** Privacy requests about the caller's stores' customers (the downloads: privacy.routes.ts). */
export const privacyRouter = router({
  requests: authedProcedure.query(({ ctx }) => listPrivacyRequests(ctx.em, ctx.user, ctx.guestMode)),
  /** The user's own data export: the latest that has not expired (none in guest mode: it is the user's, not the admin's). */
  accountExport: authedProcedure.query(({ ctx }) => (ctx.guestMode ? null : latestAccountExport(ctx.em, ctx.user))),
  requestAccountExport: authedProcedure.mutation(({ ctx }) => requestAccountExport(ctx.em, ctx.user)),
});
