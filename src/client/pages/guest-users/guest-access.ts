import { tierFromPlanName, tierIncludesAiTools } from '../../../shared/plans.ts';
import { useSession } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

/** Subscription query settings of the spec (fresh 5 s, kept 10 s, no retry, no refetch on focus). */
const SUBSCRIPTION_OPTIONS = { staleTime: 5_000, gcTime: 10_000, retry: false, refetchOnWindowFocus: false } as const;

/**
 * Whether the signed-in user may invite guests: the same rule as the account menu's "Guest Users"
 * entry (not a guest account, and tools available: an admin in their own view or a plan above basic).
 */
export function useGuestInviteAccess() {
  const session = useSession();
  const user = session.status === 'signedIn' ? session.user : null;
  const subscription = trpc.subscription.current.useQuery(undefined, { ...SUBSCRIPTION_OPTIONS, enabled: user !== null });
  const guestMode = trpc.admin.guestModeStatus.useQuery(undefined, { staleTime: 30_000, retry: false, enabled: user?.isAdmin === true });
  const inGuestMode = guestMode.data?.isGuestMode === true;
  const ready = user !== null && (subscription.status !== 'pending' || (user.isAdmin && !inGuestMode)) && (!user.isAdmin || guestMode.status !== 'pending');
  const tier = subscription.data?.hasActiveSubscription ? tierFromPlanName(subscription.data.subscription?.plan.name) : null;
  const toolsAvailable = (user?.isAdmin === true && !inGuestMode) || tierIncludesAiTools(tier);
  return {
    ready,
    user,
    inGuestMode,
    canInvite: user !== null && !user.isGuest && toolsAvailable && !inGuestMode,
  };
}
