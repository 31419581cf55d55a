export const PLAN_TIERS = ['basic', 'professional', 'business', 'enterprise'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];

export interface PlanDefinition {
  tier: PlanTier;
  name: string;
  /** Monthly price in minor units (pence) of `currency`. */
  monthlyPriceMinor: number;
  currency: 'GBP';
  maxDashboards: number;
  includesAiTools: boolean;
}

export const PLAN_CATALOGUE: readonly PlanDefinition[] = [
  { tier: 'basic', name: 'Basic', monthlyPriceMinor: 2900, currency: 'GBP', maxDashboards: 1, includesAiTools: false },
  { tier: 'professional', name: 'Professional', monthlyPriceMinor: 7900, currency: 'GBP', maxDashboards: 3, includesAiTools: true },
  { tier: 'business', name: 'Business', monthlyPriceMinor: 19900, currency: 'GBP', maxDashboards: 10, includesAiTools: true },
  { tier: 'enterprise', name: 'Enterprise', monthlyPriceMinor: 49900, currency: 'GBP', maxDashboards: 50, includesAiTools: true },
];

/** Dashboards allowed when the user has no plan (or the server gives no figure). */
export const DEFAULT_MAX_DASHBOARDS = 1;

export const TRIAL_DAYS = 14;

export const SUBSCRIPTION_STATUSES = ['trial', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The tier derives from the plan name by a case-insensitive match on its start ("Business Annual" -> business). */
export function tierFromPlanName(planName: string | null | undefined): PlanTier | null {
  if (!planName) return null;
  const lower = planName.trim().toLowerCase();
  return PLAN_TIERS.find((tier) => lower.startsWith(tier)) ?? null;
}

export function maxDashboardsForTier(tier: PlanTier | null): number {
  return PLAN_CATALOGUE.find((plan) => plan.tier === tier)?.maxDashboards ?? DEFAULT_MAX_DASHBOARDS;
}

/** AI tools are included in every plan above basic. */
export function tierIncludesAiTools(tier: PlanTier | null): boolean {
  return tier !== null && tier !== 'basic';
}
