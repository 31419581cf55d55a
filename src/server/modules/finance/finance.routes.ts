import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sendCsv } from '../../csv.ts';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';
import { statementCsv } from './statement-csv.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

/** GET /api/profit-and-loss.csv?from=YYYY-MM&to=YYYY-MM&currency=GBP: the statement procedure, as a download. */
export const financeRoutes = fp(async (app: FastifyInstance, options: { createContext: CreateContext }) => {
  app.get('/api/profit-and-loss.csv', async (request, reply) => {
    try {
      const context = await options.createContext({ req: request, res: reply });
      const statement = await createCaller(context).finance.statement(request.query as never);
      return sendCsv(reply, 'profit-and-loss', `${statement.from}-to-${statement.to}`, statementCsv(statement));
    } catch (error) {
      return sendError(reply, error);
    }
  });
});
