import { audiencePushInput, audiencePushOutput, audienceStatusInput, audienceStatusOutput } from '../../../shared/audiences.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { audienceStatus, requestAudiencePush } from './audience-push.service.ts';

// Segment pushes of the active store. Pushing is a mutation: guests (view-only) are refused by
// storeProcedure like every other change.
export const audiencesRouter = router({
  /** Queues a push of the segment (or answers the one already queued or running). */
  push: storeProcedure
    .input(audiencePushInput)
    .output(audiencePushOutput)
    .mutation(({ ctx, input }) => requestAudiencePush(ctx.em, ctx.store, ctx.user.id, input)),

  /** The latest push per platform and segment, with its progress (done / total). */
  status: storeProcedure
    .input(audienceStatusInput)
    .output(audienceStatusOutput)
    .query(async ({ ctx, input }) => ({ pushes: await audienceStatus(ctx.em, ctx.store.id, input?.segment) })),
});
