import { z } from 'zod';
import { auditEntryOutput, userIdSchema } from './admin.ts';

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

export const AFFILIATE_LIST_SORTS = ['email', 'code', 'referrals', 'paying', 'earned', 'payable', 'paid', 'joined'] as const;
export type AffiliateListSort = (typeof AFFILIATE_LIST_SORTS)[number];
export const AFFILIATE_LIST_PAGE_SIZE = 20;

export const affiliateListInput = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(AFFILIATE_LIST_PAGE_SIZE),
  sort: z.enum(AFFILIATE_LIST_SORTS).default('earned'),
  direction: z.enum(['asc', 'desc']).default('desc'),
  /** Part of the e-mail address, username or code. */
  q: z.string().trim().max(200).optional(),
});
export type AffiliateListInput = z.input<typeof affiliateListInput>;

export const affiliateListRowOutput = z.object({
  affiliateId: z.number(),
  userId: z.number(),
  username: z.string(),
  email: z.string(),
  code: z.string(),
  joinedAt: z.string(),
  referrals: z.number(),
  paying: z.number(),
  earnedMinor: z.number(),
  payableMinor: z.number(),
  paidMinor: z.number(),
  openPayout: z.object({ amountMinor: z.number(), status: z.enum(OPEN_PAYOUT_STATUSES) }).nullable(),
  flags: z.number(),
});
export type AffiliateListRow = z.infer<typeof affiliateListRowOutput>;

export const affiliateListOutput = z.object({
  rows: z.array(affiliateListRowOutput),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  currency: z.string(),
});

export const commissionRateOverrideSchema = z
  .number({ error: 'Enter a rate from 0 to 100 %' })
  .int('Enter a whole percentage')
  .min(0, 'Enter a rate from 0 to 100 %')
  .max(100, 'Enter a rate from 0 to 100 %');
export const commissionMonthsOverrideSchema = z
  .number({ error: 'Enter a duration from 1 to 120 months' })
  .int('Enter a whole number of months')
  .min(1, 'Enter a duration from 1 to 120 months')
  .max(120, 'Enter a duration from 1 to 120 months');

/** null: the programme's default. */
export const affiliateOverridesInput = z.object({
  userId: userIdSchema,
  commissionRatePercent: commissionRateOverrideSchema.nullable(),
  commissionMonths: commissionMonthsOverrideSchema.nullable(),
});

export const affiliateDetailOutput = z.object({
  affiliate: z.object({
    id: z.number(),
    userId: z.number(),
    username: z.string(),
    email: z.string(),
    code: z.string(),
    joinedAt: z.string(),
    commissionRatePercent: z.number().nullable(),
    commissionMonths: z.number().nullable(),
  }),
  currency: z.string(),
  kpis: z.object({
    referrals: z.number(),
    paying: z.number(),
    earnedMinor: z.number(),
    pendingMinor: z.number(),
    payableMinor: z.number(),
    paidMinor: z.number(),
  }),
  /** The admin sees who was referred (the affiliate does not). */
  referrals: z.array(z.object({
    userId: z.number(),
    username: z.string(),
    email: z.string(),
    signedUpAt: z.string(),
    planName: z.string().nullable(),
    standing: referredAccountOutput.shape.standing,
  })),
  commissions: z.array(z.object({
    id: z.number(),
    invoice: z.string(),
    paidAt: z.string().nullable(),
    amountMinor: z.number(),
    currency: z.string(),
    ratePercent: z.number(),
    status: z.enum(COMMISSION_STATUSES),
    payableAt: z.string(),
  })),
  payouts: z.array(payoutOutput),
  flags: z.array(z.object({ id: z.number(), kind: z.enum(AFFILIATE_FLAG_KINDS), detail: z.string(), createdAt: z.string() })),
  /** The admin decisions about this affiliate (overrides, payouts), newest first. */
  audit: z.array(auditEntryOutput),
});
export type AffiliateDetail = z.infer<typeof affiliateDetailOutput>;
