import { TRPCClientError } from '@trpc/client';
import { createContext, useContext } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import { USER_QUERY } from './query-settings.ts';
import { trpc } from './trpc.ts';

export type AppClientError = TRPCClientError<AppRouter>;
export type CurrentUser = inferRouterOutputs<AppRouter>['auth']['me'];

export interface FieldError {
  field: string;
  message: string;
}

function asClientError(error: unknown): AppClientError | null {
  return error instanceof TRPCClientError ? (error as AppClientError) : null;
}

export function isUnauthorized(error: unknown): boolean {
  return asClientError(error)?.data?.code === 'UNAUTHORIZED';
}

/** The server's user-facing text, or null when the request never got a readable answer. */
export function serverMessage(error: unknown): string | null {
  const clientError = asClientError(error);
  // Without `data` the request failed before the server answered (network down, HTML error page).
  if (!clientError?.data) return null;
  return clientError.message || null;
}

/** Per-field messages keyed by field name (the first one per field). */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  const list = asClientError(error)?.data?.fieldErrors ?? [];
  const byField: Record<string, string> = {};
  for (const { field, message } of list) byField[field] ??= message;
  return byField;
}

/** The signed-in user query, with the spec's cache settings (fresh 60 s, kept 1 h, no retry). */
export const CURRENT_USER_QUERY_OPTIONS = USER_QUERY;

export type SessionState =
  | { status: 'loading' }
  | { status: 'signedOut' }
  | { status: 'error'; error: unknown; retry: () => void }
  | { status: 'signedIn'; user: CurrentUser };

/** The app's one session state, provided by AuthProvider (lib/auth.tsx). */
export const SessionContext = createContext<SessionState | null>(null);

/**
 * Unknown (loading), signed in, or signed out: an UNAUTHORIZED answer means signed out, not a failure.
 * Inside AuthProvider every caller gets the provider's state, so the guards and the sign-in page never
 * disagree while a sign-in lands in the cache.
 */
export function useSession(): SessionState {
  const shared = useContext(SessionContext);
  // Inside the AuthProvider the shared state is the answer; a second observer would refetch on mount.
  const own = useSessionQuery({ enabled: shared === null });
  return shared ?? own;
}

/** The "who is signed in" query itself (GET /api/user through tRPC). */
export function useSessionQuery(options: { enabled?: boolean } = {}): SessionState {
  const query = trpc.auth.me.useQuery(undefined, { ...CURRENT_USER_QUERY_OPTIONS, enabled: options.enabled ?? true });
  if (query.error && isUnauthorized(query.error)) return { status: 'signedOut' };
  if (query.data) return { status: 'signedIn', user: query.data };
  if (query.isError) return { status: 'error', error: query.error, retry: () => void query.refetch() };
  return { status: 'loading' };
}

/** Every field error of a validation failure, in order ("name: Store name is required"). */
export function fieldErrorsListOf(error: unknown): FieldError[] {
  return [...(asClientError(error)?.data?.fieldErrors ?? [])];
}

/** The HTTP status the server answered with, or null when it never answered. */
export function httpStatusOf(error: unknown): number | null {
  return asClientError(error)?.data?.httpStatus ?? null;
}
