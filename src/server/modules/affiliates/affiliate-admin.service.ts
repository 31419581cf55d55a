import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type { AffiliateDetail, affiliateListInput, AffiliateListSort, Payout, PayoutStatus } from '../../../shared/affiliates.ts';
import { AppError } from '../../errors.ts';
import { auditLog } from '../admin/admin.service.ts';
import { AuditLogEntry, type AUDIT_ACTIONS } from '../admin/audit-log.entity.ts';
import { Affiliate, AffiliateCommission, AffiliateFlag, AffiliatePayout, AffiliateReferral, type AffiliateEntity, type AffiliatePayoutEntity } from './affiliate.entities.ts';
import { referralStandings } from './affiliate-dashboard.service.ts';
import { commissionTotals } from './commissions.service.ts';
import { COMMISSION_LEDGER_SQL, payoutsOf, PROGRAMME_CURRENCY, toPayoutOutput, paidTotal } from './payouts.service.ts';

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

const LIST_ORDER: Record<AffiliateListSort, string> = {
  email: 'u.email',
  code: 'a.code',
  referrals: 'referrals',
  paying: 'paying',
  earned: 'earned',
  payable: 'payable',
  paid: 'paid',
  joined: 'a.created_at',
};

/** Every affiliate with their totals, sorted and paged in the database (the console's list). */
export async function listAffiliates(em: EntityManager, input: z.output<typeof affiliateListInput>, now = new Date()) {
  const needle = input.q ? `%${input.q.replace(/[\\%_]/g, (character) => `\\${character}`)}%` : null;
  const rows: Record<string, string | number | Date | null>[] = await em.getConnection().execute(
    `with ledger as (${COMMISSION_LEDGER_SQL}),
          totals as (
            select affiliate_id, sum(worth) as earned, sum(worth - settled) filter (where payable_at <= ?) as payable
              from ledger group by affiliate_id
          ),
          latest_subscriptions as (
            select distinct on (user_id) user_id, status from subscriptions order by user_id, created_at desc
          ),
          referral_counts as (
            select r.affiliate_id, count(*) as referrals, count(*) filter (where s.status = 'active') as paying
              from affiliate_referrals r left join latest_subscriptions s on s.user_id = r.referred_user_id
             group by r.affiliate_id
          )
     select a.id as affiliate_id, u.id as user_id, u.username, u.email, a.code, a.created_at,
            coalesce(rc.referrals, 0) as referrals, coalesce(rc.paying, 0) as paying,
            coalesce(t.earned, 0) as earned, coalesce(t.payable, 0) as payable,
            coalesce((select sum(p.amount_minor) from affiliate_payouts p where p.affiliate_id = a.id and p.status = 'paid'), 0) as paid,
            open.amount_minor as open_amount, open.status as open_status,
            (select count(*) from affiliate_flags f where f.affiliate_id = a.id) as flags,
            count(*) over () as total
       from affiliates a
       join users u on u.id = a.user_id
       left join totals t on t.affiliate_id = a.id
       left join referral_counts rc on rc.affiliate_id = a.id
       left join affiliate_payouts open on open.affiliate_id = a.id and open.status in ('requested', 'approved')
      where (?::text is null or u.email ilike ? or u.username ilike ? or a.code ilike ?)
      order by ${LIST_ORDER[input.sort]} ${input.direction === 'asc' ? 'asc' : 'desc'}, a.id
      limit ? offset ?`,
    [now, needle, needle, needle, needle, input.pageSize, (input.page - 1) * input.pageSize],
  );
  return {
    rows: rows.map((row) => ({
      affiliateId: Number(row.affiliate_id),
      userId: Number(row.user_id),
      username: String(row.username),
      email: String(row.email),
      code: String(row.code),
      joinedAt: new Date(row.created_at as Date).toISOString(),
      referrals: Number(row.referrals),
      paying: Number(row.paying),
      earnedMinor: Number(row.earned),
      payableMinor: Number(row.payable),
      paidMinor: Number(row.paid),
      openPayout: row.open_status === null ? null : { amountMinor: Number(row.open_amount), status: row.open_status as 'requested' | 'approved' },
      flags: Number(row.flags),
    })),
    total: rows.length === 0 ? await countAffiliates(em, needle) : Number(rows[0]!.total),
    page: input.page,
    pageSize: input.pageSize,
    currency: PROGRAMME_CURRENCY,
  };
}

/** A page past the end has no rows to carry the total. */
async function countAffiliates(em: EntityManager, needle: string | null): Promise<number> {
  const [row] = await em.getConnection().execute(
    `select count(*) as total from affiliates a join users u on u.id = a.user_id
      where (?::text is null or u.email ilike ? or u.username ilike ? or a.code ilike ?)`,
    [needle, needle, needle, needle],
  );
  return Number(row?.total ?? 0);
}

export const NOT_AN_AFFILIATE_ADMIN_MESSAGE = 'This user has not joined the affiliate programme';

async function affiliateOfUserId(em: EntityManager, userId: number): Promise<AffiliateEntity> {
  const affiliate = await em.findOne(Affiliate, { user: userId }, { populate: ['user'] });
  if (!affiliate) throw new AppError('NOT_FOUND', NOT_AN_AFFILIATE_ADMIN_MESSAGE);
  return affiliate;
}

/** /admin/affiliate/{userId}: the affiliate's referrals (with e-mails), commissions, payouts, flags and audit trail. */
export async function affiliateDetail(em: EntityManager, userId: number, now = new Date()): Promise<AffiliateDetail> {
  const affiliate = await affiliateOfUserId(em, userId);
  const [referrals, commissions, totals, payouts, flags, audit] = await Promise.all([
    em.find(AffiliateReferral, { affiliate: affiliate.id }, { populate: ['referredUser'], orderBy: { signedUpAt: 'desc', id: 'desc' } }),
    em.find(AffiliateCommission, { affiliate: affiliate.id }, { populate: ['invoice'], orderBy: { createdAt: 'desc', id: 'desc' } }),
    commissionTotals(em, affiliate.id, now),
    payoutsOf(em, affiliate.id),
    em.find(AffiliateFlag, { affiliate: affiliate.id }, { orderBy: { createdAt: 'desc', id: 'desc' } }),
    auditLog(em, { limit: 50, targetUserId: userId, actionPrefix: 'affiliate.' }),
  ]);
  const standings = await referralStandings(em, referrals);
  const referralRows = referrals.map((referral) => ({
    userId: referral.referredUser.id,
    username: referral.referredUser.username,
    email: referral.referredUser.email,
    signedUpAt: referral.signedUpAt.toISOString(),
    ...standings.get(referral.referredUser.id)!,
  }));
  return {
    affiliate: {
      id: affiliate.id,
      userId: affiliate.user.id,
      username: affiliate.user.username,
      email: affiliate.user.email,
      code: affiliate.code,
      joinedAt: affiliate.createdAt.toISOString(),
      commissionRatePercent: affiliate.commissionRatePercent ?? null,
      commissionMonths: affiliate.commissionMonths ?? null,
    },
    currency: PROGRAMME_CURRENCY,
    kpis: {
      referrals: referrals.length,
      paying: referralRows.filter((row) => row.standing === 'paying').length,
      ...totals,
      paidMinor: paidTotal(payouts),
    },
    referrals: referralRows,
    commissions: commissions.map((commission) => ({
      id: commission.id,
      invoice: commission.invoice.stripeInvoiceId,
      paidAt: commission.invoice.paidAt?.toISOString() ?? null,
      amountMinor: commission.amountMinor,
      currency: commission.currency,
      ratePercent: commission.ratePercent,
      status: commission.status,
      payableAt: commission.payableAt.toISOString(),
    })),
    payouts: payouts.map(toPayoutOutput),
    flags: flags.map((flag) => ({ id: flag.id, kind: flag.kind, detail: flag.detail, createdAt: flag.createdAt.toISOString() })),
    audit,
  };
}

/** Sets (or, with null, clears back to the default) an affiliate's rate and duration; applies to commissions earned from now on. */
export async function setAffiliateOverrides(
  em: EntityManager,
  actor: AdminActor,
  input: { userId: number; commissionRatePercent: number | null; commissionMonths: number | null },
): Promise<{ commissionRatePercent: number | null; commissionMonths: number | null }> {
  const affiliate = await affiliateOfUserId(em, input.userId);
  const before = { commissionRatePercent: affiliate.commissionRatePercent ?? null, commissionMonths: affiliate.commissionMonths ?? null };
  const after = { commissionRatePercent: input.commissionRatePercent, commissionMonths: input.commissionMonths };
  if (before.commissionRatePercent === after.commissionRatePercent && before.commissionMonths === after.commissionMonths) return after;
  affiliate.commissionRatePercent = after.commissionRatePercent;
  affiliate.commissionMonths = after.commissionMonths;
  audit(em, actor, affiliate.user.id, 'affiliate.override_changed', { before, after });
  await em.flush();
  return after;
}
