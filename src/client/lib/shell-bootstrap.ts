import type { QueryClient } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { USER_QUERY } from './query-settings.ts';
import { trpc, type TrpcClient } from './trpc.ts';

/**
 * Starts the app's first request, `shell.bootstrap` (the user, subscription, stores, active store,
 * connection status, guest status and data status in one answer), and puts each part in the cache
 * under its own procedure's query key before the signed-in user's query resolves, so the hooks that
 * read them find them there instead of asking again: a page's figures then wait on two round trips
 * (this one, then their own). A part the answer leaves out is fetched by its hook as before.
 */
export function bootstrapShell(queryClient: QueryClient, client: TrpcClient): void {
  const seeded = client.shell.bootstrap.query().then((answer) => {
    if (!answer.user) return answer;
    const seed = (queryKey: readonly unknown[], data: unknown) => {
      if (data !== undefined) queryClient.setQueryData(queryKey, data);
    };
    seed(getQueryKey(trpc.subscription.current, undefined, 'query'), answer.subscription);
    seed(getQueryKey(trpc.stores.list, undefined, 'query'), answer.stores);
    seed(getQueryKey(trpc.stores.active, undefined, 'query'), answer.activeStore);
    seed(getQueryKey(trpc.connections.status, undefined, 'query'), answer.connections);
    seed(getQueryKey(trpc.admin.guestModeStatus, undefined, 'query'), answer.guestStatus);
    seed(getQueryKey(trpc.commerce.dataStatus, undefined, 'query'), answer.dataStatus);
    return answer;
  });
  // The session query's first fetch is this request (its hook joins it rather than asking again).
  // Signed out, or the bootstrap failed: auth.me itself answers, as it always did.
  void queryClient.prefetchQuery({
    ...USER_QUERY,
    queryKey: getQueryKey(trpc.auth.me, undefined, 'query'),
    queryFn: () => seeded.then((answer) => answer.user ?? client.auth.me.query(), () => client.auth.me.query()),
  });
}
