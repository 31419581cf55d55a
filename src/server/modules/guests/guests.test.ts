import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { invitationTokenFor, newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { ApiClient, grantTestPlan, signedInAdmin, signedInClient, testServices, uniqueUser, useTestApp } from '../../../../test/harness.ts';
import { memorySession } from '../sessions/session-control.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { Store } from '../stores/store.entity.ts';
import { Subscription } from '../subscriptions/subscription.entity.ts';
import { User } from '../users/user.entity.ts';
import { createContextInner } from '../../trpc/context.ts';
import { createCallerFactory, router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { GuestInvitation, StoreGuest } from './guest-invitation.entity.ts';

const testApp = useTestApp();

const NOT_FOUND = { message: 'Store not found' };
const UNUSABLE = { message: 'This invitation has expired or was revoked.' };

// storeProcedure is what every tenant-data screen builds on: it must hand a guest the shared store.
const storeProbe = createCallerFactory(router({ store: storeProcedure.query(({ ctx }) => ({ id: ctx.store.id, name: ctx.store.name })) }));
async function probeStore(userId: number) {
  return storeProbe(await createContextInner({ em: testApp.orm.em.fork(), session: memorySession({ userId }), services: testServices() })).store();
}

describe('inviting', () => {
  it('e-mails a 7-day link whose token is stored only as its SHA-256, and audits it', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Acme Outdoors');
    const before = Date.now();
    const answer = await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: '  Friend.One@Example.com ' });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ storeId: owner.store.id, storeName: 'Acme Outdoors', email: 'friend.one@example.com' });
    const days = (Date.parse(answer.body.expiresAt) - before) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);

    const email = await testApp.orm.em.fork().findOneOrFail(OutboundEmail, { toAddress: 'friend.one@example.com' });
    expect(email.subject).toBe(`${owner.credentials.username} invited you to view Acme Outdoors on StorePulse`);
    expect(email.textBody).toContain('Accept the invitation within 7 days');
    expect(email.textBody).toMatch(/http:\/\/localhost(:80)?\/accept-invite\?token=[A-Za-z0-9_-]{43}\n/);

    const token = await invitationTokenFor(testApp.orm, 'friend.one@example.com');
    const row = await testApp.orm.em.fork().findOneOrFail(GuestInvitation, { id: answer.body.id });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);

    const audit = await testApp.orm.em.fork().findOneOrFail(AuditLogEntry, { actorUserId: owner.user.id, action: 'guest.invited' });
    expect(audit.details).toMatchObject({ storeId: owner.store.id, email: 'friend.one@example.com' });
  });

  it('needs a plan with tools and the caller’s own store', async () => {
    const basic = await ownerWithStore(testApp.app, testApp.orm, 'Basic Shop', 'basic');
    const refused = await basic.client.post('/api/guests/invitations', { storeId: basic.store.id, email: 'x@example.com' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'AI tools are not included in your plan. Please upgrade your plan to use them.' });

    const unsubscribed = await signedInClient(testApp.app, 'nosub');
    const noPlan = await unsubscribed.client.post('/api/guests/invitations', { storeId: basic.store.id, email: 'x@example.com' });
    expect(noPlan.status).toBe(403);
    expect(noPlan.body).toEqual({ message: 'You need an active subscription to access this feature' });

    const other = await ownerWithStore(testApp.app, testApp.orm, 'Other Shop');
    const notOwn = await other.client.post('/api/guests/invitations', { storeId: basic.store.id, email: 'x@example.com' });
    expect(notOwn.status).toBe(404);
    expect(notOwn.body).toEqual(NOT_FOUND);

    expect((await new ApiClient(testApp.app).post('/api/guests/invitations', { storeId: basic.store.id, email: 'x@example.com' })).status).toBe(401);
    expect(await testApp.orm.em.fork().count(GuestInvitation, { store: basic.store.id })).toBe(0);
  });

  it('refuses an invalid address, oneself and someone who already has access', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const invalid = await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: 'not-an-email' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([{ field: 'email', message: 'Enter a valid email address' }]);

    const self = await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: owner.credentials.email.toUpperCase() });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe('You cannot invite yourself');

    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const again = await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: guest.credentials.email });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('This person already has access to this store');
  });

  it('inviting the same address again replaces the pending link', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const { email } = uniqueUser('twice');
    await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email });
    const first = await invitationTokenFor(testApp.orm, email);
    await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email });
    const second = await invitationTokenFor(testApp.orm, email);
    expect(second).not.toBe(first);
    expect((await new ApiClient(testApp.app).get(`/api/invitations/${first}`)).body.status).toBe('revoked');
    expect((await new ApiClient(testApp.app).get(`/api/invitations/${second}`)).body.status).toBe('pending');
    expect((await owner.client.get('/api/guests')).body.invitations.map((i: { email: string }) => i.email)).toEqual([email]);
  });
});

describe('the invitation link', () => {
  it('describes itself to anyone, and says when it is unknown, expired, revoked or accepted', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Link Shop');
    const { email } = uniqueUser('link');
    const invited = (await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email })).body;
    const token = await invitationTokenFor(testApp.orm, email);
    const anonymous = new ApiClient(testApp.app);

    const shown = await anonymous.get(`/api/invitations/${token}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ storeName: 'Link Shop', inviterName: owner.credentials.username, email, status: 'pending' });

    const unknown = await anonymous.get('/api/invitations/not-a-real-token');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Invitation not found' });

    await testApp.orm.em.fork().nativeUpdate(GuestInvitation, { id: invited.id }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await anonymous.get(`/api/invitations/${token}`)).body.status).toBe('expired');

    const registered = new ApiClient(testApp.app);
    await registered.post('/api/register', { ...uniqueUser('late'), email });
    const late = await registered.post(`/api/invitations/${token}/accept`);
    expect(late.status).toBe(400);
    expect(late.body).toEqual(UNUSABLE);
    expect(await testApp.orm.em.fork().count(StoreGuest, { store: owner.store.id })).toBe(0);
  });

  it('a revoked invitation cannot be accepted; revoking is for the owner only', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const credentials = uniqueUser('revoked');
    const invited = (await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: credentials.email })).body;
    const token = await invitationTokenFor(testApp.orm, credentials.email);

    const stranger = await signedInClient(testApp.app, 'stranger');
    const notTheirs = await stranger.client.delete(`/api/guests/invitations/${invited.id}`);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body).toEqual({ message: 'Invitation not found' });

    expect((await owner.client.delete(`/api/guests/invitations/${invited.id}`)).body).toEqual({ success: true });
    expect((await owner.client.get('/api/guests')).body.invitations).toEqual([]);
    expect((await new ApiClient(testApp.app).get(`/api/invitations/${token}`)).body.status).toBe('revoked');

    const guest = new ApiClient(testApp.app);
    await guest.post('/api/register', credentials);
    const refused = await guest.post(`/api/invitations/${token}/accept`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(UNUSABLE);
    expect((await guest.get('/api/stores')).body).toEqual([]);
  });

  it('accepting needs a session and the invited address (any letter case)', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const credentials = uniqueUser('caseguest');
    await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: credentials.email.toUpperCase() });
    const token = await invitationTokenFor(testApp.orm, credentials.email);

    expect((await new ApiClient(testApp.app).post(`/api/invitations/${token}/accept`)).status).toBe(401);

    const other = await signedInClient(testApp.app, 'wrongaddress');
    const wrong = await other.client.post(`/api/invitations/${token}/accept`);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ message: 'This invitation was sent to another email address' });
    expect((await other.client.get('/api/stores')).body).toEqual([]);

    const guest = new ApiClient(testApp.app);
    await guest.post('/api/register', credentials);
    const accepted = await guest.post(`/api/invitations/${token}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ success: true, storeId: owner.store.id, storeName: owner.store.name });
    // Opening the link again is harmless.
    expect((await guest.post(`/api/invitations/${token}/accept`)).status).toBe(200);
    expect((await new ApiClient(testApp.app).get(`/api/invitations/${token}`)).body.status).toBe('accepted');
  });
});

describe('what a guest sees and may do', () => {
  it('a new user with no store and no plan becomes a guest account that sees the shared store, read-only', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Owner Shop');
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);

    expect((await guest.client.get('/api/user')).body).toMatchObject({ id: guest.user.id, isGuest: true });
    const expected = { id: owner.store.id, name: 'Owner Shop', currency: 'GBP', role: 'guest', ownerUsername: owner.credentials.username };
    expect((await guest.client.get('/api/stores')).body).toEqual([expect.objectContaining(expected)]);
    expect((await guest.client.get('/api/stores/active')).body.store).toMatchObject(expected);
    expect((await guest.client.post('/api/stores/active', { storeId: owner.store.id })).body).toMatchObject({ success: true, store: expected });
    expect((await guest.client.get('/api/subscription/current')).body).toEqual({ hasActiveSubscription: true, subscription: null, access: 'guest' });
    expect(await probeStore(guest.user.id)).toEqual({ id: owner.store.id, name: 'Owner Shop' });

    const em = testApp.orm.em.fork();
    em.create(PlatformConnection, { store: owner.store.id, platform: 'shopify', connected: true, lastCheckedAt: new Date('2026-11-20T09:30:00Z') });
    await em.flush();
    expect((await guest.client.get('/api/connection-status')).body).toEqual([{ platform: 'shopify', connected: true, lastChecked: '2026-11-20T09:30:00.000Z' }]);

    for (const attempt of [
      await guest.client.patch(`/api/stores/${owner.store.id}`, { name: 'Renamed by guest' }),
      await guest.client.patch(`/api/stores/${owner.store.id}`, { currency: 'USD' }),
      await guest.client.delete(`/api/stores/${owner.store.id}`),
    ]) {
      expect(attempt.status).toBe(404);
      expect(attempt.body).toEqual(NOT_FOUND);
    }
    expect((await owner.client.get('/api/stores')).body).toEqual([
      expect.objectContaining({ id: owner.store.id, name: 'Owner Shop', currency: 'GBP', role: 'owner', ownerUsername: owner.credentials.username }),
    ]);

    // Tools stay with the paying owner, and the shared store is no dashboard of the guest's.
    const invite = await guest.client.post('/api/guests/invitations', { storeId: owner.store.id, email: 'someone@example.com' });
    expect(invite.status).toBe(403);
    expect(invite.body.message).toBe('AI tools are not included in your plan. Please upgrade your plan to use them.');
    expect((await guest.client.get('/api/stores/dashboard-limits')).body).toEqual({
      isAdmin: false,
      canAddMore: true,
      currentDashboards: 0,
      maxDashboards: 1,
      remainingDashboards: 1,
    });
    expect((await owner.client.get('/api/stores/dashboard-limits')).body).toMatchObject({ currentDashboards: 1, maxDashboards: 3 });
  });

  it('someone with stores and a plan keeps their own active store and account type; shared stores come after their own', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Their Shop');
    const credentials = uniqueUser('both');
    const member = await signedInClient(testApp.app, 'unused');
    // An established user: own plan and store, then invited.
    const established = new ApiClient(testApp.app);
    await established.post('/api/register', credentials);
    await grantTestPlan(testApp.orm, credentials.username, 'basic');
    const own = (await established.post('/api/stores', { name: 'My Own' })).body;
    await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: credentials.email });
    expect((await established.post(`/api/invitations/${await invitationTokenFor(testApp.orm, credentials.email)}/accept`)).status).toBe(200);

    expect((await established.get('/api/user')).body.isGuest).toBe(false);
    expect((await established.get('/api/stores')).body.map((s: { id: number; role: string }) => [s.id, s.role])).toEqual([
      [own.id, 'owner'],
      [owner.store.id, 'guest'],
    ]);
    expect((await established.get('/api/stores/active')).body.store.id).toBe(own.id);
    expect((await established.get('/api/subscription/current')).body).toMatchObject({ access: 'own', subscription: { plan: { name: 'Basic' } } });
    // Their basic plan allows one dashboard: the shared store does not take it.
    expect((await established.get('/api/stores/dashboard-limits')).body).toMatchObject({ currentDashboards: 1, maxDashboards: 1 });

    // Everyone else still gets 404.
    for (const attempt of [
      await member.client.post('/api/stores/active', { storeId: owner.store.id }),
      await member.client.patch(`/api/stores/${owner.store.id}`, { name: 'x' }),
    ]) {
      expect(attempt.status).toBe(404);
      expect(attempt.body).toEqual(NOT_FOUND);
    }
    expect((await member.client.get('/api/stores')).body).toEqual([]);
  });

  it('an admin viewing a guest account sees what the guest sees', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Viewed Shared');
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    await admin.client.post('/api/admin/enter-guest-mode', { userId: guest.user.id });
    expect((await admin.client.get('/api/stores')).body).toEqual([expect.objectContaining({ id: owner.store.id, role: 'guest' })]);
    expect((await admin.client.get('/api/stores/active')).body.store.id).toBe(owner.store.id);
  });
});

describe('access ends', () => {
  it('when the owner removes the guest: the store disappears, the gate closes, the old link is dead', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    expect((await owner.client.get('/api/guests')).body.guests).toEqual([
      expect.objectContaining({ storeId: owner.store.id, userId: guest.user.id, username: guest.credentials.username, email: guest.credentials.email }),
    ]);

    const stranger = await ownerWithStore(testApp.app, testApp.orm, 'Stranger Shop');
    const notTheirs = await stranger.client.delete(`/api/stores/${owner.store.id}/guests/${guest.user.id}`);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body).toEqual(NOT_FOUND);

    const removed = await owner.client.delete(`/api/stores/${owner.store.id}/guests/${guest.user.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });

    expect((await guest.client.get('/api/stores')).body).toEqual([]);
    expect((await guest.client.get('/api/stores/active')).body).toEqual({ store: null });
    expect((await guest.client.get('/api/connection-status')).body).toEqual([]);
    expect((await guest.client.get('/api/subscription/current')).body).toEqual({ hasActiveSubscription: false, subscription: null, access: 'none' });
    expect((await guest.client.post('/api/stores/active', { storeId: owner.store.id })).status).toBe(404);
    await expect(probeStore(guest.user.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await owner.client.get('/api/guests')).body.guests).toEqual([]);
    expect((await guest.client.post(`/api/invitations/${guest.token}/accept`)).body).toEqual(UNUSABLE);

    const again = await owner.client.delete(`/api/stores/${owner.store.id}/guests/${guest.user.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: 'Guest not found' });

    const audit = await testApp.orm.em.fork().findOneOrFail(AuditLogEntry, { action: 'guest.removed', targetUserId: guest.user.id });
    expect(audit.actorUserId).toBe(owner.user.id);
  });

  it('when the store is deleted: the guest falls back to their own store', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Doomed');
    const credentials = uniqueUser('fallback');
    const guest = new ApiClient(testApp.app);
    await guest.post('/api/register', credentials);
    await grantTestPlan(testApp.orm, credentials.username, 'basic');
    await owner.client.post('/api/guests/invitations', { storeId: owner.store.id, email: credentials.email });
    await guest.post(`/api/invitations/${await invitationTokenFor(testApp.orm, credentials.email)}/accept`);
    // Their first own store becomes active (spec), then they switch to the shared one.
    const own = (await guest.post('/api/stores', { name: 'Fallback Own' })).body;
    expect((await guest.get('/api/stores/active')).body.store.id).toBe(own.id);
    expect((await guest.post('/api/stores/active', { storeId: owner.store.id })).status).toBe(200);
    expect((await guest.get('/api/stores/active')).body.store.id).toBe(owner.store.id);

    expect((await owner.client.delete(`/api/stores/${owner.store.id}`)).status).toBe(200);
    expect((await guest.get('/api/stores')).body.map((s: { id: number }) => s.id)).toEqual([own.id]);
    expect((await guest.get('/api/stores/active')).body.store.id).toBe(own.id);
  });

  it("when the owner's subscription lapses, a guest without a plan loses the subscription gate", async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    expect(await probeStore(guest.user.id)).toMatchObject({ id: owner.store.id });
    await testApp.orm.em.fork().nativeUpdate(Subscription, { user: owner.user.id }, { status: 'canceled' });
    expect((await guest.client.get('/api/subscription/current')).body).toEqual({ hasActiveSubscription: false, subscription: null, access: 'none' });
    await expect(probeStore(guest.user.id)).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'You need an active subscription to access this feature' });
    // The store itself stays listed: the owner may renew.
    expect((await guest.client.get('/api/stores')).body).toHaveLength(1);
  });
});

describe('the owner’s list', () => {
  it('shows pending invitations and guests of the caller’s stores only', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'First Shop');
    const second = (await owner.client.post('/api/stores', { name: 'Second Shop' })).body;
    const pendingEmail = uniqueUser('pending').email;
    await owner.client.post('/api/guests/invitations', { storeId: second.id, email: pendingEmail });
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);

    const list = (await owner.client.get('/api/guests')).body;
    expect(list.invitations).toEqual([expect.objectContaining({ storeId: second.id, storeName: 'Second Shop', email: pendingEmail })]);
    expect(list.guests).toEqual([expect.objectContaining({ storeId: owner.store.id, storeName: 'First Shop', userId: guest.user.id })]);

    expect((await guest.client.get('/api/guests')).body).toEqual({ invitations: [], guests: [] });
    expect((await new ApiClient(testApp.app).get('/api/guests')).status).toBe(401);
  });

  it('a guest who starts a plan of their own is no longer a guest account', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm);
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const plans = (await guest.client.get('/api/subscription/plans')).body as { id: number; name: string }[];
    await guest.client.post('/api/subscription/trial', { planId: plans.find((plan) => plan.name === 'Professional')!.id });
    expect((await guest.client.get('/api/user')).body.isGuest).toBe(false);
    expect((await guest.client.get('/api/subscription/current')).body).toMatchObject({ access: 'own' });
    expect((await testApp.orm.em.fork().findOneOrFail(User, { id: guest.user.id })).isGuest).toBe(false);
    expect(await testApp.orm.em.fork().count(Store, { owner: guest.user.id })).toBe(0);
  });
});
