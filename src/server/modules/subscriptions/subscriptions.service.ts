import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_MAX_DASHBOARDS, TRIAL_DAYS, tierFromPlanName, type PlanTier } from '../../../shared/plans.ts';
import type { CurrentSubscription, Plan as PlanDto } from '../../../shared/subscriptions.ts';
import { AppError } from '../../errors.ts';
import { StoreGuest } from '../guests/guest-invitation.entity.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import type { PaymentProvider } from './payment-provider.ts';
import type { BillingInterval } from '../../../shared/billing.ts';
import { Plan, type PlanEntity } from './plan.entity.ts';
import { Subscription, type SubscriptionEntity } from './subscription.entity.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

/** One calendar month later, clamped to the month's last day (31 Jan -> 28/29 Feb). */
export function addOneMonth(from: Date): Date {
  const next = new Date(from);
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
}

/** Trial and paid subscriptions give access until their period ends; past_due keeps it while payment is retried. */
export function grantsAccess(
  subscription: Pick<SubscriptionEntity, 'status' | 'currentPeriodEnd' | 'graceUntil'> | null,
  now = new Date(),
): boolean {
  if (subscription === null || subscription.status === 'canceled') return false;
  // A failed payment (Stripe) keeps access for the grace period only, whatever the period says.
  if (subscription.status === 'past_due' && subscription.graceUntil && subscription.graceUntil.getTime() <= now.getTime()) return false;
  return subscription.currentPeriodEnd.getTime() > now.getTime();
}

export function toPlanDto(plan: PlanEntity): PlanDto {
  return {
    id: plan.id,
    name: plan.name,
    tier: tierFromPlanName(plan.name) ?? 'basic',
    monthlyPriceMinor: plan.monthlyPriceMinor,
    currency: plan.currency,
    maxDashboards: plan.maxDashboards,
    includesAiTools: plan.includesAiTools,
  };
}

export async function listPlans(em: EntityManager): Promise<PlanDto[]> {
  const plans = await em.find(Plan, { active: true }, { orderBy: { monthlyPriceMinor: 'asc' } });
  return plans.map(toPlanDto);
}

/** The user's most recent subscription, whatever its status. */
export async function latestSubscription(em: EntityManager, userId: number): Promise<SubscriptionEntity | null> {
  return em.findOne(Subscription, { user: userId }, { populate: ['plan'], orderBy: { createdAt: 'desc', id: 'desc' } });
}

export type AccessSource = 'own' | 'guest' | 'none';

export interface Access {
  hasActiveSubscription: boolean;
  tier: PlanTier | null;
  maxDashboards: number;
  /** Where access comes from: the user's own plan, a store shared with them by an owner who has access, or nowhere. */
  source: AccessSource;
}

/** An owner's access carries over to the guests of their stores: a live plan, or an administrator. */
async function ownerGrantsAccess(em: EntityManager, owner: UserEntity, now: Date): Promise<boolean> {
  return owner.isAdmin || grantsAccess(await latestSubscription(em, owner.id), now);
}

/** Whether the user is a guest of at least one store whose owner has access. */
export async function hasGuestAccess(em: EntityManager, userId: number, now = new Date()): Promise<boolean> {
  const shares = await em.find(StoreGuest, { user: userId }, { populate: ['store.owner'] });
  const owners = new Map(shares.map((share) => [share.store.owner.id, share.store.owner]));
  for (const owner of owners.values()) {
    if (await ownerGrantsAccess(em, owner, now)) return true;
  }
  return false;
}

/**
 * What the user may use. A guest without a plan of their own passes the subscription gate through
 * a store shared with them, but with no tier: AI tools stay with the paying owner.
 */
export async function accessOf(em: EntityManager, userId: number, now = new Date()): Promise<Access> {
  const subscription = await latestSubscription(em, userId);
  if (subscription && grantsAccess(subscription, now)) {
    return {
      hasActiveSubscription: true,
      tier: tierFromPlanName(subscription.plan.name),
      maxDashboards: subscription.plan.maxDashboards,
      source: 'own',
    };
  }
  if (await hasGuestAccess(em, userId, now)) {
    return { hasActiveSubscription: true, tier: null, maxDashboards: DEFAULT_MAX_DASHBOARDS, source: 'guest' };
  }
  return { hasActiveSubscription: false, tier: null, maxDashboards: DEFAULT_MAX_DASHBOARDS, source: 'none' };
}

export async function currentSubscription(em: EntityManager, userId: number, now = new Date()): Promise<CurrentSubscription> {
  const subscription = await latestSubscription(em, userId);
  const dto = subscription && {
    id: subscription.id,
    status: subscription.status,
    currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
    provider: subscription.provider,
    plan: toPlanDto(subscription.plan),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    graceUntil: subscription.graceUntil?.toISOString() ?? null,
    billingInterval: subscription.billingInterval ?? null,
  };
  if (dto && grantsAccess(subscription, now)) return { hasActiveSubscription: true, subscription: dto, access: 'own' };
  if (await hasGuestAccess(em, userId, now)) return { hasActiveSubscription: true, subscription: null, access: 'guest' };
  return { hasActiveSubscription: false, subscription: dto, access: 'none' };
}

async function activePlan(em: EntityManager, planId: number): Promise<PlanEntity> {
  const plan = await em.findOne(Plan, { id: planId, active: true });
  if (!plan) throw new AppError('NOT_FOUND', 'Plan not found');
  return plan;
}

/** Ends whatever subscription gave access before a new one starts, so only one is ever live. */
async function cancelLiveSubscriptions(em: EntityManager, userId: number, now: Date): Promise<void> {
  await em.nativeUpdate(
    Subscription,
    { user: userId, status: { $ne: 'canceled' } },
    { status: 'canceled', canceledAt: now, updatedAt: now },
  );
}

export async function startTrial(em: EntityManager, user: UserEntity, planId: number, now = new Date()) {
  const plan = await activePlan(em, planId);
  return em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(User, { id: user.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (locked.trialStartedAt) throw new AppError('CONFLICT', 'You have already used your free trial.');
    if (grantsAccess(await latestSubscription(tx, user.id), now)) {
      throw new AppError('CONFLICT', 'You already have an active subscription.');
    }
    locked.trialStartedAt = now;
    // A guest who starts a plan of their own is an owner from now on (the Guest Users menu returns).
    locked.isGuest = false;
    const subscription = tx.create(Subscription, {
      user: user.id,
      plan,
      status: 'trial',
      provider: 'trial',
      providerReference: null,
      currentPeriodStart: now,
      currentPeriodEnd: addDays(now, TRIAL_DAYS),
      canceledAt: null,
    });
    await tx.flush();
    return subscription;
  });
}

export async function checkout(
  em: EntityManager,
  user: UserEntity,
  planId: number,
  provider: PaymentProvider,
  options: { interval?: BillingInterval; origin?: string | null; now?: Date } = {},
) {
  const now = options.now ?? new Date();
  const plan = await activePlan(em, planId);
  const outcome = await provider.startCheckout({ em, userId: user.id, email: user.email, plan, interval: options.interval ?? 'month', origin: options.origin ?? 'http://localhost:3000' });
  if (outcome.kind === 'redirect') {
    return { status: 'redirect' as const, redirectUrl: outcome.url, testMode: provider.testMode };
  }
  await activateSubscription(em, user.id, plan, { provider: provider.id, providerReference: outcome.providerReference, now });
  return { status: 'completed' as const, redirectUrl: null, testMode: provider.testMode };
}

export async function activateSubscription(
  em: EntityManager,
  userId: number,
  plan: PlanEntity,
  options: { provider: string; providerReference: string | null; now?: Date; days?: number },
): Promise<SubscriptionEntity> {
  const now = options.now ?? new Date();
  return em.transactional(async (tx) => {
    await cancelLiveSubscriptions(tx, userId, now);
    await tx.nativeUpdate(User, { id: userId, isGuest: true }, { isGuest: false });
    const subscription = tx.create(Subscription, {
      user: userId,
      plan,
      status: 'active',
      provider: options.provider,
      providerReference: options.providerReference,
      currentPeriodStart: now,
      currentPeriodEnd: options.days ? addDays(now, options.days) : addOneMonth(now),
      canceledAt: null,
    });
    await tx.flush();
    return subscription;
  });
}

export async function planByTier(em: EntityManager, tier: PlanTier): Promise<PlanEntity> {
  const plans = await em.find(Plan, { active: true });
  const plan = plans.find((candidate) => tierFromPlanName(candidate.name) === tier);
  if (!plan) throw new AppError('NOT_FOUND', `No plan for tier ${tier}`);
  return plan;
}
