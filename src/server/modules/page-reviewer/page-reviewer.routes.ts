import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SCREENSHOT_KINDS, type ScreenshotKind } from '../../../shared/page-reviewer.ts';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';
import { reviewScreenshot } from './page-reviewer.service.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

// GET /api/landing-page-reviews/:id/screenshots/:kind.jpg: a review's screenshot, for the caller's
// active store only (the same tools rule as the procedures).
export const pageReviewerRoutes = fp(async (app: FastifyInstance, options: { createContext: CreateContext }) => {
  app.get<{ Params: { id: string; kind: string } }>('/api/landing-page-reviews/:id/screenshots/:kind.jpg', async (request, reply) => {
    reply.header('Cache-Control', 'private, no-store');
    try {
      const kind = request.params.kind as ScreenshotKind;
      if (!SCREENSHOT_KINDS.includes(kind)) return reply.code(404).send({ message: 'No such screenshot.' });
      const context = await options.createContext({ req: request, res: reply });
      const scope = await createCaller(context).pageReviewer.screenshotScope({ id: Number(request.params.id) });
      const image = await reviewScreenshot(context.em, scope.storeId, scope.id, kind);
      if (!image) return reply.code(404).send({ message: 'This review has no screenshot.' });
      return reply.type('image/jpeg').send(image);
    } catch (error) {
      return sendError(reply, error);
    }
  });
});
