import { tierFromPlanName, tierIncludesAiTools, type PlanTier } from '../../shared/plans.ts';

/** Who may see what (spec section 6), from the account, its subscription and guest mode. */
export interface Access {
  isAdmin: boolean;
  /** Viewing another user's data read-only. */
  guestMode: boolean;
  hasActiveSubscription: boolean;
  /** Admin, or an active subscription: the subscription-gated routes open. */
  hasAccess: boolean;
  /** The plan tier of the active subscription; null without one. */
  tier: PlanTier | null;
  /** AI tools: admins not in guest mode, or subscribers on a plan other than basic. */
  toolsAvailable: boolean;
  /** Meta Comments and Shopping Optimizer: admins only (not while viewing as a user). */
  adminToolsAvailable: boolean;
  /** The subscription's end date while it is a trial, else null. */
  trialEndsAt: string | null;
}

/** What the guards read of GET /api/subscription/current. */
export interface SubscriptionSummary {
  hasActiveSubscription: boolean;
  subscription: { status: string; currentPeriodEnd: string; plan: { name: string } } | null;
}

export interface AccessInput {
  user: { isAdmin: boolean } | null;
  /** The subscription lookup; undefined while unknown or when it failed (= no subscription). */
  subscription: SubscriptionSummary | null | undefined;
  guestMode: boolean;
}

export function accessFrom({ user, subscription, guestMode }: AccessInput): Access {
  const isAdmin = user?.isAdmin === true;
  const hasActiveSubscription = user !== null && subscription?.hasActiveSubscription === true;
  const tier = hasActiveSubscription ? tierFromPlanName(subscription?.subscription?.plan.name) : null;
  const adminOwnView = isAdmin && !guestMode;
  const trial = hasActiveSubscription && subscription?.subscription?.status === 'trial';
  return {
    isAdmin,
    guestMode: isAdmin && guestMode,
    hasActiveSubscription,
    hasAccess: isAdmin || hasActiveSubscription,
    tier,
    toolsAvailable: adminOwnView || (hasActiveSubscription && tierIncludesAiTools(tier)),
    adminToolsAvailable: adminOwnView,
    trialEndsAt: trial ? (subscription?.subscription?.currentPeriodEnd ?? null) : null,
  };
}

/** What a route needs beyond being signed in. */
export type RouteRequirement = 'signedIn' | 'subscription' | 'tools' | 'admin';

/** Where a signed-in user ends up: the page, /pricing (no subscription) or / (no right to it). */
export type RouteDecision = 'allow' | 'pricing' | 'home';

export function routeDecision(requirement: RouteRequirement, access: Access): RouteDecision {
  switch (requirement) {
    case 'signedIn':
      return 'allow';
    case 'admin':
      return access.isAdmin ? 'allow' : 'home';
    case 'subscription':
      return access.hasAccess ? 'allow' : 'pricing';
    case 'tools':
      if (!access.hasAccess) return 'pricing';
      return access.toolsAvailable ? 'allow' : 'home';
  }
}
