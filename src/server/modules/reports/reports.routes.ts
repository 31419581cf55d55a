import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sendCsv } from '../../csv.ts';
import { AppError } from '../../errors.ts';
import { sendError } from '../../plugins/rest.ts';
import type { Context } from '../../trpc/context.ts';
import { createCaller } from '../../trpc/router.ts';
import { reportCsv } from './reports.service.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

export const DEFINITION_REQUIRED_MESSAGE = 'Give a reportId or a definition (JSON) to export';

function parseDefinition(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', 'The definition must be JSON');
  }
}

/**
 * GET /api/reports/export.csv?reportId=12 (a saved report) or ?definition=<JSON of a report
 * definition>, optional &currency=EUR: the reports.run procedure, as a download.
 */
export const reportsRoutes = fp(async (app: FastifyInstance, options: { createContext: CreateContext }) => {
  app.get('/api/reports/export.csv', async (request, reply) => {
    try {
      const query = request.query as Record<string, string | undefined>;
      const caller = createCaller(await options.createContext({ req: request, res: reply }));
      let definition: unknown;
      let name = 'report';
      if (query.reportId !== undefined) {
        const saved = await caller.reports.get({ id: query.reportId as never });
        definition = saved.definition;
        name = saved.name;
      } else if (query.definition !== undefined) {
        definition = parseDefinition(query.definition);
      } else {
        throw new AppError('BAD_REQUEST', DEFINITION_REQUIRED_MESSAGE);
      }
      const result = await caller.reports.run({ ...(definition as object), currency: query.currency } as never);
      return sendCsv(reply, name, `${result.range.from}-to-${result.range.to}`, reportCsv(result));
    } catch (error) {
      return sendError(reply, error);
    }
  });
});
