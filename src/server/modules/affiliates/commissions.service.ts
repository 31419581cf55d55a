import type { EntityManager } from '@mikro-orm/postgresql';
import { COMMISSION_HOLD_DAYS, DEFAULT_COMMISSION_MONTHS, DEFAULT_COMMISSION_RATE_PERCENT } from '../../../shared/affiliates.ts';
import { BillingInvoice, type BillingInvoiceEntity } from '../subscriptions/billing.entities.ts';
import { AffiliateCommission, AffiliateFlag, AffiliateReferral } from './affiliate.entities.ts';
import { payableBalance } from './payouts.service.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

function addMonths(date: Date, months: number): Date {
  const result = new Date(date);
  result.setUTCMonth(result.getUTCMonth() + months);
  return result;
}

/**
 * Brings the commission of one invoice in line with it (called by the Stripe events job after it
 * stored an invoice.paid, a refund or a dispute): a paid invoice of a referred account within the
 * affiliate's duration earns the rate of what was kept (paid minus refunded); a dispute reverses it.
 * One row per invoice, so a redelivered event never pays twice.
 */
export async function applyInvoiceToCommission(em: EntityManager, stripeInvoiceId: string): Promise<void> {
  const invoice = await em.findOne(BillingInvoice, { stripeInvoiceId }, { refresh: true });
  if (!invoice || invoice.amountPaid <= 0 || !invoice.paidAt) return;
  const referral = await em.findOne(AffiliateReferral, { referredUser: invoice.user.id }, { populate: ['affiliate'] });
  if (!referral) return;
  const affiliate = referral.affiliate;
  const months = affiliate.commissionMonths ?? DEFAULT_COMMISSION_MONTHS;
  if (invoice.paidAt.getTime() >= addMonths(referral.signedUpAt, months).getTime()) return;

  const existing = await em.findOne(AffiliateCommission, { invoice: invoice.id });
  const sameCard = !existing && (await paidWithAffiliatesOwnCard(em, invoice, affiliate.user.id));
  const ratePercent = existing?.ratePercent ?? affiliate.commissionRatePercent ?? DEFAULT_COMMISSION_RATE_PERCENT;
  const kept = Math.max(0, invoice.amountPaid - invoice.amountRefunded);
  const amountMinor = invoice.disputed ? 0 : Math.round((kept * ratePercent) / 100);
  const status = existing?.status === 'blocked' || sameCard ? 'blocked' : invoice.disputed ? 'reversed' : 'earned';
  if (existing) {
    existing.amountMinor = amountMinor;
    existing.status = status;
  } else {
    em.create(AffiliateCommission, {
      affiliate,
      invoice,
      status,
      currency: invoice.currency,
      ratePercent,
      amountMinor,
      payableAt: new Date(invoice.paidAt.getTime() + COMMISSION_HOLD_DAYS * DAY_MS),
    });
    if (sameCard) {
      em.create(AffiliateFlag, {
        affiliate,
        kind: 'same_card',
        detail: `Invoice ${invoice.stripeInvoiceId} of referred account #${invoice.user.id} was paid with a card the affiliate pays with too; its commission is blocked`,
      });
    }
  }
  await em.flush();
}

/** Whether the referred account's invoice was paid with a card (same Stripe fingerprint) that also paid one of the affiliate's own invoices. */
async function paidWithAffiliatesOwnCard(em: EntityManager, invoice: BillingInvoiceEntity, affiliateUserId: number): Promise<boolean> {
  if (!invoice.cardFingerprint) return false;
  const matches = await em.count(BillingInvoice, { user: affiliateUserId, cardFingerprint: invoice.cardFingerprint, amountPaid: { $gt: 0 } });
  return matches > 0;
}

export interface CommissionTotals {
  /** Every earned commission, held or not (minor units). */
  earnedMinor: number;
  /** Still in the refund hold. */
  pendingMinor: number;
  /** Past the hold and not yet settled by a payout, with corrections of what was paid out (payouts.service.ts). */
  payableMinor: number;
}

/** An affiliate's earned commissions split by the hold, as of `now` (the hold is computed from dates). */
export async function commissionTotals(em: EntityManager, affiliateId: number, now = new Date()): Promise<CommissionTotals> {
  const rows = await em.find(AffiliateCommission, { affiliate: affiliateId, status: 'earned' });
  const pendingMinor = rows.filter((row) => row.payableAt > now).reduce((sum, row) => sum + row.amountMinor, 0);
  const earnedMinor = rows.reduce((sum, row) => sum + row.amountMinor, 0);
  return { earnedMinor, pendingMinor, payableMinor: (await payableBalance(em, affiliateId, now)).payableMinor };
}
