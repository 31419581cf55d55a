import type { EntityManager } from '@mikro-orm/postgresql';
import { tierFromPlanName, type PlanTier } from '../../../shared/plans.ts';
import { AppError } from '../../errors.ts';
import { createAccount, findUserByUsername } from '../auth/auth.service.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { Store } from '../stores/store.entity.ts';
import { activateSubscription, grantsAccess, latestSubscription, planByTier } from '../subscriptions/subscriptions.service.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import { AuditLogEntry } from './audit-log.entity.ts';

export const USER_NOT_FOUND_MESSAGE = 'User not found';
export const NOT_IN_GUEST_MODE_MESSAGE = 'You are not in guest mode';

interface Actor {
  userId: number | null;
  ip: string | null;
}

export async function guestModeStatus(em: EntityManager, session: SessionControl) {
  const guest = session.guestUserId === null ? null : await em.findOne(User, { id: session.guestUserId });
  return {
    isGuestMode: guest !== null,
    guestUserId: guest?.id ?? null,
    guestUsername: guest?.username ?? null,
  };
}

export async function enterGuestMode(em: EntityManager, session: SessionControl, actor: Actor, targetUserId: number) {
  if (actor.userId === null) throw new AppError('BAD_REQUEST', 'Guest mode needs a signed-in administrator');
  if (targetUserId === actor.userId) throw new AppError('BAD_REQUEST', 'You cannot view your own account as a guest');
  const target = await em.findOne(User, { id: targetUserId });
  if (!target) throw new AppError('NOT_FOUND', USER_NOT_FOUND_MESSAGE);
  await session.setGuestUser(target.id);
  em.create(AuditLogEntry, {
    actorUserId: actor.userId,
    targetUserId: target.id,
    action: 'guest_mode.enter',
    details: { username: target.username },
    ipAddress: actor.ip,
  });
  await em.flush();
  return { isGuestMode: true, guestUserId: target.id, guestUsername: target.username };
}

export async function exitGuestMode(em: EntityManager, session: SessionControl, actor: Actor) {
  const viewedUserId = session.guestUserId;
  if (viewedUserId === null) throw new AppError('BAD_REQUEST', NOT_IN_GUEST_MODE_MESSAGE);
  await session.setGuestUser(null);
  em.create(AuditLogEntry, {
    actorUserId: actor.userId,
    targetUserId: viewedUserId,
    action: 'guest_mode.exit',
    details: null,
    ipAddress: actor.ip,
  });
  await em.flush();
  return { success: true as const };
}

export async function listUsers(em: EntityManager) {
  const users = await em.find(User, {}, { orderBy: { id: 'asc' } });
  const storeCounts = await em
    .createQueryBuilder(Store, 's')
    .select(['s.owner', 'count(*) as count'])
    .groupBy('s.owner')
    .execute<{ owner: number; count: string }[]>();
  const countByOwner = new Map(storeCounts.map((row) => [Number(row.owner), Number(row.count)]));
  return Promise.all(
    users.map(async (user) => {
      const subscription = await latestSubscription(em, user.id);
      return {
        id: user.id,
        username: user.username,
        email: user.email,
        isAdmin: user.isAdmin,
        createdAt: user.createdAt.toISOString(),
        stores: countByOwner.get(user.id) ?? 0,
        plan: subscription ? subscription.plan.name : null,
        subscriptionStatus: subscription?.status ?? null,
        hasActiveSubscription: grantsAccess(subscription),
        currentPeriodEnd: subscription?.currentPeriodEnd.toISOString() ?? null,
      };
    }),
  );
}

export async function createUserAsAdmin(
  em: EntityManager,
  input: { username: string; email: string; password: string; isAdmin: boolean },
): Promise<UserEntity> {
  return createAccount(em, input);
}

export async function grantPlan(em: EntityManager, actor: Actor, input: { username: string; tier: PlanTier; days: number }) {
  const user = await findUserByUsername(em, input.username);
  if (!user) throw new AppError('NOT_FOUND', USER_NOT_FOUND_MESSAGE);
  const plan = await planByTier(em, input.tier);
  const subscription = await activateSubscription(em, user.id, plan, {
    provider: 'admin',
    providerReference: null,
    days: input.days,
  });
  em.create(AuditLogEntry, {
    actorUserId: actor.userId,
    targetUserId: user.id,
    action: 'subscription.grant',
    details: { plan: plan.name, days: input.days },
    ipAddress: actor.ip,
  });
  await em.flush();
  return {
    username: user.username,
    plan: plan.name,
    tier: tierFromPlanName(plan.name),
    status: subscription.status,
    currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
  };
}
