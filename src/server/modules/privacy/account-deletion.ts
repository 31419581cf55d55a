import type { EntityManager } from '@mikro-orm/postgresql';
import { ACCOUNT_DELETION_GRACE_DAYS, LAST_ADMIN_DELETION_MESSAGE } from '../../../shared/privacy.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { deleteSessionsOfUser } from '../auth/user-sessions.ts';
import { sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { sendEmail } from '../email/email.service.ts';
import { eraseStoreRows } from '../stores/store-erasure.ts';
import { removeDeletedStoresImages, scheduleStoreImageRemoval } from '../product-images/image-storage.ts';
import { cancelStripeSubscriptionsOf } from '../subscriptions/stripe-billing.ts';
import { configuredStripe } from '../subscriptions/stripe-events.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import { deleteAccountExportFiles } from './account-export.ts';
import { deletePrivacyExports } from './privacy.service.ts';

// Deleting an account (README, "Privacy"): asked for by the user (with their password) or by an
// administrator (with a reason), it is scheduled ACCOUNT_DELETION_GRACE_DAYS ahead. Meanwhile the
// account is disabled (every session ended, sign-in refused unless the deletion is cancelled) and an
// e-mail says when. When the day comes the `privacy.account-deletion` job deletes its stores with
// every row of them (stores/store-erasure.ts), its sessions, guest access and connected platforms'
// credentials (rows of its stores), then the account; audit entries stay, without its id.

const DAY_MS = 86_400_000;

function audit(em: EntityManager, action: 'account.deletion_scheduled' | 'account.deletion_cancelled' | 'account.deleted', actorUserId: number | null, targetUserId: number | null, details: Record<string, unknown>, ipAddress: string | null): void {
  em.create(AuditLogEntry, { actorUserId, targetUserId, action, details, ipAddress });
}

/** Administrators other than `user` who will still be there (no deletion scheduled). */
async function otherAdmins(em: EntityManager, user: UserEntity): Promise<number> {
  return em.count(User, { isAdmin: true, id: { $ne: user.id }, deletionScheduledFor: null });
}

export interface ScheduleDeletion {
  /** The administrator who asked; null when the user asked themselves. */
  adminId: number | null;
  reason: string | null;
  origin: string | null;
  clientIp: string | null;
  now?: Date;
}

/** Disables the account and schedules its deletion; ends its sessions and e-mails the date. */
export async function scheduleAccountDeletion(em: EntityManager, user: UserEntity, options: ScheduleDeletion): Promise<{ deletionScheduledFor: string }> {
  if (user.isAdmin && (await otherAdmins(em, user)) === 0) throw new AppError('BAD_REQUEST', LAST_ADMIN_DELETION_MESSAGE);
  const now = options.now ?? new Date();
  const when = new Date(now.getTime() + ACCOUNT_DELETION_GRACE_DAYS * DAY_MS);
  user.deletionScheduledFor = when;
  user.deletionReason = options.reason;
  audit(em, 'account.deletion_scheduled', options.adminId ?? user.id, user.id, { deletionScheduledFor: when.toISOString(), byAdmin: options.adminId !== null, ...(options.reason ? { reason: options.reason } : {}) }, options.clientIp);
  await em.flush();
  await deleteSessionsOfUser(em, user.id);
  await sendEmail(em, {
    to: user.email,
    template: 'account_deletion_scheduled',
    userId: user.id,
    variables: { username: user.username, deletionDate: when.toISOString().slice(0, 10), signInUrl: `${options.origin ?? ''}/auth` },
  });
  return { deletionScheduledFor: when.toISOString() };
}

/** Keeps the account: the deletion is off and the account usable again. */
export async function cancelAccountDeletion(em: EntityManager, user: UserEntity, options: { actorId: number; clientIp: string | null }): Promise<void> {
  if (!user.deletionScheduledFor) return;
  audit(em, 'account.deletion_cancelled', options.actorId, user.id, { deletionScheduledFor: user.deletionScheduledFor.toISOString() }, options.clientIp);
  user.deletionScheduledFor = null;
  user.deletionReason = null;
  await em.flush();
}

/**
 * The keys of audit `details` whose values say nothing about a person: our own row ids, counts, plan
 * and template keys, dates and flags. Every other key (usernames, e-mail addresses, store and shop
 * names, a deletion's free-text reason, platform customer and order references, and any key added
 * later until it is listed here) is removed when the account an entry is about is deleted.
 */
export const IMPERSONAL_AUDIT_DETAIL_KEYS = [
  'storeId', 'plan', 'days', 'key', 'template', 'emailId', 'exportId', 'webhookId', 'byAdmin', 'deletionScheduledFor', 'stores',
  'customersRedacted', 'ordersRedacted', 'ordersToRedact', 'deliveriesDeleted', 'loyaltyDeleted', 'exportsDeleted', 'tracking',
  'ordersDeleted', 'refundsDeleted', 'customersDeleted', 'productsDeleted',
  // The affiliate programme's decisions: a payout's id and amount, an override's rate and months before and after.
  'payoutId', 'amountMinor', 'currency', 'before', 'after',
] as const;

/**
 * The audit entries about an account keep their action and time but lose its personal values: the
 * details of entries it acted in or was the target of, or that name its e-mail address or username
 * (an invitation sent before it registered), keep only IMPERSONAL_AUDIT_DETAIL_KEYS; the client
 * address of what it did itself goes. Runs before the ids are cleared, which would hide the entries.
 */
async function anonymiseAuditEntries(q: SqlRunner, userId: number): Promise<void> {
  await q.run(
    `update audit_log_entries e
        set details = (select coalesce(jsonb_object_agg(d.key, d.value), '{}'::jsonb) from jsonb_each(e.details) d where d.key = any($2::text[]))
       where jsonb_typeof(e.details) = 'object'
         and (e.actor_user_id = $1 or e.target_user_id = $1
              or exists (select 1 from users u, jsonb_each_text(e.details) v
                          where u.id = $1 and lower(v.value) in (lower(u.email), lower(u.username))))`,
    [userId, [...IMPERSONAL_AUDIT_DETAIL_KEYS]],
  );
  await q.run(`update audit_log_entries set ip_address = null where actor_user_id = $1`, [userId]);
}

/** Deletes one account whose time has come, in one transaction: its stores' rows, then what names it. */
async function deleteAccount(q: SqlRunner, userId: number): Promise<number[]> {
  const stores = await q.rows<{ id: number }>(`select id from stores where owner_id = $1 order by id`, [userId]);
  for (const store of stores) {
    await deletePrivacyExports(q, store.id);
    await eraseStoreRows(q, store.id);
    await q.run(`delete from stores where id = $1`, [store.id]);
  }
  await q.run(`delete from sessions where data->>'userId' = $1`, [String(userId)]);
  // Every other row that names the account through a foreign key: deleted by its own rule (cascade,
  // set null) or here when the key has none, so that a new table cannot block a deletion.
  const keys = await q.rows<{ table_name: string; column_name: string }>(
    `select ch.relname as table_name, a.attname as column_name
       from pg_constraint f
       join pg_class ch on ch.oid = f.conrelid
       join pg_attribute a on a.attrelid = f.conrelid and a.attnum = f.conkey[1]
      where f.contype = 'f' and f.confrelid = 'users'::regclass and f.confdeltype in ('a', 'r') and array_length(f.conkey, 1) = 1`,
  );
  for (const key of keys) await q.run(`delete from "${key.table_name}" where "${key.column_name}" = $1`, [userId]);
  // Tables that name an account by a plain `user_id` (the outbox: its e-mails carry the address).
  const plain = await q.rows<{ table_name: string }>(
    `select c.relname as table_name from pg_class c
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
       join pg_attribute a on a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped
      where c.relkind in ('r', 'p') and not c.relispartition`,
  );
  for (const { table_name: table } of plain) await q.run(`delete from "${table}" where user_id = $1`, [userId]);
  // The audit log keeps what happened, no longer whose account it was.
  await anonymiseAuditEntries(q, userId);
  await q.run(`update audit_log_entries set actor_user_id = null where actor_user_id = $1`, [userId]);
  await q.run(`update audit_log_entries set target_user_id = null where target_user_id = $1`, [userId]);
  await q.run(`delete from users where id = $1`, [userId]);
  return stores.map((store) => store.id);
}

/** The job: every account whose grace period is over is deleted (each in its own transaction). */
export async function deleteDueAccounts(fork: () => EntityManager, now = new Date()): Promise<number> {
  const due = await sqlRunner(fork()).rows<{ id: number }>(`select id from users where deletion_scheduled_for <= $1 order by id`, [now]);
  for (const { id } of due) {
    const [stillDue] = await sqlRunner(fork()).rows<{ id: number }>(`select id from users where id = $1 and deletion_scheduled_for <= $2`, [id, now]);
    if (!stillDue) continue;
    // Billing first: a failure leaves the account for the next run rather than charging a deleted one.
    const stripe = configuredStripe();
    if (stripe) await cancelStripeSubscriptionsOf(fork(), stripe, id);
    let deletedStores: number[] = [];
    await fork().transactional(async (tx) => {
      const q = sqlRunner(tx);
      // Cancelled in the meantime: kept.
      const [still] = await q.rows<{ id: number }>(`select id from users where id = $1 and deletion_scheduled_for <= $2 for update`, [id, now]);
      if (!still) return;
      deletedStores = await deleteAccount(q, id);
      await scheduleStoreImageRemoval(q, deletedStores);
      await deleteAccountExportFiles(id);
      audit(tx, 'account.deleted', null, null, { stores: deletedStores.length }, null);
      await tx.flush();
    });
    await removeDeletedStoresImages(sqlRunner(fork()), deletedStores);
  }
  return due.length;
}
