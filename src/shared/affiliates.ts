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

/** AFFILIATE_PAYOUT_THRESHOLD_PENCE's default: payouts open at £50.00 payable. */
export const DEFAULT_PAYOUT_THRESHOLD_MINOR = 5000;
/** requested and approved are open: an affiliate has at most one open payout. */
export const PAYOUT_STATUSES = ['requested', 'approved', 'paid', 'rejected'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const OPEN_PAYOUT_STATUSES = ['requested', 'approved'] as const satisfies readonly PayoutStatus[];

export const payoutOutput = z.object({
  id: z.number(),
  amountMinor: z.number(),
  currency: z.string(),
  status: z.enum(PAYOUT_STATUSES),
  requestedAt: z.string(),
  approvedAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  rejectedAt: z.string().nullable(),
  reference: z.string().nullable(),
  note: z.string().nullable(),
});
export type Payout = z.infer<typeof payoutOutput>;

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
    /** What a payout request would ask for now: payable commissions plus adjustments (negative after a refund of something already paid out). */
    payableMinor: z.number(),
    /** Payouts marked paid. */
    paidMinor: z.number(),
  }),
  payouts: z.object({
    thresholdMinor: z.number(),
    /** The part of payableMinor that corrects commissions already paid out (refunds, chargebacks): 0 or negative. */
    adjustmentMinor: z.number(),
    /** The open (requested or approved) payout, if any. */
    open: payoutOutput.nullable(),
    history: z.array(payoutOutput),
  }),
  /** Per month (YYYY-MM): sign-ups and commissions earned. */
  months: z.array(z.object({ month: z.string(), signUps: z.number(), earnedMinor: z.number() })),
  referrals: z.array(referredAccountOutput),
});
export type AffiliateDashboard = z.infer<typeof affiliateDashboardOutput>;

export const PAYOUT_REFERENCE_REQUIRED_MESSAGE = 'Enter the payment reference';
export const payoutIdInput = z.object({ payoutId: z.coerce.number({ error: 'payoutId must be a number' }).int().positive() });
export const rejectPayoutInput = payoutIdInput.extend({ note: z.string().trim().max(500, 'Keep the note under 500 characters').optional() });
export const markPayoutPaidInput = payoutIdInput.extend({
  reference: z.string().trim().min(1, PAYOUT_REFERENCE_REQUIRED_MESSAGE).max(200, 'Keep the reference under 200 characters'),
});
