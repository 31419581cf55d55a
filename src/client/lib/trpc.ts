import { httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import type { AppRouter } from '../../server/trpc/router.ts';

/** Typed React hooks for every procedure of the server's router. */
export const trpc = createTRPCReact<AppRouter>();

const TRPC_URL = '/trpc';
const withCookies: typeof fetch = (input, init) => fetch(input, { ...init, credentials: 'include' });

/**
 * Calls go to the same origin with cookies. A query made with `trpc: { context: { noCache: true } }`
 * (the dashboard limits) travels alone with a `Cache-Control: no-cache` request header.
 */
export type TrpcClient = ReturnType<typeof createTrpcClient>;

export function createTrpcClient() {
  return trpc.createClient({
    links: [
      splitLink({
        condition: (op) => op.context.noCache === true,
        true: httpLink({ url: TRPC_URL, fetch: withCookies, headers: { 'Cache-Control': 'no-cache' } }),
        false: httpBatchLink({ url: TRPC_URL, fetch: withCookies }),
      }),
    ],
  });
}
