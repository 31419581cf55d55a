import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { z } from 'zod';
import { describeError } from '../errors.ts';
import type { Context } from '../trpc/context.ts';
import type { ProcedureMeta } from '../trpc/init.ts';
import { appRouter, createCaller } from '../trpc/router.ts';

type CreateContext = (options: { req: FastifyRequest; res: FastifyReply }) => Promise<Context>;

interface RestRoute {
  procedurePath: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  takesInput: boolean;
  meta: ProcedureMeta;
}

export const NOT_FOUND_MESSAGE = 'Not found';

/** The REST surface is declared on the procedures themselves (their `openapi` meta). */
function restRoutes(): RestRoute[] {
  return Object.entries(appRouter._def.procedures).flatMap(([procedurePath, procedure]) => {
    const definition = (procedure as unknown as { _def: { meta?: ProcedureMeta; inputs: unknown[] } })._def;
    const openapi = definition.meta?.openapi;
    if (!openapi) return [];
    return [
      {
        procedurePath,
        method: openapi.method,
        url: `/api${openapi.path.replace(/\{(\w+)\}/g, ':$1')}`,
        takesInput: !definition.inputs.every((schema) => schema instanceof z.ZodVoid),
        meta: definition.meta!,
      },
    ];
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const trpcError = error instanceof TRPCError ? error : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error });
  const described = describeError(trpcError);
  if (described.status >= 500) reply.request.log.error({ err: trpcError.cause ?? trpcError }, 'Procedure failed');
  if (described.retryAfterSeconds !== undefined) reply.header('Retry-After', String(described.retryAfterSeconds));
  const body = described.fieldErrors
    ? { message: described.message, errors: described.fieldErrors }
    : { message: described.message };
  return reply.code(described.status).send(body);
}

/** The input a procedure receives: path parameters over the query (GET, DELETE) or the JSON body. */
function inputOf(request: FastifyRequest, method: RestRoute['method']): Record<string, unknown> {
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (method === 'GET' || method === 'DELETE') return { ...(request.query as Record<string, unknown>), ...params };
  const body = request.body ?? {};
  if (!isPlainObject(body)) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'The request body must be a JSON object' });
  }
  return { ...body, ...params };
}

function callProcedure(context: Context, route: RestRoute, input: unknown): Promise<unknown> {
  const caller = createCaller(context) as unknown as Record<string, unknown>;
  const procedure = route.procedurePath
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (input?: unknown) => Promise<unknown>;
  return route.takesInput ? procedure(input) : procedure();
}

/** The documented /api paths, answered by the same procedures as /trpc. The adapter only translates. */
export const restPlugin = fp(async (app: FastifyInstance, options: { createContext: CreateContext }) => {
  const routes = restRoutes();

  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      handler: async (request, reply) => {
        reply.header('Cache-Control', 'no-store');
        try {
          const input = inputOf(request, route.method);
          const context = await options.createContext({ req: request, res: reply });
          const result = await callProcedure(context, route, input);
          if (route.meta.rest?.noCache) {
            reply.header('Cache-Control', 'no-store, no-cache, must-revalidate, max-age=0');
            reply.header('Pragma', 'no-cache');
            reply.header('Expires', '0');
          }
          return reply.code(route.meta.rest?.successStatus ?? 200).send(result);
        } catch (error) {
          return sendError(reply, error);
        }
      },
    });
  }

  // Logout is a browser navigation, not a data call: end the session, then land on the sign-in page.
  app.get('/api/logout', async (request, reply) => {
    try {
      const context = await options.createContext({ req: request, res: reply });
      await createCaller(context).auth.logout();
    } catch (error) {
      request.log.warn({ err: error }, 'Logout failed; redirecting anyway');
    }
    return reply.header('Cache-Control', 'no-store').redirect('/auth', 302);
  });

  let openApiDocument: unknown = null;
  app.get('/api/openapi.json', async () => {
    openApiDocument ??= generateOpenApiDocument(appRouter, {
      title: 'StorePulse API',
      description: 'The documented REST paths of StorePulse. Every path is answered by the same procedure as /trpc.',
      version: '1.0.0',
      baseUrl: '/api',
    });
    return openApiDocument;
  });
});
