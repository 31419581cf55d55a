import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Payout, PayoutStatus } from '../../../shared/affiliates.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry, type AUDIT_ACTIONS } from '../admin/audit-log.entity.ts';
import { AffiliatePayout, type AffiliatePayoutEntity } from './affiliate.entities.ts';
import { toPayoutOutput } from './payouts.service.ts';

/** Who decides: the signed-in administrator (null for the admin CLI) and where from. */
export interface AdminActor {
  userId: number | null;
  ip: string | null;
}

export const PAYOUT_NOT_FOUND_MESSAGE = 'Payout not found';

function audit(em: EntityManager, actor: AdminActor, affiliateUserId: number, action: (typeof AUDIT_ACTIONS)[number], details: Record<string, unknown>) {
  em.create(AuditLogEntry, { actorUserId: actor.userId, targetUserId: affiliateUserId, action, details, ipAddress: actor.ip });
}

const DECISIONS = {
  approve: { from: ['requested'], to: 'approved', action: 'affiliate.payout_approved', refusal: 'Only a requested payout can be approved' },
  reject: { from: ['requested', 'approved'], to: 'rejected', action: 'affiliate.payout_rejected', refusal: 'Only an open payout can be rejected' },
  markPaid: { from: ['approved'], to: 'paid', action: 'affiliate.payout_paid', refusal: 'Approve the payout before marking it paid' },
} as const satisfies Record<string, { from: PayoutStatus[]; to: PayoutStatus; action: (typeof AUDIT_ACTIONS)[number]; refusal: string }>;

/**
 * An administrator moves a payout on: requested -> approved -> paid (with the payment's reference), or an
 * open one to rejected (its commissions become payable again). Each decision is audited on the affiliate.
 */
export async function decidePayout(
  em: EntityManager,
  actor: AdminActor,
  decision: keyof typeof DECISIONS,
  input: { payoutId: number; reference?: string; note?: string },
  now = new Date(),
): Promise<Payout> {
  const rule = DECISIONS[decision];
  return em.transactional(async (tx) => {
    const payout: AffiliatePayoutEntity | null = await tx.findOne(AffiliatePayout, { id: input.payoutId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!payout) throw new AppError('NOT_FOUND', PAYOUT_NOT_FOUND_MESSAGE);
    await tx.populate(payout, ['affiliate']);
    if (!(rule.from as readonly PayoutStatus[]).includes(payout.status)) throw new AppError('CONFLICT', rule.refusal);
    payout.status = rule.to;
    if (decision === 'approve') Object.assign(payout, { approvedAt: now, approvedBy: actor.userId });
    if (decision === 'reject') Object.assign(payout, { rejectedAt: now, rejectedBy: actor.userId, note: input.note || payout.note });
    if (decision === 'markPaid') Object.assign(payout, { paidAt: now, paidBy: actor.userId, reference: input.reference });
    audit(tx, actor, payout.affiliate.user.id, rule.action, {
      payoutId: payout.id,
      amountMinor: payout.amountMinor,
      currency: payout.currency,
      ...(input.reference ? { reference: input.reference } : {}),
      ...(input.note ? { note: input.note } : {}),
    });
    await tx.flush();
    return toPayoutOutput(payout);
  });
}
