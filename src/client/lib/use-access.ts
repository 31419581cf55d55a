import { accessFrom, type Access } from './access.ts';
import { useAuth } from './auth.tsx';
import { GUEST_STATUS_QUERY, STORES_QUERY, SUBSCRIPTION_QUERY } from './query-settings.ts';
import { trpc } from './trpc.ts';

/** GET /api/subscription/current; only for a signed-in user. */
function useSubscription() {
  const { user } = useAuth();
  return trpc.subscription.current.useQuery(undefined, { ...SUBSCRIPTION_QUERY, enabled: user !== null });
}

/** GET /api/admin/guest-mode-status; only for admins. A failure counts as "not in guest mode". */
export function useGuestStatus() {
  const { user } = useAuth();
  const query = trpc.admin.guestModeStatus.useQuery(undefined, { ...GUEST_STATUS_QUERY, enabled: user?.isAdmin === true });
  const inGuestMode = query.data?.isGuestMode === true;
  return { query, inGuestMode, guestUsername: inGuestMode ? (query.data?.guestUsername ?? null) : null };
}

/** The user's stores and the active store (fresh 2 min). */
export function useStores() {
  const { user } = useAuth();
  const enabled = user !== null;
  const list = trpc.stores.list.useQuery(undefined, { ...STORES_QUERY, enabled });
  const active = trpc.stores.active.useQuery(undefined, { ...STORES_QUERY, enabled });
  return { list, active, activeStore: active.data?.store ?? null };
}

export interface AccessState extends Access {
  /** False while the lookups a guard needs are still running. */
  ready: boolean;
}

/** The signed-in user's access, from the subscription and (for admins) guest-mode status. */
export function useAccess(): AccessState {
  const { user } = useAuth();
  const subscription = useSubscription();
  const guest = useGuestStatus();
  const isAdmin = user?.isAdmin === true;
  const guestSettled = !isAdmin || guest.query.status !== 'pending';
  const subscriptionSettled = user === null || subscription.status !== 'pending';
  // An admin's own view needs no subscription; in guest mode the viewed user's plan decides about tools.
  const ready = user !== null && guestSettled && (isAdmin && !guest.inGuestMode ? true : subscriptionSettled);
  const access = accessFrom({
    user,
    subscription: subscription.isError ? undefined : subscription.data,
    guestMode: guest.inGuestMode,
  });
  return { ...access, ready };
}
