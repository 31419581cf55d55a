import { router } from '../../trpc/init.ts';
import { authedProcedure } from '../../trpc/procedures.ts';
import { listPrivacyRequests } from './privacy.service.ts';

/** Privacy requests about the caller's stores' customers (the downloads: privacy.routes.ts). */
export const privacyRouter = router({
  requests: authedProcedure.query(({ ctx }) => listPrivacyRequests(ctx.em, ctx.user, ctx.guestMode)),
});
