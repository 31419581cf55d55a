import { describe, expect, it } from 'vitest';
import { testOrder } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { ApiClient, signedInAdmin, signedInClient, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { ACCOUNT_DELETION_GRACE_DAYS, ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE, LAST_ADMIN_DELETION_MESSAGE } from '../../../shared/privacy.ts';
import { auditLog } from '../admin/admin.service.ts';
import { ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { User } from '../users/user.entity.ts';
import { deleteDueAccounts } from './account-deletion.ts';

// Deleting an account: asked for with the password (or by an administrator with a reason), a grace
// period during which the account is disabled and can be kept, then the job that deletes it.

const testApp = useTestApp();
const tracking = useEventWriter(() => testApp.databaseUrl);
const DAY_MS = 86_400_000;
const afterGrace = () => new Date(Date.now() + (ACCOUNT_DELETION_GRACE_DAYS + 1) * DAY_MS);
const fork = () => testApp.orm.em.fork();

/** An owner whose store has orders, customers, visits, a connected platform with credentials, and a guest viewer. */
async function ownerWithData() {
  const owner = await ownerWithStore(testApp.app, testApp.orm, 'Leaving Shop');
  const storeId = owner.store.id;
  const placed = Date.now() - 3 * DAY_MS;
  await ingestOrders(fork(), storeId, [
    testOrder({ externalId: 'l-1', placedAt: new Date(placed), grossMinor: 3_000, customer: { externalId: 'lc-1', email: 'buyer@example.com', name: 'Buyer One' } }),
  ]);
  await trackingSettingsOf(fork(), storeId);
  await tracking.writer.write([trackingEvent(storeId, 'lv-1', new Date(placed - 60_000), { url: 'https://shop.example/?gclid=lg' })], []);
  await buildSessions(fork(), storeId, { settleMs: 0 });
  const em = fork();
  em.create(PlatformConnection, { store: storeId, platform: 'shopify', status: 'connected', connected: true, accountId: `leaving-${storeId}.myshopify.com`, sealedCredentials: 'sealed-token' });
  await em.flush();
  const guest = await newGuestOf(testApp.app, testApp.orm, owner, storeId);
  return { owner, storeId, guest };
}

function login(client: ApiClient, username: string, password: string, cancelDeletion?: boolean) {
  return client.post('/api/login', { username, password, ...(cancelDeletion ? { cancelDeletion } : {}) });
}

/** Rows naming the user or their store, in every table with a store_id, user_id or owner_id column (from information_schema). */
async function rowsOf(userId: number, storeId: number): Promise<Record<string, number>> {
  const q = sqlRunner(fork());
  const columns = await q.rows<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.column_name in ('store_id', 'user_id', 'owner_id', 'actor_user_id', 'target_user_id', 'requested_by_id', 'invited_by_id')
      order by 1, 2`,
  );
  const found: Record<string, number> = {};
  for (const { table_name: table, column_name: column } of columns) {
    const [row] = await q.rows<{ n: number }>(`select count(*)::int as n from "${table}" where "${column}" = $1`, [column === 'store_id' ? storeId : userId]);
    if (row!.n > 0) found[`${table}.${column}`] = row!.n;
  }
  const [user] = await q.rows<{ n: number }>(`select count(*)::int as n from users where id = $1`, [userId]);
  if (user!.n > 0) found.users = user!.n;
  const [sessions] = await q.rows<{ n: number }>(`select count(*)::int as n from sessions where data->>'userId' = $1`, [String(userId)]);
  if (sessions!.n > 0) found.sessions = sessions!.n;
  return found;
}

describe('deleting one’s own account', () => {
  it('asks for the password; then signs out, refuses sign-in as scheduled, e-mails the date; signing in to cancel keeps everything', async () => {
    const { owner, storeId } = await ownerWithData();
    const wrong = await trpcMutation(owner.client, 'settings.deleteAccount', { currentPassword: 'not-my-password' });
    expect(wrong.status).toBe(400);
    expect((await trpcQuery(owner.client, 'settings.get')).status).toBe(200);

    const done = await trpcMutation(owner.client, 'settings.deleteAccount', { currentPassword: owner.credentials.password });
    expect(done.status).toBe(200);
    const scheduledFor = Date.parse(done.body.result.data.deletionScheduledFor);
    expect(scheduledFor - Date.now()).toBeGreaterThan((ACCOUNT_DELETION_GRACE_DAYS - 1) * DAY_MS);
    // Signed out at once, and sign-in says why it is refused.
    expect((await trpcQuery(owner.client, 'settings.get')).status).toBe(401);
    const refused = await login(owner.client, owner.credentials.username, owner.credentials.password);
    expect(refused).toMatchObject({ status: 403, body: { message: ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE } });
    const mail = await fork().findOneOrFail(OutboundEmail, { template: 'account_deletion_scheduled', userId: owner.user.id });
    expect(mail.toAddress).toBe(owner.credentials.email);
    expect(mail.textBody).toContain(new Date(scheduledFor).toISOString().slice(0, 10));
    const [entry] = await auditLog(fork(), { limit: 1, aboutUserId: owner.user.id });
    expect(entry).toMatchObject({ action: 'account.deletion_scheduled', actorUserId: owner.user.id, details: { byAdmin: false } });

    // Within the grace period: signing in to cancel keeps the account and every row of its store.
    const before = await rowsOf(owner.user.id, storeId);
    expect((await login(owner.client, owner.credentials.username, owner.credentials.password, true)).status).toBe(200);
    expect((await trpcQuery(owner.client, 'settings.get')).status).toBe(200);
    expect((await fork().findOneOrFail(User, { id: owner.user.id })).deletionScheduledFor).toBeNull();
    await deleteDueAccounts(fork, afterGrace());
    const { sessions: _signedIn, ...after } = await rowsOf(owner.user.id, storeId);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(after['orders.store_id']).toBe(before['orders.store_id']);
  });

  it('after the grace period the job deletes the account, its store and every row of it; others keep theirs', async () => {
    const { owner, storeId, guest } = await ownerWithData();
    const other = await ownerWithData();
    const otherBefore = await rowsOf(other.owner.user.id, other.storeId);
    expect(await rowsOf(owner.user.id, storeId)).toMatchObject({ 'orders.store_id': 1, 'tracking_events.store_id': 1, 'platform_connections.store_id': 1, 'store_guests.store_id': 1 });
    expect((await trpcMutation(owner.client, 'settings.deleteAccount', { currentPassword: owner.credentials.password })).status).toBe(200);

    // Not yet: the day has not come.
    expect(await deleteDueAccounts(fork, new Date(Date.now() + DAY_MS))).toBe(0);
    expect(await deleteDueAccounts(fork, afterGrace())).toBe(1);

    const left = await rowsOf(owner.user.id, storeId);
    // The audit log keeps what happened, without the account's id.
    expect(left).toEqual({});
    const deleted = (await auditLog(fork(), { limit: 50 })).find((row) => row.action === 'account.deleted');
    expect(deleted).toMatchObject({ actorUserId: null, targetUserId: null, details: { stores: 1 } });
    // The guest's own account stays; another owner's data is untouched.
    expect(await fork().findOne(User, { id: guest.user.id })).not.toBeNull();
    expect(await rowsOf(other.owner.user.id, other.storeId)).toEqual(otherBefore);
    expect((await login(owner.client, owner.credentials.username, owner.credentials.password, true)).status).toBe(401);
  });
});

describe('an administrator deleting a user', () => {
  it('schedules it with the reason (audited); a user cannot; the last administrator cannot delete themselves', async () => {
    const { owner } = await ownerWithData();
    const stranger = await signedInClient(testApp.app, 'stranger');
    expect((await trpcMutation(stranger.client, 'admin.scheduleUserDeletion', { userId: owner.user.id, reason: 'spam' })).status).toBe(403);

    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await trpcMutation(admin.client, 'admin.scheduleUserDeletion', { userId: owner.user.id, reason: '' })).status).toBe(400);
    const scheduled = await trpcMutation(admin.client, 'admin.scheduleUserDeletion', { userId: owner.user.id, reason: 'Asked by e-mail, ticket 42' });
    expect(scheduled.status).toBe(200);
    const [entry] = await auditLog(fork(), { limit: 1, aboutUserId: owner.user.id });
    expect(entry).toMatchObject({ action: 'account.deletion_scheduled', actorUserId: admin.user.id, details: { byAdmin: true, reason: 'Asked by e-mail, ticket 42' } });
    expect((await trpcQuery(owner.client, 'settings.get')).status).toBe(401);
    expect((await trpcMutation(admin.client, 'admin.cancelUserDeletion', { userId: owner.user.id })).status).toBe(200);
    expect((await login(owner.client, owner.credentials.username, owner.credentials.password)).status).toBe(200);

    // The only administrator (others scheduled for deletion or none): refused, for themselves too.
    await sqlRunner(fork()).run(`update users set deletion_scheduled_for = now() + interval '14 days' where is_admin and id <> $1 and deletion_scheduled_for is null`, [admin.user.id]);
    const self = await trpcMutation(admin.client, 'admin.scheduleUserDeletion', { userId: admin.user.id, reason: 'leaving' });
    expect(self).toMatchObject({ status: 400 });
    expect(JSON.stringify(self.body)).toContain(LAST_ADMIN_DELETION_MESSAGE);
    expect((await trpcMutation(admin.client, 'settings.deleteAccount', { currentPassword: admin.credentials.password })).status).toBe(400);
    await sqlRunner(fork()).run(`update users set deletion_scheduled_for = null where is_admin and id <> $1`, [admin.user.id]);
  });
});

describe('the audit log after a deletion', () => {
  interface AuditRow { id: string; action: string; created_at: Date; details: Record<string, unknown> | null; ip_address: string | null; actor_user_id: number | null; target_user_id: number | null }
  const entries = (ids: string[]) =>
    sqlRunner(fork()).rows<AuditRow>(`select id::text, action, created_at, details, ip_address, actor_user_id, target_user_id from audit_log_entries where id = any($1::bigint[]) order by id`, [ids]);
  const idsAbout = async (userId: number) =>
    (await sqlRunner(fork()).rows<{ id: string }>(`select id::text from audit_log_entries where actor_user_id = $1 or target_user_id = $1 order by id`, [userId])).map((row) => row.id);

  it('keeps each entry about the deleted user with its action and time, without e-mail addresses, names, reasons or its IPs; others keep theirs', async () => {
    // The owner invites a guest, asks for a new address; an admin views the account as the owner, then schedules its deletion.
    const { owner, guest } = await ownerWithData();
    const newEmail = `moved-${owner.credentials.email}`;
    expect((await trpcMutation(owner.client, 'settings.requestEmailChange', { newEmail, currentPassword: owner.credentials.password })).status).toBe(200);
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect((await admin.client.post('/api/admin/exit-guest-mode')).status).toBe(200);
    const reason = `Asked by ${owner.credentials.email}, ticket 7`;
    expect((await trpcMutation(admin.client, 'admin.scheduleUserDeletion', { userId: owner.user.id, reason })).status).toBe(200);
    // A visitor invited by e-mail before registering: the invitation names them by address only.
    const host = await ownerWithStore(testApp.app, testApp.orm, 'Host Shop');
    const visitor = await newGuestOf(testApp.app, testApp.orm, host, host.store.id);
    expect((await trpcMutation(admin.client, 'admin.scheduleUserDeletion', { userId: visitor.user.id, reason: 'test' })).status).toBe(200);
    const [visitorInvitation] = (await entries(await idsAbout(host.user.id))).filter((row) => row.action === 'guest.invited');
    expect(visitorInvitation!.details).toMatchObject({ email: visitor.credentials.email, storeName: 'Host Shop' });
    // Someone else's entry that names nobody deleted.
    const bystander = await ownerWithStore(testApp.app, testApp.orm, 'Bystander Shop');
    await newGuestOf(testApp.app, testApp.orm, bystander, bystander.store.id);
    const bystanderBefore = await entries(await idsAbout(bystander.user.id));

    const ownerIds = await idsAbout(owner.user.id);
    const before = await entries(ownerIds);
    expect(before.map((row) => row.action)).toEqual(expect.arrayContaining(['guest.invited', 'email.change_requested', 'guest_mode.enter', 'guest_mode.exit', 'account.deletion_scheduled']));
    expect(before.find((row) => row.action === 'email.change_requested')!.ip_address).not.toBeNull();
    expect(await deleteDueAccounts(fork, afterGrace())).toBeGreaterThanOrEqual(2);

    const after = await entries(ownerIds);
    expect(after.map(({ id, action, created_at }) => ({ id, action, created_at }))).toEqual(before.map(({ id, action, created_at }) => ({ id, action, created_at })));
    const text = JSON.stringify(after);
    for (const personal of [owner.credentials.email, owner.credentials.username, newEmail, guest.credentials.email, 'Leaving Shop', reason]) expect(text).not.toContain(personal);
    const byAction = (action: string) => after.find((row) => row.action === action)!;
    expect(byAction('guest.invited').details).toEqual({ storeId: owner.store.id });
    expect(byAction('email.change_requested')).toMatchObject({ details: {}, ip_address: null, actor_user_id: null, target_user_id: null });
    expect(byAction('account.deletion_scheduled').details).toEqual({ deletionScheduledFor: before.find((row) => row.action === 'account.deletion_scheduled')!.details!.deletionScheduledFor, byAdmin: true });
    // What the administrator did keeps the administrator and their address.
    expect(byAction('guest_mode.enter')).toMatchObject({ details: {}, actor_user_id: admin.user.id, ip_address: before.find((row) => row.action === 'guest_mode.enter')!.ip_address });

    const [invitationAfter] = await entries([visitorInvitation!.id]);
    expect(invitationAfter!.details).toEqual({ storeId: host.store.id });
    expect(await entries(bystanderBefore.map((row) => row.id))).toEqual(bystanderBefore);
  });
});
