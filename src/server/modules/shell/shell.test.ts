import { describe, expect, it } from 'vitest';
import { ApiClient, grantTestPlan, signedInAdmin, signedInClient, trpcQuery, useTestApp } from '../../../../test/harness.ts';

const testApp = useTestApp();

/** The answer of a procedure as the client reads it (tRPC's { result: { data } }). */
async function data(client: ApiClient, path: string) {
  const answer = await trpcQuery(client, path);
  return answer.status === 200 ? answer.body.result.data : { status: answer.status };
}

describe('shell.bootstrap', () => {
  it('answers { user: null } when signed out (the client then asks auth.me, which says signed out)', async () => {
    expect(await data(new ApiClient(testApp.app), 'shell.bootstrap')).toEqual({ user: null });
  });

  it('holds exactly what each procedure answers on its own, in one request', async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'boot');
    await grantTestPlan(testApp.orm, credentials.username, 'business');
    expect((await client.post('/api/stores', { name: 'Boot Goods' })).status).toBe(201);

    const answer = await data(client, 'shell.bootstrap');
    expect(answer.user).toEqual(await data(client, 'auth.me'));
    expect(answer.subscription).toEqual(await data(client, 'subscription.current'));
    expect(answer.stores).toEqual(await data(client, 'stores.list'));
    expect(answer.activeStore).toEqual(await data(client, 'stores.active'));
    expect(answer.connections).toEqual(await data(client, 'connections.status'));
    expect(answer.dataStatus).toEqual(await data(client, 'commerce.dataStatus'));
    expect(answer.activeStore).toBeTruthy();
    expect(answer.dataStatus).toBeTruthy();
    // Not an admin: no guest status (the procedure would refuse it).
    expect(answer.guestStatus).toBeUndefined();
  });

  it('leaves out what a procedure refuses (no subscription: no data status) and gives an admin the guest status', async () => {
    const { client } = await signedInClient(testApp.app, 'nosub');
    const answer = await data(client, 'shell.bootstrap');
    expect(answer.user).toMatchObject({ username: expect.any(String) });
    expect(answer.dataStatus).toBeUndefined();

    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const adminAnswer = await data(admin.client, 'shell.bootstrap');
    expect(adminAnswer.guestStatus).toEqual(await data(admin.client, 'admin.guestModeStatus'));
    expect(adminAnswer.guestStatus).toBeDefined();
  });
});
