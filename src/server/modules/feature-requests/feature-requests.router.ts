import { z } from 'zod';
import {
  createFeatureRequestInput,
  featureRequestIdSchema,
  featureRequestOutput,
  featureRequestStatusSchema,
  listFeatureRequestsInput,
} from '../../../shared/feature-requests.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure, authedProcedure } from '../../trpc/procedures.ts';
import {
  createFeatureRequest,
  listFeatureRequests,
  setFeatureRequestStatus,
  unvoteFeatureRequest,
  voteForFeatureRequest,
} from './feature-requests.service.ts';

const byId = z.object({ id: featureRequestIdSchema });

/** The request-a-feature board: every signed-in user proposes and votes; admins set the status. */
export const featureRequestsRouter = router({
  list: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/feature-requests', tags: ['feature-requests'], summary: 'Feature requests with their votes' } })
    .input(listFeatureRequestsInput)
    .output(z.array(featureRequestOutput))
    .query(({ ctx, input }) => listFeatureRequests(ctx.em, ctx.user, input)),

  create: authedProcedure
    .meta({
      openapi: { method: 'POST', path: '/feature-requests', tags: ['feature-requests'], summary: 'Propose a feature' },
      rest: { successStatus: 201 },
    })
    .input(createFeatureRequestInput)
    .output(featureRequestOutput)
    .mutation(({ ctx, input }) => createFeatureRequest(ctx.em, ctx.user, input)),

  vote: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/feature-requests/{id}/vote', tags: ['feature-requests'], summary: 'Vote for a request' } })
    .input(byId)
    .output(featureRequestOutput)
    .mutation(({ ctx, input }) => voteForFeatureRequest(ctx.em, ctx.user, input.id)),

  unvote: authedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/feature-requests/{id}/vote', tags: ['feature-requests'], summary: 'Take a vote back' } })
    .input(byId)
    .output(featureRequestOutput)
    .mutation(({ ctx, input }) => unvoteFeatureRequest(ctx.em, ctx.user, input.id)),

  setStatus: adminProcedure
    .meta({ openapi: { method: 'PATCH', path: '/feature-requests/{id}', tags: ['feature-requests'], summary: 'Admin: set the status' } })
    .input(z.object({ id: featureRequestIdSchema, status: featureRequestStatusSchema }))
    .output(featureRequestOutput)
    .mutation(({ ctx, input }) => setFeatureRequestStatus(ctx.em, ctx.user?.id ?? null, input.id, input.status)),
});
