import type { EntityManager } from '@mikro-orm/postgresql';
import { tierFromPlanName, type PlanTier, type SubscriptionStatus } from '../../../shared/plans.ts';
import { AppError } from '../../errors.ts';
import { createAccount, findUserByUsername } from '../auth/auth.service.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { activateSubscription, grantsAccess, planByTier } from '../subscriptions/subscriptions.service.ts';
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

interface UserListRow {
  id: number;
  username: string;
  email: string;
  is_admin: boolean;
  created_at: Date;
  stores: number;
  plan: string | null;
  status: SubscriptionStatus | null;
  current_period_end: Date | null;
}

/** Every account with its store count and latest subscription, in one query. */
export async function listUsers(em: EntityManager) {
  const rows = await em.getConnection().execute<UserListRow[]>(`
    select u.id, u.username, u.email, u.is_admin, u.created_at,
           (select count(*) from stores s where s.owner_id = u.id)::int as stores,
           p.name as plan, latest.status, latest.current_period_end
      from users u
      left join lateral (
        select plan_id, status, current_period_end from subscriptions
         where user_id = u.id order by created_at desc, id desc limit 1
      ) latest on true
      left join plans p on p.id = latest.plan_id
     order by u.id`);
  const now = new Date();
  return rows.map((row) => {
    const subscription = row.status && row.current_period_end
      ? { status: row.status, currentPeriodEnd: new Date(row.current_period_end) }
      : null;
    return {
      id: row.id,
      username: row.username,
      email: row.email,
      isAdmin: row.is_admin,
      createdAt: new Date(row.created_at).toISOString(),
      stores: row.stores,
      plan: row.plan,
      subscriptionStatus: row.status,
      hasActiveSubscription: grantsAccess(subscription, now),
      currentPeriodEnd: subscription?.currentPeriodEnd.toISOString() ?? null,
    };
  });
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
