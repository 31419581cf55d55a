import type { EntityManager } from '@mikro-orm/postgresql';
import { Affiliate } from '../affiliates/affiliate.entities.ts';
import type { AdminStats, AuditEntry, UserDetail } from '../../../shared/admin.ts';
import { tierFromPlanName, type PlanTier, type SubscriptionStatus } from '../../../shared/plans.ts';
import { AppError } from '../../errors.ts';
import { createAccount, findUserByUsername } from '../auth/auth.service.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { StoreGuest } from '../guests/guest-invitation.entity.ts';
import { Store } from '../stores/store.entity.ts';
import { Subscription } from '../subscriptions/subscription.entity.ts';
import { accessOf, activateSubscription, grantsAccess, planByTier } from '../subscriptions/subscriptions.service.ts';
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
  grace_until: Date | null;
}

/** Every account with its store count and latest subscription, in one query. */
export async function listUsers(em: EntityManager) {
  const rows = await em.getConnection().execute<UserListRow[]>(`
    select u.id, u.username, u.email, u.is_admin, u.created_at,
           (select count(*) from stores s where s.owner_id = u.id)::int as stores,
           p.name as plan, latest.status, latest.current_period_end, latest.grace_until
      from users u
      left join lateral (
        select plan_id, status, current_period_end, grace_until from subscriptions
         where user_id = u.id order by created_at desc, id desc limit 1
      ) latest on true
      left join plans p on p.id = latest.plan_id
     order by u.id`);
  const now = new Date();
  return rows.map((row) => {
    const subscription = row.status && row.current_period_end
      ? { status: row.status, currentPeriodEnd: new Date(row.current_period_end), graceUntil: row.grace_until ? new Date(row.grace_until) : null }
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

/** Gives a user a plan for some days (replacing whatever gave access), recorded in the audit log. */
export async function grantPlanTo(em: EntityManager, actor: Actor, user: UserEntity, tier: PlanTier, days: number) {
  const plan = await planByTier(em, tier);
  const subscription = await activateSubscription(em, user.id, plan, {
    provider: 'admin',
    providerReference: null,
    days,
  });
  em.create(AuditLogEntry, {
    actorUserId: actor.userId,
    targetUserId: user.id,
    action: 'subscription.grant',
    details: { plan: plan.name, days },
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

export async function grantPlan(em: EntityManager, actor: Actor, input: { username: string; tier: PlanTier; days: number }) {
  const user = await findUserByUsername(em, input.username);
  if (!user) throw new AppError('NOT_FOUND', USER_NOT_FOUND_MESSAGE);
  return grantPlanTo(em, actor, user, input.tier, input.days);
}

export async function grantPlanToUser(em: EntityManager, actor: Actor, input: { userId: number; tier: PlanTier; days: number }) {
  const user = await em.findOne(User, { id: input.userId });
  if (!user) throw new AppError('NOT_FOUND', USER_NOT_FOUND_MESSAGE);
  return grantPlanTo(em, actor, user, input.tier, input.days);
}

interface StatsRow {
  users: number;
  admins: number;
  active_subscriptions: number;
  trials: number;
  mrr_minor: number;
  new_users_7d: number;
  new_users_30d: number;
}

/**
 * The console's key figures. A user's subscription is their latest one; it counts while it gives
 * access. MRR adds the monthly prices of live subscriptions someone pays for: trials and plans an
 * admin granted are left out. Plans are priced in GBP.
 */
export async function adminStats(em: EntityManager, now = new Date()): Promise<AdminStats> {
  const connection = em.getConnection();
  const [row] = await connection.execute<StatsRow[]>(
    `with latest as (
       select distinct on (s.user_id) s.user_id, s.status, s.provider, s.current_period_end, p.monthly_price_minor
         from subscriptions s join plans p on p.id = s.plan_id
        order by s.user_id, s.created_at desc, s.id desc
     ), live as (
       select * from latest where status <> 'canceled' and current_period_end > ?
     )
     select (select count(*) from users)::int as users,
            (select count(*) from users where is_admin)::int as admins,
            (select count(*) from live where status <> 'trial')::int as active_subscriptions,
            (select count(*) from live where status = 'trial')::int as trials,
            (select coalesce(sum(monthly_price_minor), 0) from live
              where status in ('active', 'past_due') and provider not in ('admin', 'trial'))::int as mrr_minor,
            (select count(*) from users where created_at > ?::timestamptz - interval '7 days')::int as new_users_7d,
            (select count(*) from users where created_at > ?::timestamptz - interval '30 days')::int as new_users_30d`,
    [now, now, now],
  );
  const recent = await connection.execute<{ id: number; username: string; email: string; created_at: Date; plan: string | null }[]>(
    `select u.id, u.username, u.email, u.created_at, p.name as plan
       from users u
       left join lateral (
         select plan_id from subscriptions where user_id = u.id order by created_at desc, id desc limit 1
       ) latest on true
       left join plans p on p.id = latest.plan_id
      order by u.created_at desc, u.id desc
      limit 8`,
  );
  return {
    users: row!.users,
    admins: row!.admins,
    activeSubscriptions: row!.active_subscriptions,
    trials: row!.trials,
    mrrMinor: row!.mrr_minor,
    currency: 'GBP',
    newUsers7d: row!.new_users_7d,
    newUsers30d: row!.new_users_30d,
    recentSignups: recent.map((signup) => ({
      id: signup.id,
      username: signup.username,
      email: signup.email,
      createdAt: new Date(signup.created_at).toISOString(),
      plan: signup.plan,
    })),
  };
}

/** Audit entries, newest first, with the usernames of who acted and on whom (when the accounts still exist). */
/** `aboutUserId`: entries by or about the account; `targetUserId`: only about it; `actionPrefix`: e.g. 'affiliate.'. */
export async function auditLog(em: EntityManager, options: { limit: number; aboutUserId?: number; targetUserId?: number; actionPrefix?: string }): Promise<AuditEntry[]> {
  const where = {
    ...(options.aboutUserId === undefined ? {} : { $or: [{ actorUserId: options.aboutUserId }, { targetUserId: options.aboutUserId }] }),
    ...(options.targetUserId === undefined ? {} : { targetUserId: options.targetUserId }),
    ...(options.actionPrefix === undefined ? {} : { action: { $like: `${options.actionPrefix}%` } }),
  };
  const entries = await em.find(AuditLogEntry, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: options.limit });
  const userIds = [...new Set(entries.flatMap((entry) => [entry.actorUserId, entry.targetUserId]).filter((id): id is number => id !== null))];
  const users = userIds.length === 0 ? [] : await em.find(User, { id: { $in: userIds } });
  const usernames = new Map(users.map((user) => [user.id, user.username]));
  return entries.map((entry) => ({
    id: Number(entry.id),
    action: entry.action,
    actorUserId: entry.actorUserId ?? null,
    actorUsername: entry.actorUserId === null || entry.actorUserId === undefined ? null : (usernames.get(entry.actorUserId) ?? null),
    targetUserId: entry.targetUserId ?? null,
    targetUsername: entry.targetUserId === null || entry.targetUserId === undefined ? null : (usernames.get(entry.targetUserId) ?? null),
    details: entry.details ?? null,
    ipAddress: entry.ipAddress ?? null,
    createdAt: entry.createdAt.toISOString(),
  }));
}

/** Everything the console shows about one account. */
export async function userDetail(em: EntityManager, userId: number, now = new Date()): Promise<UserDetail> {
  const user = await em.findOne(User, { id: userId });
  if (!user) throw new AppError('NOT_FOUND', USER_NOT_FOUND_MESSAGE);
  const access = await accessOf(em, user.id, now);
  const stores = await em.find(Store, { owner: user.id }, { orderBy: { id: 'asc' } });
  const guestCounts = new Map<number, number>();
  if (stores.length > 0) {
    const shares = await em.find(StoreGuest, { store: { $in: stores.map((store) => store.id) } });
    for (const share of shares) guestCounts.set(share.store.id, (guestCounts.get(share.store.id) ?? 0) + 1);
  }
  const shared = await em.find(StoreGuest, { user: user.id }, { populate: ['store.owner'], orderBy: { createdAt: 'asc' } });
  const subscriptions = await em.find(Subscription, { user: user.id }, { populate: ['plan'], orderBy: { createdAt: 'desc', id: 'desc' } });
  const affiliate = await em.findOne(Affiliate, { user: user.id });
  return {
    user: {
      id: user.id,
      username: user.username,
      email: user.email,
      isAdmin: user.isAdmin,
      isGuest: user.isGuest,
      marketingEmails: user.marketingEmails,
      createdAt: user.createdAt.toISOString(),
      trialStartedAt: user.trialStartedAt?.toISOString() ?? null,
      deletionScheduledFor: user.deletionScheduledFor?.toISOString() ?? null,
      affiliateCode: affiliate?.code ?? null,
    },
    access: {
      hasActiveSubscription: access.hasActiveSubscription,
      source: access.source,
      tier: access.tier,
      maxDashboards: access.maxDashboards,
    },
    stores: stores.map((store) => ({
      id: store.id,
      name: store.name,
      currency: store.currency,
      createdAt: store.createdAt.toISOString(),
      guests: guestCounts.get(store.id) ?? 0,
    })),
    sharedStores: shared.map((share) => ({
      id: share.store.id,
      name: share.store.name,
      ownerUsername: share.store.owner.username,
      since: share.createdAt.toISOString(),
    })),
    subscriptions: subscriptions.map((subscription, index) => ({
      id: subscription.id,
      plan: subscription.plan.name,
      tier: tierFromPlanName(subscription.plan.name),
      status: subscription.status,
      provider: subscription.provider,
      // Only the latest subscription can give access.
      live: index === 0 && grantsAccess(subscription, now),
      currentPeriodStart: subscription.currentPeriodStart.toISOString(),
      currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
      canceledAt: subscription.canceledAt?.toISOString() ?? null,
      createdAt: subscription.createdAt.toISOString(),
    })),
    audit: await auditLog(em, { limit: 20, aboutUserId: user.id }),
  };
}
