import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { grantTestPlan, testServices, uniqueUser, useTestDatabase } from '../../../test/harness.ts';
import { createAccount } from '../modules/auth/auth.service.ts';
import { memorySession } from '../modules/sessions/session-control.ts';
import { StoreGuest } from '../modules/guests/guest-invitation.entity.ts';
import { Store } from '../modules/stores/store.entity.ts';
import { createContextInner } from './context.ts';
import { createCallerFactory, router } from './init.ts';
import {
  adminProcedure,
  authedProcedure,
  publicProcedure,
  storeProcedure,
  subscribedProcedure,
  toolsProcedure,
} from './procedures.ts';

// A router of probes, one per builder, so each access rule is tested on its own.
const probes = router({
  open: publicProcedure.query(() => 'ok'),
  write: publicProcedure.input(z.void()).mutation(() => 'written'),
  signedIn: authedProcedure.query(({ ctx }) => ctx.user.username),
  subscribed: subscribedProcedure.query(({ ctx }) => ctx.access.tier),
  tools: toolsProcedure.query(() => 'tools'),
  admin: adminProcedure.query(() => 'admin'),
  store: storeProcedure.query(({ ctx }) => ctx.store.name),
  storeWrite: storeProcedure.input(z.void()).mutation(({ ctx }) => `changed ${ctx.store.name}`),
});
const createProbeCaller = createCallerFactory(probes);

const database = useTestDatabase();

async function userWith(options: { tier?: 'basic' | 'professional'; admin?: boolean; store?: string } = {}) {
  const em = database.orm.em.fork();
  const credentials = uniqueUser('probe');
  const user = await createAccount(em, { ...credentials, isAdmin: options.admin ?? false });
  if (options.tier) await grantTestPlan(database.orm, credentials.username, options.tier);
  if (options.store) {
    const store = em.create(Store, { owner: user, name: options.store });
    user.activeStore = store;
    await em.flush();
  }
  return user;
}

async function callerFor(userId: number | null, guestUserId?: number) {
  const session = memorySession(userId === null ? {} : { userId, ...(guestUserId ? { guestUserId } : {}) });
  return createProbeCaller(await createContextInner({ em: database.orm.em.fork(), session, services: testServices() }));
}

describe('procedure builders', () => {
  it('public answers anyone; authed needs a session', async () => {
    const anonymous = await callerFor(null);
    expect(await anonymous.open()).toBe('ok');
    await expect(anonymous.signedIn()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('subscribed needs a live subscription or admin', async () => {
    const unsubscribed = await userWith();
    await expect((await callerFor(unsubscribed.id)).subscribed()).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: 'You need an active subscription to access this feature',
    });
    expect(await (await callerFor((await userWith({ tier: 'basic' })).id)).subscribed()).toBe('basic');
    expect(await (await callerFor((await userWith({ admin: true })).id)).subscribed()).toBeNull();
  });

  it('tools need a plan above basic, or an admin who is not in guest mode', async () => {
    await expect((await callerFor((await userWith({ tier: 'basic' })).id)).tools()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const professional = await userWith({ tier: 'professional' });
    expect(await (await callerFor(professional.id)).tools()).toBe('tools');
    const admin = await userWith({ admin: true });
    expect(await (await callerFor(admin.id)).tools()).toBe('tools');

    const basic = await userWith({ tier: 'basic' });
    await expect((await callerFor(admin.id, basic.id)).tools()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await (await callerFor(admin.id, professional.id)).tools()).toBe('tools');
  });

  it('admin refuses non-admins', async () => {
    await expect((await callerFor((await userWith({ tier: 'professional' })).id)).admin()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await (await callerFor((await userWith({ admin: true })).id)).admin()).toBe('admin');
  });

  it("store gives the caller's own active store, and says so when there is none", async () => {
    const withStore = await userWith({ tier: 'basic', store: 'Probe Store' });
    expect(await (await callerFor(withStore.id)).store()).toBe('Probe Store');
    await expect((await callerFor((await userWith({ tier: 'basic' })).id)).store()).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'No active store selected',
    });
  });

  it('lets an invited viewer read a shared store but not change it', async () => {
    const owner = await userWith({ tier: 'professional', store: 'Owned Store' });
    const viewer = await userWith({ tier: 'basic' });
    const em = database.orm.em.fork();
    em.create(StoreGuest, { store: owner.activeStore!.id, user: viewer.id, invitedBy: owner.id });
    await em.flush();
    const asViewer = await callerFor(viewer.id);
    expect(await asViewer.store()).toBe('Owned Store');
    await expect(asViewer.storeWrite()).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'You have view-only access to this store' });
    expect(await (await callerFor(owner.id)).storeWrite()).toBe('changed Owned Store');
  });

  it("guest mode reads the viewed user's data and refuses mutations", async () => {
    const admin = await userWith({ admin: true });
    const viewed = await userWith({ tier: 'professional', store: 'Viewed Store' });
    const asGuest = await callerFor(admin.id, viewed.id);
    expect(await asGuest.signedIn()).toBe(viewed.username);
    expect(await asGuest.store()).toBe('Viewed Store');
    await expect(asGuest.write()).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Guest mode is read-only' });
    expect(await (await callerFor(admin.id)).write()).toBe('written');
  });

  it('ignores a guest id in the session of a non-admin', async () => {
    const plain = await userWith({ tier: 'basic' });
    const other = await userWith({ tier: 'basic', store: 'Not yours' });
    const caller = await callerFor(plain.id, other.id);
    expect(await caller.signedIn()).toBe(plain.username);
    expect(await caller.write()).toBe('written');
  });
});
