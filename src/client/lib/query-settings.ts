/**
 * Spec section 9: how long each server answer stays fresh, how long it is kept, and when it is
 * fetched again. The defaults for every other query are in query-client.ts.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Defaults: 3 retries, backoff 1 s doubled and capped at 30 s, fresh 10 s, unused data kept 5 min. */
export const DEFAULT_QUERY_RETRIES = 3;
export const FIRST_RETRY_DELAY_MS = 1 * SECOND;
export const MAX_RETRY_DELAY_MS = 30 * SECOND;
export const DEFAULT_STALE_TIME_MS = 10 * SECOND;
export const DEFAULT_GC_TIME_MS = 5 * MINUTE;

/** GET /api/user (auth.me): fresh 60 s, kept 1 h, no retry (a 401 simply means signed out). */
// A 401 means signed out: not worth asking again each time another component mounts.
export const USER_QUERY = { staleTime: 60 * SECOND, gcTime: 1 * HOUR, retry: false, retryOnMount: false } as const;

/** The store list and the active store: fresh 2 min. */
export const STORES_QUERY = { staleTime: 2 * MINUTE } as const;

/** GET /api/subscription/current: fresh 5 s, kept 10 s, no retry, no refetch on focus. */
export const SUBSCRIPTION_QUERY = {
  staleTime: 5 * SECOND,
  gcTime: 10 * SECOND,
  retry: false,
  refetchOnWindowFocus: false,
} as const;

/** GET /api/connection-status: polled every 30 s, fresh 15 s, 3 retries, no refetch on focus. */
export const CONNECTION_STATUS_QUERY = {
  refetchInterval: 30 * SECOND,
  staleTime: 15 * SECOND,
  retry: 3,
  refetchOnWindowFocus: false,
} as const;

/** GET /api/admin/guest-mode-status: cached 30 s; a failure means "not in guest mode", so no retry. */
export const GUEST_STATUS_QUERY = { staleTime: 30 * SECOND, retry: false } as const;

/**
 * GET /api/stores/dashboard-limits: always asked again on mount, focus and reconnect, with a
 * `Cache-Control: no-cache` request header (see `noCache` in trpc.ts).
 */
export const DASHBOARD_LIMITS_QUERY = {
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
  refetchOnReconnect: 'always',
  trpc: { context: { noCache: true } },
} as const;
