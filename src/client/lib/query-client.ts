import { QueryClient } from '@tanstack/react-query';

const MAX_QUERY_RETRIES = 3;
const FIRST_RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 30_000;

/** 1 s, 2 s, 4 s ... capped at 30 s. */
export function retryDelay(attemptIndex: number): number {
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** attemptIndex, MAX_RETRY_DELAY_MS);
}

/** The spec's defaults; individual queries (user, stores, subscription) override them where it says so. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: MAX_QUERY_RETRIES,
        retryDelay,
        staleTime: 10_000,
        gcTime: 5 * 60_000,
        refetchOnWindowFocus: true,
        refetchOnMount: true,
        refetchOnReconnect: true,
      },
      mutations: {
        retry: 0,
      },
    },
  });
}
