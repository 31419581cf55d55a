import { z } from 'zod';
import { billingIntervalSchema } from './billing.ts';
import { SUBSCRIPTION_STATUSES } from './plans.ts';

export const planOutput = z.object({
  id: z.number(),
  name: z.string(),
  tier: z.string(),
  monthlyPriceMinor: z.number(),
  currency: z.string(),
  maxDashboards: z.number(),
  includesAiTools: z.boolean(),
});
export type Plan = z.infer<typeof planOutput>;

export const subscriptionOutput = z.object({
  id: z.number(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  currentPeriodEnd: z.string(),
  provider: z.string(),
  plan: planOutput,
  /** Stripe: cancelled in the Customer Portal, ends with the period. */
  cancelAtPeriodEnd: z.boolean(),
  /** past_due: when access ends unless the payment succeeds. */
  graceUntil: z.string().nullable(),
  billingInterval: billingIntervalSchema.nullable(),
});

/** 'own': the user's plan; 'guest': through a store shared with them (subscription is then null); 'none'. */
export const SUBSCRIPTION_ACCESS = ['own', 'guest', 'none'] as const;
export type SubscriptionAccess = (typeof SUBSCRIPTION_ACCESS)[number];

export const currentSubscriptionOutput = z.object({
  hasActiveSubscription: z.boolean(),
  subscription: subscriptionOutput.nullable(),
  access: z.enum(SUBSCRIPTION_ACCESS),
});
export type CurrentSubscription = z.infer<typeof currentSubscriptionOutput>;

export const planIdSchema = z.coerce
  .number({ error: 'Plan id must be a number' })
  .int('Plan id must be a whole number')
  .positive('Plan id must be a positive number');
