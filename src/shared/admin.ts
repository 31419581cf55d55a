import { z } from 'zod';
import { PLAN_TIERS, SUBSCRIPTION_STATUSES } from './plans.ts';
import { SUBSCRIPTION_ACCESS } from './subscriptions.ts';

export const userIdSchema = z.coerce
  .number({ error: 'userId must be a number' })
  .int('userId must be a whole number')
  .positive('userId must be a positive number');

export const planTierSchema = z.enum(PLAN_TIERS, { error: `Plan must be one of ${PLAN_TIERS.join(', ')}` });

export const grantDaysSchema = z
  .number({ error: 'Days must be a number' })
  .int('Days must be a whole number')
  .min(1, 'Days must be at least 1')
  .max(3650, 'Days must be at most 3650');

export const grantPlanToUserInput = z.object({
  userId: userIdSchema,
  tier: planTierSchema,
  days: grantDaysSchema.default(30),
});

export const grantPlanOutput = z.object({
  username: z.string(),
  plan: z.string(),
  tier: z.string().nullable(),
  status: z.string(),
  currentPeriodEnd: z.string(),
});

export const AUDIT_LOG_DEFAULT_LIMIT = 50;
export const AUDIT_LOG_MAX_LIMIT = 200;

export const auditLogInput = z.object({
  limit: z.coerce.number().int().min(1).max(AUDIT_LOG_MAX_LIMIT).default(AUDIT_LOG_DEFAULT_LIMIT),
});

export const auditEntryOutput = z.object({
  id: z.number(),
  action: z.string(),
  actorUserId: z.number().nullable(),
  actorUsername: z.string().nullable(),
  targetUserId: z.number().nullable(),
  targetUsername: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  ipAddress: z.string().nullable(),
  createdAt: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntryOutput>;

export const adminStatsOutput = z.object({
  users: z.number(),
  admins: z.number(),
  /** Live subscriptions that are not trials (paid or granted by an admin). */
  activeSubscriptions: z.number(),
  trials: z.number(),
  /** Sum of the monthly prices of live paid subscriptions, in minor units of `currency`. */
  mrrMinor: z.number(),
  currency: z.literal('GBP'),
  newUsers7d: z.number(),
  newUsers30d: z.number(),
  recentSignups: z.array(
    z.object({
      id: z.number(),
      username: z.string(),
      email: z.string(),
      createdAt: z.string(),
      plan: z.string().nullable(),
    }),
  ),
});
export type AdminStats = z.infer<typeof adminStatsOutput>;

export const userDetailOutput = z.object({
  user: z.object({
    id: z.number(),
    username: z.string(),
    email: z.string(),
    isAdmin: z.boolean(),
    isGuest: z.boolean(),
    marketingEmails: z.boolean(),
    createdAt: z.string(),
    trialStartedAt: z.string().nullable(),
    /** Set while the account waits for its deletion (privacy/account-deletion.ts). */
    deletionScheduledFor: z.string().nullable(),
    /** Set when the account joined the affiliate programme: the console links to /admin/affiliate/{id}. */
    affiliateCode: z.string().nullable(),
  }),
  access: z.object({
    hasActiveSubscription: z.boolean(),
    source: z.enum(SUBSCRIPTION_ACCESS),
    tier: z.enum(PLAN_TIERS).nullable(),
    maxDashboards: z.number(),
  }),
  stores: z.array(
    z.object({ id: z.number(), name: z.string(), currency: z.string(), createdAt: z.string(), guests: z.number() }),
  ),
  sharedStores: z.array(z.object({ id: z.number(), name: z.string(), ownerUsername: z.string(), since: z.string() })),
  subscriptions: z.array(
    z.object({
      id: z.number(),
      plan: z.string(),
      tier: z.enum(PLAN_TIERS).nullable(),
      status: z.enum(SUBSCRIPTION_STATUSES),
      provider: z.string(),
      live: z.boolean(),
      currentPeriodStart: z.string(),
      currentPeriodEnd: z.string(),
      canceledAt: z.string().nullable(),
      createdAt: z.string(),
    }),
  ),
  audit: z.array(auditEntryOutput),
});
export type UserDetail = z.infer<typeof userDetailOutput>;
