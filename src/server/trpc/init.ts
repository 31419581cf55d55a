import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describeError } from '../errors.ts';
import type { Context } from './context.ts';

export type ProcedureMeta = OpenApiMeta<{
  /** How the REST adapter answers besides the body. */
  rest?: { successStatus?: number; noCache?: boolean };
  /** Mutations are refused in guest mode unless they say so (exiting it, switching the viewed store). */
  allowedInGuestMode?: boolean;
}>;

export const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces stay in the server log, never in a response.
    isDev: false,
    errorFormatter({ shape, error }) {
      const described = describeError(error);
      return {
        ...shape,
        message: described.message,
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          fieldErrors: described.fieldErrors ?? null,
          retryAfterSeconds: described.retryAfterSeconds ?? null,
        },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;
