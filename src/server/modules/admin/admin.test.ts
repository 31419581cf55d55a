import { describe, expect, it } from 'vitest';
import { ApiClient, grantTestPlan, signedInAdmin, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { Store } from '../stores/store.entity.ts';
import { Subscription } from '../subscriptions/subscription.entity.ts';
import { User } from '../users/user.entity.ts';
import { AuditLogEntry } from './audit-log.entity.ts';

const testApp = useTestApp();

/** A subscribed user with two stores, the second one active. */
async function viewedUser() {
  const signedIn = await signedInClient(testApp.app, 'viewed');
  await grantTestPlan(testApp.orm, signedIn.credentials.username, 'professional');
  const first = (await signedIn.client.post('/api/stores', { name: 'Viewed One' })).body;
  const second = (await signedIn.client.post('/api/stores', { name: 'Viewed Two' })).body;
  await signedIn.client.post('/api/stores/active', { storeId: second.id });
  return { ...signedIn, first, second };
}

describe('guest mode access', () => {
  it('is for admins only: 401 signed out, 403 for other users', async () => {
    const anonymous = new ApiClient(testApp.app);
    expect((await anonymous.get('/api/admin/guest-mode-status')).status).toBe(401);
    expect((await anonymous.post('/api/admin/exit-guest-mode')).status).toBe(401);

    const { client } = await signedInClient(testApp.app, 'plain');
    const target = await viewedUser();
    for (const answer of [
      await client.get('/api/admin/guest-mode-status'),
      await client.post('/api/admin/enter-guest-mode', { userId: target.user.id }),
      await client.post('/api/admin/exit-guest-mode'),
      await client.get('/api/admin/users'),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ message: 'Administrator access required' });
    }
  });

  it('status says not in guest mode before entering', async () => {
    const { client } = await signedInAdmin(testApp.app, testApp.orm);
    expect((await client.get('/api/admin/guest-mode-status')).body).toEqual({ isGuestMode: false, guestUserId: null, guestUsername: null });
  });

  it('enter: the admin sees the user’s stores while /api/user stays the admin', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    const entered = await admin.client.post('/api/admin/enter-guest-mode', { userId: target.user.id });
    expect(entered.status).toBe(200);
    expect(entered.body).toEqual({ isGuestMode: true, guestUserId: target.user.id, guestUsername: target.credentials.username });
    expect((await admin.client.get('/api/admin/guest-mode-status')).body).toEqual(entered.body);

    expect((await admin.client.get('/api/user')).body).toMatchObject({ id: admin.user.id, isAdmin: true });
    expect((await admin.client.get('/api/stores')).body.map((s: { name: string }) => s.name)).toEqual(['Viewed One', 'Viewed Two']);
    expect((await admin.client.get('/api/stores/active')).body.store.id).toBe(target.second.id);
    expect((await admin.client.get('/api/subscription/current')).body.subscription.plan.name).toBe('Professional');
    expect((await admin.client.get('/api/stores/dashboard-limits')).body).toMatchObject({ isAdmin: false, currentDashboards: 2, maxDashboards: 3 });
  });

  it('is read-only: mutations answer 403 "Guest mode is read-only" and change nothing', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    await admin.client.post('/api/admin/enter-guest-mode', { userId: target.user.id });
    const attempts = [
      await admin.client.post('/api/stores', { name: 'Sneaky' }),
      await admin.client.patch(`/api/stores/${target.first.id}`, { name: 'Renamed' }),
      await admin.client.patch(`/api/stores/${target.first.id}`, { currency: 'USD' }),
      await admin.client.delete(`/api/stores/${target.first.id}`),
      await admin.client.post('/api/subscription/checkout', { planId: 1 }),
      await admin.client.post('/api/subscription/trial', { planId: 1 }),
      await admin.client.post('/api/admin/enter-guest-mode', { userId: admin.user.id }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403);
      expect(attempt.body).toEqual({ message: 'Guest mode is read-only' });
    }
    expect((await target.client.get('/api/stores')).body.map((s: { name: string; currency: string }) => [s.name, s.currency])).toEqual([
      ['Viewed One', 'GBP'],
      ['Viewed Two', 'GBP'],
    ]);
  });

  it("switching the viewed store does not change the user's own active store", async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    await admin.client.post('/api/admin/enter-guest-mode', { userId: target.user.id });
    const switched = await admin.client.post('/api/stores/active', { storeId: target.first.id });
    expect(switched.status).toBe(200);
    expect((await admin.client.get('/api/stores/active')).body.store.id).toBe(target.first.id);
    expect((await target.client.get('/api/stores/active')).body.store.id).toBe(target.second.id);
  });

  it('exit returns to the admin account; entries and exits are in the audit log', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    await admin.client.post('/api/admin/enter-guest-mode', { userId: target.user.id });
    const exited = await admin.client.post('/api/admin/exit-guest-mode');
    expect(exited.status).toBe(200);
    expect(exited.body).toEqual({ success: true });
    expect((await admin.client.get('/api/admin/guest-mode-status')).body.isGuestMode).toBe(false);
    expect((await admin.client.get('/api/stores')).body).toEqual([]);
    expect((await admin.client.post('/api/stores', { name: 'Admin own' })).status).toBe(201);

    const again = await admin.client.post('/api/admin/exit-guest-mode');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'You are not in guest mode' });

    const log = await testApp.orm.em.fork().find(AuditLogEntry, { actorUserId: admin.user.id }, { orderBy: { id: 'asc' } });
    expect(log.map((entry) => [entry.action, entry.targetUserId])).toEqual([
      ['guest_mode.enter', target.user.id],
      ['guest_mode.exit', target.user.id],
    ]);
    expect(log[0]!.ipAddress).toBe('127.0.0.1');
  });

  it('refuses unknown users, oneself and malformed ids', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: 99999999 })).body).toEqual({ message: 'User not found' });
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: admin.user.id })).status).toBe(400);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: 'x' })).status).toBe(400);
    expect((await admin.client.get('/api/admin/guest-mode-status')).body.isGuestMode).toBe(false);
  });

  it('a guest-mode session whose admin lost the role acts as the account itself', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    await admin.client.post('/api/admin/enter-guest-mode', { userId: target.user.id });
    await testApp.orm.em.fork().nativeUpdate(User, { id: admin.user.id }, { isAdmin: false });
    expect((await admin.client.get('/api/stores')).body).toEqual([]);
    expect((await admin.client.get('/api/admin/guest-mode-status')).status).toBe(403);
    expect(await testApp.orm.em.fork().count(Store, { owner: target.user.id })).toBe(2);
  });
});

describe('GET /api/admin/users', () => {
  it('lists accounts with store counts and plans', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    const users = (await admin.client.get('/api/admin/users')).body as { id: number; stores: number; plan: string | null; hasActiveSubscription: boolean }[];
    expect(users.find((user) => user.id === target.user.id)).toMatchObject({ stores: 2, plan: 'Professional', hasActiveSubscription: true });
    expect(users.find((user) => user.id === admin.user.id)).toMatchObject({ stores: 0, plan: null, hasActiveSubscription: false });
  });
});

describe('console figures and details', () => {
  async function planIdOf(client: ApiClient, name: string): Promise<number> {
    return ((await client.get('/api/subscription/plans')).body as { id: number; name: string }[]).find((plan) => plan.name === name)!.id;
  }

  it('stats count users, live subscriptions, trials and MRR from paid plans only (GBP)', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const before = (await admin.client.get('/api/admin/stats')).body;

    const trialist = await signedInClient(testApp.app, 'trialist');
    await trialist.client.post('/api/subscription/trial', { planId: await planIdOf(trialist.client, 'Professional') });
    const payer = await signedInClient(testApp.app, 'payer');
    await payer.client.post('/api/subscription/checkout', { planId: await planIdOf(payer.client, 'Business') });
    const granted = await signedInClient(testApp.app, 'granted');
    await grantTestPlan(testApp.orm, granted.credentials.username, 'enterprise');
    const lapsed = await signedInClient(testApp.app, 'lapsed');
    await lapsed.client.post('/api/subscription/checkout', { planId: await planIdOf(lapsed.client, 'Basic') });
    await testApp.orm.em.fork().nativeUpdate(Subscription, { user: lapsed.user.id }, { status: 'canceled' });

    const after = (await admin.client.get('/api/admin/stats')).body;
    expect(after.users - before.users).toBe(4);
    expect(after.newUsers7d - before.newUsers7d).toBe(4);
    expect(after.newUsers30d - before.newUsers30d).toBe(4);
    expect(after.trials - before.trials).toBe(1);
    // The paid Business plan and the admin-granted Enterprise plan are live; only the paid one is revenue.
    expect(after.activeSubscriptions - before.activeSubscriptions).toBe(2);
    expect(after.mrrMinor - before.mrrMinor).toBe(19900);
    expect(after.currency).toBe('GBP');
    expect(after.recentSignups.slice(0, 4).map((signup: { username: string }) => signup.username)).toEqual([
      lapsed.credentials.username,
      granted.credentials.username,
      payer.credentials.username,
      trialist.credentials.username,
    ]);
    expect(after.recentSignups[1]).toMatchObject({ email: granted.credentials.email, plan: 'Enterprise' });
  });

  it('grant-plan by id gives the plan for the days asked and is audited with both usernames', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await signedInClient(testApp.app, 'grantee');
    const before = Date.now();
    const answer = await admin.client.post(`/api/admin/users/${target.user.id}/grant-plan`, { tier: 'business', days: 10 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ username: target.credentials.username, plan: 'Business', tier: 'business', status: 'active' });
    const days = (Date.parse(answer.body.currentPeriodEnd) - before) / 86_400_000;
    expect(days).toBeGreaterThan(9.99);
    expect(days).toBeLessThan(10.01);
    expect((await target.client.get('/api/subscription/current')).body).toMatchObject({ hasActiveSubscription: true, subscription: { plan: { name: 'Business' } } });

    const log = (await admin.client.get('/api/admin/audit-log?limit=5')).body;
    expect(log.length).toBeLessThanOrEqual(5);
    expect(log[0]).toMatchObject({
      action: 'subscription.grant',
      actorUserId: admin.user.id,
      actorUsername: admin.credentials.username,
      targetUserId: target.user.id,
      targetUsername: target.credentials.username,
      details: { plan: 'Business', days: 10 },
    });

    const badTier = await admin.client.post(`/api/admin/users/${target.user.id}/grant-plan`, { tier: 'gold', days: 10 });
    expect(badTier.status).toBe(400);
    expect(badTier.body.message).toBe('Plan must be one of basic, professional, business, enterprise');
    const badDays = await admin.client.post(`/api/admin/users/${target.user.id}/grant-plan`, { tier: 'basic', days: 0 });
    expect(badDays.body.message).toBe('Days must be at least 1');
    const unknown = await admin.client.post('/api/admin/users/99999999/grant-plan', { tier: 'basic', days: 5 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'User not found' });
  });

  it('user detail: account, access, stores with guest counts, shared stores, subscription history and audit entries', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const target = await viewedUser();
    const guest = await newGuestOf(testApp.app, testApp.orm, target, target.first.id);
    await admin.client.post(`/api/admin/users/${target.user.id}/grant-plan`, { tier: 'business', days: 30 });

    const detail = await admin.client.get(`/api/admin/users/${target.user.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.user).toMatchObject({ id: target.user.id, username: target.credentials.username, email: target.credentials.email, isAdmin: false, isGuest: false });
    expect(detail.body.access).toEqual({ hasActiveSubscription: true, source: 'own', tier: 'business', maxDashboards: 10 });
    expect(detail.body.stores.map((store: { name: string; guests: number }) => [store.name, store.guests])).toEqual([
      ['Viewed One', 1],
      ['Viewed Two', 0],
    ]);
    expect(detail.body.subscriptions.map((s: { plan: string; status: string; live: boolean }) => [s.plan, s.status, s.live])).toEqual([
      ['Business', 'active', true],
      ['Professional', 'canceled', false],
    ]);
    expect(detail.body.audit.map((entry: { action: string }) => entry.action)).toEqual(['subscription.grant', 'guest.invited', 'subscription.grant']);

    const guestDetail = (await admin.client.get(`/api/admin/users/${guest.user.id}`)).body;
    expect(guestDetail.user.isGuest).toBe(true);
    expect(guestDetail.access).toMatchObject({ hasActiveSubscription: true, source: 'guest', tier: null });
    expect(guestDetail.sharedStores).toEqual([expect.objectContaining({ id: target.first.id, name: 'Viewed One', ownerUsername: target.credentials.username })]);

    expect((await admin.client.get('/api/admin/users/99999999')).body).toEqual({ message: 'User not found' });
  });

  it('stats, audit log, detail and grant are for admins only', async () => {
    const { client, user } = await signedInClient(testApp.app, 'nosy');
    for (const answer of [
      await client.get('/api/admin/stats'),
      await client.get('/api/admin/audit-log'),
      await client.get(`/api/admin/users/${user.id}`),
      await client.post(`/api/admin/users/${user.id}/grant-plan`, { tier: 'enterprise', days: 365 }),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ message: 'Administrator access required' });
    }
    expect((await client.get('/api/subscription/current')).body.hasActiveSubscription).toBe(false);
    expect((await new ApiClient(testApp.app).get('/api/admin/stats')).status).toBe(401);
  });
});
