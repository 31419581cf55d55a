import { QueryClient } from '@tanstack/react-query';
import { defaultQueryFn } from './api.ts';
import {
  DEFAULT_GC_TIME_MS,
  DEFAULT_QUERY_RETRIES,
  DEFAULT_STALE_TIME_MS,
  FIRST_RETRY_DELAY_MS,
  MAX_RETRY_DELAY_MS,
} from './query-settings.ts';

/** 1 s, 2 s, 4 s ... capped at 30 s. */
export function retryDelay(attemptIndex: number): number {
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** attemptIndex, MAX_RETRY_DELAY_MS);
}

/** A 4xx answer from a tRPC procedure (a bad or refused request): asking again gives the same answer. */
export function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return status !== undefined && status >= 400 && status < 500;
}

/** The spec's 3 retries, for failures that may pass on a second try (network, 5xx): never a 4xx. */
export function retryFailedQuery(failureCount: number, error: unknown): boolean {
  return !isClientError(error) && failureCount < DEFAULT_QUERY_RETRIES;
}

/**
 * The spec's defaults; individual queries override them with the settings of query-settings.ts.
 * tRPC hooks bring their own query function; a plain `useQuery({ queryKey: ['/api/...'] })` GETs
 * that path through the REST fetcher.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: defaultQueryFn,
        retry: retryFailedQuery,
        retryDelay,
        staleTime: DEFAULT_STALE_TIME_MS,
        gcTime: DEFAULT_GC_TIME_MS,
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
