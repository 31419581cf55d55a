import { describe, expect, it } from 'vitest';
import { ApiClient, grantTestPlan, signedInAdmin, signedInClient, useTestApp } from '../../../../test/harness.ts';

const testApp = useTestApp();

const LIMIT_TEXT = "You've reached your dashboard limit. Please upgrade your plan to create more dashboards.";

async function subscribedClient(tier: 'basic' | 'professional' | 'business' | 'enterprise' = 'business') {
  const signedIn = await signedInClient(testApp.app, tier);
  await grantTestPlan(testApp.orm, signedIn.credentials.username, tier);
  return signedIn;
}

describe('creating stores', () => {
  it('answers 201 with id and name, and the first store becomes active', async () => {
    const { client } = await subscribedClient();
    expect((await client.get('/api/stores/active')).body).toEqual({ store: null });
    const created = await client.post('/api/stores', { name: '  Acme Outdoors  ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'Acme Outdoors', currency: 'GBP' });
    expect((await client.get('/api/stores/active')).body.store.id).toBe(created.body.id);

    const second = await client.post('/api/stores', { name: 'Second' });
    expect((await client.get('/api/stores/active')).body.store.id).toBe(created.body.id);
    expect((await client.get('/api/stores')).body.map((store: { name: string }) => store.name)).toEqual(['Acme Outdoors', 'Second']);
    expect(second.status).toBe(201);
  });

  it.each([[{ name: '' }], [{ name: '   ' }], [{}], [{ name: 42 }]])('refuses %j with "Store name is required"', async (body) => {
    const { client } = await subscribedClient();
    const answer = await client.post('/api/stores', body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('Store name is required');
    expect(answer.body.errors).toEqual([{ field: 'name', message: 'Store name is required' }]);
    expect((await client.get('/api/stores')).body).toEqual([]);
  });

  it('refuses a body that is not an object', async () => {
    const { client } = await subscribedClient();
    const answer = await client.post('/api/stores', ['Acme']);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('The request body must be a JSON object');
  });

  it.each([
    ['no plan', null, 1],
    ['basic', 'basic', 1],
    ['professional', 'professional', 3],
    ['business', 'business', 10],
  ] as const)('with %s allows %i dashboards, then answers 403 with the limit text', async (_label, tier, max) => {
    const { client, credentials } = await signedInClient(testApp.app, 'limit');
    if (tier) await grantTestPlan(testApp.orm, credentials.username, tier);
    for (let i = 0; i < max; i += 1) expect((await client.post('/api/stores', { name: `Store ${i}` })).status).toBe(201);
    const limits = await client.get('/api/stores/dashboard-limits');
    expect(limits.body).toEqual({ isAdmin: false, canAddMore: false, currentDashboards: max, maxDashboards: max, remainingDashboards: 0 });
    const refused = await client.post('/api/stores', { name: 'One too many' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: LIMIT_TEXT });
    expect((await client.get('/api/stores')).body).toHaveLength(max);
  });

  it('enterprise allows 50', async () => {
    const { client } = await subscribedClient('enterprise');
    const limits = await client.get('/api/stores/dashboard-limits');
    expect(limits.body).toMatchObject({ maxDashboards: 50, remainingDashboards: 50, canAddMore: true });
  });

  it('admins are unlimited', async () => {
    const { client } = await signedInAdmin(testApp.app, testApp.orm);
    for (let i = 0; i < 3; i += 1) expect((await client.post('/api/stores', { name: `Admin ${i}` })).status).toBe(201);
    const limits = await client.get('/api/stores/dashboard-limits');
    expect(limits.body).toEqual({ isAdmin: true, canAddMore: true, currentDashboards: 3, maxDashboards: null, remainingDashboards: null });
  });

  it('cannot take the last slot twice with concurrent requests', async () => {
    const { client } = await subscribedClient('professional');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => client.post('/api/stores', { name: `Race ${i}` })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 403)).toHaveLength(3);
    expect((await client.get('/api/stores')).body).toHaveLength(3);
  });

  it('dashboard-limits is sent with no-cache headers', async () => {
    const { client } = await subscribedClient();
    const answer = await client.get('/api/stores/dashboard-limits');
    expect(answer.headers['cache-control']).toMatch(/no-cache/);
    expect(answer.headers['cache-control']).toMatch(/no-store/);
    expect(answer.headers.pragma).toBe('no-cache');
  });
});

describe('updating, switching and deleting', () => {
  it('PATCH renames and changes currency among the five supported codes only', async () => {
    const { client } = await subscribedClient();
    const store = (await client.post('/api/stores', { name: 'Old name' })).body;
    const renamed = await client.patch(`/api/stores/${store.id}`, { name: 'New name', currency: 'EUR' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: store.id, name: 'New name', currency: 'EUR' });
    for (const code of ['USD', 'GBP', 'CAD', 'AUD']) {
      expect((await client.patch(`/api/stores/${store.id}`, { currency: code })).body.currency).toBe(code);
    }
    const refused = await client.patch(`/api/stores/${store.id}`, { currency: 'JPY' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Currency must be one of USD, GBP, EUR, CAD, AUD');
    expect((await client.get('/api/stores/active')).body.store.currency).toBe('AUD');

    const blank = await client.patch(`/api/stores/${store.id}`, { name: ' ' });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe('Store name is required');
    const empty = await client.patch(`/api/stores/${store.id}`, {});
    expect(empty.status).toBe(400);
  });

  it('POST /api/stores/active switches the active store', async () => {
    const { client } = await subscribedClient();
    const first = (await client.post('/api/stores', { name: 'First' })).body;
    const second = (await client.post('/api/stores', { name: 'Second' })).body;
    const answer = await client.post('/api/stores/active', { storeId: second.id });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, store: { id: second.id } });
    expect((await client.get('/api/stores/active')).body.store.id).toBe(second.id);
    expect((await client.post('/api/stores/active', { storeId: 'abc' })).status).toBe(400);
    expect((await client.post('/api/stores/active', { storeId: 99999999 })).status).toBe(404);
    expect((await client.get('/api/stores/active')).body.store.id).toBe(second.id);
    expect(first.id).toBeLessThan(second.id);
  });

  it('DELETE of the active store moves the active store to the first remaining one', async () => {
    const { client } = await subscribedClient();
    const a = (await client.post('/api/stores', { name: 'A' })).body;
    const b = (await client.post('/api/stores', { name: 'B' })).body;
    const c = (await client.post('/api/stores', { name: 'C' })).body;
    await client.post('/api/stores/active', { storeId: c.id });
    const deleted = await client.delete(`/api/stores/${c.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, activeStoreId: a.id });
    expect((await client.get('/api/stores/active')).body.store.id).toBe(a.id);

    expect((await client.delete(`/api/stores/${b.id}`)).body.activeStoreId).toBe(a.id);
    expect((await client.delete(`/api/stores/${a.id}`)).body.activeStoreId).toBeNull();
    expect((await client.get('/api/stores/active')).body).toEqual({ store: null });
    expect((await client.delete(`/api/stores/${a.id}`)).status).toBe(404);
  });
});

describe('isolation between users', () => {
  it("every store call with another user's store id answers 404 and changes nothing", async () => {
    const owner = await subscribedClient();
    const intruder = await subscribedClient();
    const store = (await owner.client.post('/api/stores', { name: 'Private' })).body;
    const own = (await intruder.client.post('/api/stores', { name: 'Intruder store' })).body;

    const attempts = [
      await intruder.client.patch(`/api/stores/${store.id}`, { name: 'Hacked' }),
      await intruder.client.patch(`/api/stores/${store.id}`, { currency: 'USD' }),
      await intruder.client.delete(`/api/stores/${store.id}`),
      await intruder.client.post('/api/stores/active', { storeId: store.id }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      expect(attempt.body).toEqual({ message: 'Store not found' });
    }

    expect((await intruder.client.get('/api/stores')).body.map((s: { id: number }) => s.id)).toEqual([own.id]);
    expect((await intruder.client.get('/api/stores/active')).body.store.id).toBe(own.id);
    expect((await intruder.client.get('/api/stores/dashboard-limits')).body.currentDashboards).toBe(1);
    expect((await owner.client.get('/api/stores')).body).toEqual([expect.objectContaining({ id: store.id, name: 'Private', currency: 'GBP' })]);
  });

  it('every store call answers 401 when signed out', async () => {
    const anonymous = new ApiClient(testApp.app);
    const answers = [
      await anonymous.get('/api/stores'),
      await anonymous.get('/api/stores/active'),
      await anonymous.post('/api/stores/active', { storeId: 1 }),
      await anonymous.post('/api/stores', { name: 'X' }),
      await anonymous.patch('/api/stores/1', { name: 'X' }),
      await anonymous.delete('/api/stores/1'),
      await anonymous.get('/api/stores/dashboard-limits'),
    ];
    for (const answer of answers) expect(answer.status).toBe(401);
  });
});

describe('role and owner of each store', () => {
  it("an owner's stores say role 'owner' with the owner's username, in list, active, switch, create and update", async () => {
    const { client, credentials } = await subscribedClient();
    const mine = { role: 'owner', ownerUsername: credentials.username };
    const created = await client.post('/api/stores', { name: 'Mine' });
    expect(created.body).toMatchObject(mine);
    expect((await client.get('/api/stores')).body).toEqual([expect.objectContaining({ id: created.body.id, ...mine })]);
    expect((await client.get('/api/stores/active')).body.store).toMatchObject(mine);
    expect((await client.post('/api/stores/active', { storeId: created.body.id })).body.store).toMatchObject(mine);
    expect((await client.patch(`/api/stores/${created.body.id}`, { name: 'Still mine' })).body).toMatchObject({ name: 'Still mine', ...mine });
  });
});
