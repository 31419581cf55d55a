import { z } from 'zod';

/** The first-party cookie that remembers the last referral link a visitor followed. */
export const REFERRAL_COOKIE_NAME = 'sp_ref';
export const DEFAULT_REFERRAL_COOKIE_DAYS = 60;

export const AFFILIATE_FLAG_KINDS = ['self_referral', 'same_card'] as const;
export type AffiliateFlagKind = (typeof AFFILIATE_FLAG_KINDS)[number];

export const referralCodeSchema = z.string().trim().regex(/^[a-z0-9]{6,32}$/i, 'Enter a valid referral code');

export const recordClickInput = z.object({ code: referralCodeSchema });
export const recordClickOutput = z.object({ recorded: z.boolean() });

export const affiliateMembershipOutput = z.object({
  code: z.string(),
  /** The referral link path; the client prefixes its origin. */
  linkPath: z.string(),
  joinedAt: z.string(),
}).nullable();

export const DEFAULT_COMMISSION_RATE_PERCENT = 30;
export const DEFAULT_COMMISSION_MONTHS = 12;
/** Days a commission is held (the refund window) before it becomes payable. */
export const COMMISSION_HOLD_DAYS = 30;
/** earned: counts (pending during the hold, then payable); reversed: chargeback; blocked: a fraud rule. */
export const COMMISSION_STATUSES = ['earned', 'reversed', 'blocked'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

export const referredAccountOutput = z.object({
  /** 1 for the affiliate's first referral: accounts are never named. */
  ordinal: z.number(),
  joinedAt: z.string(),
  planName: z.string().nullable(),
  standing: z.enum(['signed_up', 'trial', 'paying', 'lapsed']),
});

export const affiliateDashboardOutput = z.object({
  membership: affiliateMembershipOutput,
  currency: z.string(),
  kpis: z.object({
    clicks: z.number(),
    signUps: z.number(),
    trials: z.number(),
    payingCustomers: z.number(),
    /** Sign-ups per click, 0..1; null without clicks. */
    conversionRate: z.number().nullable(),
    earnedMinor: z.number(),
    pendingMinor: z.number(),
    payableMinor: z.number(),
    paidMinor: z.number(),
  }),
  /** Per month (YYYY-MM): sign-ups and commissions earned. */
  months: z.array(z.object({ month: z.string(), signUps: z.number(), earnedMinor: z.number() })),
  referrals: z.array(referredAccountOutput),
});
export type AffiliateDashboard = z.infer<typeof affiliateDashboardOutput>;
