import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { AFFILIATE_FLAG_KINDS, COMMISSION_STATUSES, PAYOUT_STATUSES } from '../../../shared/affiliates.ts';
import { BillingInvoice } from '../subscriptions/billing.entities.ts';
import { User } from '../users/user.entity.ts';

/** A user who joined the affiliate programme; rate and duration overrides are null for the defaults. */
export const Affiliate = defineEntity({
  name: 'Affiliate',
  tableName: 'affiliates',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.oneToOne(User).owner().unique().deleteRule('cascade'),
    code: p.string().length(32).unique(),
    commissionRatePercent: p.integer().nullable(),
    commissionMonths: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AffiliateEntity = InferEntity<typeof Affiliate>;

/** One visit through a referral link: the day and a hash of who came (never the raw IP or user agent). */
export const AffiliateClick = defineEntity({
  name: 'AffiliateClick',
  tableName: 'affiliate_clicks',
  properties: {
    id: p.integer().primary().autoincrement(),
    affiliate: () => p.manyToOne(Affiliate).deleteRule('cascade'),
    day: p.date(),
    visitorHash: p.string().length(64),
    clickedAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['affiliate', 'day'] }],
});
export type AffiliateClickEntity = InferEntity<typeof AffiliateClick>;

/** A sign-up attributed to an affiliate: each account is referred at most once. */
export const AffiliateReferral = defineEntity({
  name: 'AffiliateReferral',
  tableName: 'affiliate_referrals',
  properties: {
    id: p.integer().primary().autoincrement(),
    affiliate: () => p.manyToOne(Affiliate).deleteRule('cascade'),
    referredUser: () => p.oneToOne(User).owner().unique().deleteRule('cascade'),
    click: () => p.manyToOne(AffiliateClick).nullable().deleteRule('set null'),
    signedUpAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AffiliateReferralEntity = InferEntity<typeof AffiliateReferral>;

/** Something the fraud rules blocked, for the admin to look at. */
export const AffiliateFlag = defineEntity({
  name: 'AffiliateFlag',
  tableName: 'affiliate_flags',
  properties: {
    id: p.integer().primary().autoincrement(),
    affiliate: () => p.manyToOne(Affiliate).deleteRule('cascade'),
    kind: p.enum(AFFILIATE_FLAG_KINDS),
    detail: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['affiliate', 'createdAt'] }],
});
export type AffiliateFlagEntity = InferEntity<typeof AffiliateFlag>;

/** What one paid invoice of a referred account earns its affiliate: one row per invoice, recomputed on refunds and disputes. */
export const AffiliateCommission = defineEntity({
  name: 'AffiliateCommission',
  tableName: 'affiliate_commissions',
  properties: {
    id: p.integer().primary().autoincrement(),
    affiliate: () => p.manyToOne(Affiliate).deleteRule('cascade'),
    invoice: () => p.oneToOne(BillingInvoice).owner().unique().deleteRule('cascade'),
    status: p.enum(COMMISSION_STATUSES),
    currency: p.string().length(3),
    ratePercent: p.integer(),
    amountMinor: p.bigint('number'),
    /** The end of the refund hold: pending before, payable after. */
    payableAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ properties: ['affiliate', 'payableAt'] }],
});
export type AffiliateCommissionEntity = InferEntity<typeof AffiliateCommission>;

/**
 * A payout of an affiliate's payable balance. It keeps its own amount, so its history survives when the
 * commissions behind it go (a referred account deleted). Who decided is a plain user id, as in the audit log.
 */
export const AffiliatePayout = defineEntity({
  name: 'AffiliatePayout',
  tableName: 'affiliate_payouts',
  properties: {
    id: p.integer().primary().autoincrement(),
    affiliate: () => p.manyToOne(Affiliate).deleteRule('cascade'),
    amountMinor: p.bigint('number'),
    currency: p.string().length(3),
    status: p.enum(PAYOUT_STATUSES),
    requestedAt: p.datetime().onCreate(() => new Date()),
    approvedAt: p.datetime().nullable(),
    approvedBy: p.integer().nullable(),
    paidAt: p.datetime().nullable(),
    paidBy: p.integer().nullable(),
    rejectedAt: p.datetime().nullable(),
    rejectedBy: p.integer().nullable(),
    /** The bank transfer's (or other payment's) reference, required to mark it paid. */
    reference: p.text().nullable(),
    note: p.text().nullable(),
  },
  indexes: [{ properties: ['affiliate', 'requestedAt'] }],
});
export type AffiliatePayoutEntity = InferEntity<typeof AffiliatePayout>;

/**
 * What one payout settled of one commission: the commission's payable amount when it was requested, or a
 * negative correction when a commission already paid out was refunded or reversed since.
 */
export const AffiliatePayoutItem = defineEntity({
  name: 'AffiliatePayoutItem',
  tableName: 'affiliate_payout_items',
  properties: {
    id: p.integer().primary().autoincrement(),
    payout: () => p.manyToOne(AffiliatePayout).deleteRule('cascade'),
    commission: () => p.manyToOne(AffiliateCommission).deleteRule('cascade'),
    amountMinor: p.bigint('number'),
  },
  indexes: [{ properties: ['commission'] }],
  uniques: [{ properties: ['payout', 'commission'] }],
});
export type AffiliatePayoutItemEntity = InferEntity<typeof AffiliatePayoutItem>;
