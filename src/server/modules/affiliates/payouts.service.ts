import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatMoneyExact } from '../../../shared/currencies.ts';
import { OPEN_PAYOUT_STATUSES, type Payout } from '../../../shared/affiliates.ts';
import { AppError } from '../../errors.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { Affiliate, AffiliateCommission, AffiliatePayout, AffiliatePayoutItem, type AffiliatePayoutEntity } from './affiliate.entities.ts';
import { affiliateOf } from './affiliates.service.ts';

/** The plans' currency: commissions and payouts are in it. */
export const PROGRAMME_CURRENCY = 'GBP';

export const NOT_AN_AFFILIATE_MESSAGE = 'Join the affiliate programme first';
export const OPEN_PAYOUT_EXISTS_MESSAGE = 'You already have a payout in progress';

export function payoutThresholdMessage(thresholdMinor: number): string {
  return `Payouts open at ${formatMoneyExact(thresholdMinor, PROGRAMME_CURRENCY, 'en-GB')} payable`;
}

/** One commission's part of the balance: what it is worth now minus what payouts (not rejected) already settled of it. */
interface OutstandingLine {
  commissionId: number;
  outstandingMinor: number;
  /** Whether a payout already covered part of it: then a difference is a correction (a refund after payout). */
  settledBefore: boolean;
}

/**
 * Per commission: its affiliate, when its hold ends, what it is worth now (an earned commission its amount; a
 * reversed or blocked one nothing) and what payouts that were not rejected settled of it.
 */
export const COMMISSION_LEDGER_SQL = `
  select c.id, c.affiliate_id, c.payable_at,
         case when c.status = 'earned' then c.amount_minor else 0 end as worth,
         coalesce(sum(i.amount_minor) filter (where p.status <> 'rejected'), 0) as settled,
         count(i.id) filter (where p.status <> 'rejected') as items
    from affiliate_commissions c
    left join affiliate_payout_items i on i.commission_id = c.id
    left join affiliate_payouts p on p.id = i.payout_id
   group by c.id, c.affiliate_id, c.payable_at, c.status, c.amount_minor`;

/** The commissions past their hold not (fully) settled by a payout; one paid out and then reversed gives a negative line. */
async function outstandingLines(em: EntityManager, affiliateId: number, now: Date): Promise<OutstandingLine[]> {
  const rows: { id: number; worth: string; settled: string; items: string }[] = await em.getConnection().execute(
    `select id, worth, settled, items from (${COMMISSION_LEDGER_SQL}) ledger where affiliate_id = ? and payable_at <= ? order by id`,
    [affiliateId, now],
    'all',
    em.getTransactionContext(),
  );
  return rows
    .map((row) => ({ commissionId: row.id, outstandingMinor: Number(row.worth) - Number(row.settled), settledBefore: Number(row.items) > 0 }))
    .filter((line) => line.outstandingMinor !== 0);
}

export interface PayableBalance {
  /** What a payout request would ask for now. */
  payableMinor: number;
  /** Its part that corrects commissions already paid out: 0 or negative. */
  adjustmentMinor: number;
}

export async function payableBalance(em: EntityManager, affiliateId: number, now = new Date()): Promise<PayableBalance> {
  const lines = await outstandingLines(em, affiliateId, now);
  return {
    payableMinor: lines.reduce((sum, line) => sum + line.outstandingMinor, 0),
    adjustmentMinor: lines.filter((line) => line.settledBefore).reduce((sum, line) => sum + line.outstandingMinor, 0),
  };
}

export function toPayoutOutput(payout: AffiliatePayoutEntity): Payout {
  return {
    id: payout.id,
    amountMinor: payout.amountMinor,
    currency: payout.currency,
    status: payout.status,
    requestedAt: payout.requestedAt.toISOString(),
    approvedAt: payout.approvedAt?.toISOString() ?? null,
    paidAt: payout.paidAt?.toISOString() ?? null,
    rejectedAt: payout.rejectedAt?.toISOString() ?? null,
    reference: payout.reference ?? null,
    note: payout.note ?? null,
  };
}

/** What the affiliate has been paid: the sum of their paid payouts. */
export function paidTotal(payouts: readonly { status: string; amountMinor: number }[]): number {
  return payouts.filter((payout) => payout.status === 'paid').reduce((sum, payout) => sum + payout.amountMinor, 0);
}

export function payoutsOf(em: EntityManager, affiliateId: number): Promise<AffiliatePayoutEntity[]> {
  return em.find(AffiliatePayout, { affiliate: affiliateId }, { orderBy: { requestedAt: 'desc', id: 'desc' } });
}

/**
 * The affiliate asks for their whole payable balance. Refused below the threshold and while another payout
 * is open; the affiliate's row is locked so two requests at once make one payout (the partial unique
 * index on open payouts is the last guard). The items record what the payout settles of each commission.
 */
export async function requestPayout(em: EntityManager, user: UserEntity, thresholdMinor: number, now = new Date()): Promise<Payout> {
  const affiliate = await affiliateOf(em, user);
  if (!affiliate) throw new AppError('NOT_FOUND', NOT_AN_AFFILIATE_MESSAGE);
  return em.transactional(async (tx) => {
    await tx.findOneOrFail(Affiliate, { id: affiliate.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const open = await tx.count(AffiliatePayout, { affiliate: affiliate.id, status: { $in: [...OPEN_PAYOUT_STATUSES] } });
    if (open > 0) throw new AppError('CONFLICT', OPEN_PAYOUT_EXISTS_MESSAGE);
    const lines = await outstandingLines(tx, affiliate.id, now);
    const amountMinor = lines.reduce((sum, line) => sum + line.outstandingMinor, 0);
    if (amountMinor < thresholdMinor) throw new AppError('BAD_REQUEST', payoutThresholdMessage(thresholdMinor));
    const payout = tx.create(AffiliatePayout, { affiliate: affiliate.id, amountMinor, currency: PROGRAMME_CURRENCY, status: 'requested', requestedAt: now });
    for (const line of lines) tx.create(AffiliatePayoutItem, { payout, commission: tx.getReference(AffiliateCommission, line.commissionId), amountMinor: line.outstandingMinor });
    await tx.flush();
    return toPayoutOutput(payout);
  });
}
