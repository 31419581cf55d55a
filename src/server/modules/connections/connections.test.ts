import { describe, expect, it } from 'vitest';
import { ApiClient, grantTestPlan, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { PlatformConnection } from './platform-connection.entity.ts';

const testApp = useTestApp();

describe('GET /api/connection-status', () => {
  it('answers 401 when signed out and [] without a store or connections', async () => {
    expect((await new ApiClient(testApp.app).get('/api/connection-status')).status).toBe(401);
    const { client } = await signedInClient(testApp.app, 'conn');
    expect((await client.get('/api/connection-status')).body).toEqual([]);
    await client.post('/api/stores', { name: 'Empty' });
    expect((await client.get('/api/connection-status')).body).toEqual([]);
  });

  it("lists the active store's connections only, never another user's", async () => {
    const owner = await signedInClient(testApp.app, 'connowner');
    await grantTestPlan(testApp.orm, owner.credentials.username, 'professional');
    const first = (await owner.client.post('/api/stores', { name: 'First' })).body;
    const second = (await owner.client.post('/api/stores', { name: 'Second' })).body;
    const other = await signedInClient(testApp.app, 'connother');
    const otherStore = (await other.client.post('/api/stores', { name: 'Other' })).body;

    const checkedAt = new Date('2026-11-20T09:30:00Z');
    const em = testApp.orm.em.fork();
    em.create(PlatformConnection, { store: first.id, platform: 'shopify', connected: true, lastCheckedAt: checkedAt });
    em.create(PlatformConnection, { store: first.id, platform: 'metaads', connected: false, status: 'disconnected', lastCheckedAt: null });
    em.create(PlatformConnection, { store: first.id, platform: 'klaviyo', connected: false, status: 'not_connected', backfillMonths: 6 });
    em.create(PlatformConnection, { store: second.id, platform: 'woocommerce', connected: true, lastCheckedAt: checkedAt });
    em.create(PlatformConnection, { store: otherStore.id, platform: 'klaviyo', connected: true, lastCheckedAt: checkedAt });
    await em.flush();

    expect((await owner.client.get('/api/connection-status')).body).toEqual([
      { platform: 'shopify', connected: true, lastChecked: '2026-11-20T09:30:00.000Z' },
      { platform: 'metaads', connected: false, lastChecked: null },
    ]);
    await owner.client.post('/api/stores/active', { storeId: second.id });
    expect((await owner.client.get('/api/connection-status')).body).toEqual([
      { platform: 'woocommerce', connected: true, lastChecked: '2026-11-20T09:30:00.000Z' },
    ]);
    expect((await other.client.get('/api/connection-status')).body.map((row: { platform: string }) => row.platform)).toEqual(['klaviyo']);
  });
});
