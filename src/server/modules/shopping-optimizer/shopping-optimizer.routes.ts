import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

/** GET /feeds/google/<token>.xml and .tsv, without a session: translates to shoppingOptimizer.feed. */
export const shoppingFeedRoutes = fp(async (app: FastifyInstance, options: { createContext: CreateContext }) => {
  app.get<{ Params: { file: string } }>('/feeds/google/:file', async (request, reply) => {
    const match = /^(.+)\.(xml|tsv)$/.exec(request.params.file);
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Robots-Tag', 'noindex');
    if (!match) return reply.code(404).send({ message: 'Feed not found' });
    try {
      const context = await options.createContext({ req: request, res: reply });
      const feed = await createCaller(context).shoppingOptimizer.feed({ token: match[1]!, format: match[2] as 'xml' | 'tsv' });
      return reply.type(feed.contentType).send(feed.body);
    } catch (error) {
      return sendError(reply, error);
    }
  });
});
