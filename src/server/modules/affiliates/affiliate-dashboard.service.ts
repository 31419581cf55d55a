import type { EntityManager } from '@mikro-orm/postgresql';
import { OPEN_PAYOUT_STATUSES, type AffiliateDashboard } from '../../../shared/affiliates.ts';
import { Subscription } from '../subscriptions/subscription.entity.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { AffiliateClick, AffiliateCommission, AffiliateReferral, type AffiliateEntity, type AffiliateReferralEntity } from './affiliate.entities.ts';
import { affiliateOf } from './affiliates.service.ts';
import { commissionTotals } from './commissions.service.ts';
import { payableBalance, payoutsOf, PROGRAMME_CURRENCY, toPayoutOutput, paidTotal } from './payouts.service.ts';


const EMPTY_KPIS: AffiliateDashboard['kpis'] = {
  clicks: 0, signUps: 0, trials: 0, payingCustomers: 0, conversionRate: null, earnedMinor: 0, pendingMinor: 0, payableMinor: 0, paidMinor: 0,
};

export function membershipOf(affiliate: AffiliateEntity | null): AffiliateDashboard['membership'] {
  return affiliate && { code: affiliate.code, linkPath: `/?ref=${affiliate.code}`, joinedAt: affiliate.createdAt.toISOString() };
}

export type ReferralStanding = AffiliateDashboard['referrals'][number]['standing'];

/** Each referred account's latest plan and where it stands: signed up (no subscription), on trial, paying or lapsed. */
export async function referralStandings(em: EntityManager, referrals: AffiliateReferralEntity[]): Promise<Map<number, { planName: string | null; standing: ReferralStanding }>> {
  const subscriptions = referrals.length === 0 ? [] : await em.find(
    Subscription,
    { user: { $in: referrals.map((referral) => referral.referredUser.id) } },
    { populate: ['plan'], orderBy: { createdAt: 'desc' } },
  );
  const standings = new Map<number, { planName: string | null; standing: ReferralStanding }>();
  for (const referral of referrals) standings.set(referral.referredUser.id, { planName: null, standing: 'signed_up' });
  for (const subscription of [...subscriptions].reverse()) {
    const standing = subscription.status === 'trial' ? 'trial' : subscription.status === 'active' ? 'paying' : 'lapsed';
    standings.set(subscription.user.id, { planName: subscription.plan.name, standing });
  }
  return standings;
}

/** The signed-in affiliate's own figures: every query is scoped to their affiliate row. */
export async function affiliateDashboard(em: EntityManager, user: UserEntity, thresholdMinor: number, now = new Date()): Promise<AffiliateDashboard> {
  const affiliate = await affiliateOf(em, user);
  if (!affiliate) {
    return { membership: null, currency: PROGRAMME_CURRENCY, kpis: EMPTY_KPIS, payouts: { thresholdMinor, adjustmentMinor: 0, open: null, history: [] }, months: [], referrals: [] };
  }

  const [clicks, referrals, commissions, totals, balance, payouts] = await Promise.all([
    em.count(AffiliateClick, { affiliate: affiliate.id }),
    em.find(AffiliateReferral, { affiliate: affiliate.id }, { orderBy: { signedUpAt: 'asc', id: 'asc' } }),
    em.find(AffiliateCommission, { affiliate: affiliate.id, status: 'earned' }, { populate: ['invoice'] }),
    commissionTotals(em, affiliate.id, now),
    payableBalance(em, affiliate.id, now),
    payoutsOf(em, affiliate.id),
  ]);
  const history = payouts.map(toPayoutOutput);
  const standings = await referralStandings(em, referrals);
  const accounts = referrals.map((referral, index) => {
    const { planName, standing } = standings.get(referral.referredUser.id)!;
    return { ordinal: index + 1, joinedAt: referral.signedUpAt.toISOString(), planName, standing } as const;
  });

  const months = new Map<string, { month: string; signUps: number; earnedMinor: number }>();
  const monthOf = (date: Date) => date.toISOString().slice(0, 7);
  const entry = (month: string) => months.get(month) ?? months.set(month, { month, signUps: 0, earnedMinor: 0 }).get(month)!;
  for (const referral of referrals) entry(monthOf(referral.signedUpAt)).signUps += 1;
  for (const commission of commissions) entry(monthOf(commission.invoice.paidAt ?? commission.createdAt)).earnedMinor += commission.amountMinor;

  return {
    membership: membershipOf(affiliate),
    currency: PROGRAMME_CURRENCY,
    kpis: {
      clicks,
      signUps: referrals.length,
      trials: accounts.filter((account) => account.standing === 'trial').length,
      payingCustomers: accounts.filter((account) => account.standing === 'paying').length,
      conversionRate: clicks === 0 ? null : referrals.length / clicks,
      ...totals,
      paidMinor: paidTotal(history),
    },
    payouts: {
      thresholdMinor,
      adjustmentMinor: balance.adjustmentMinor,
      open: history.find((payout) => (OPEN_PAYOUT_STATUSES as readonly string[]).includes(payout.status)) ?? null,
      history,
    },
    months: [...months.values()].sort((a, b) => a.month.localeCompare(b.month)),
    referrals: accounts,
  };
}
