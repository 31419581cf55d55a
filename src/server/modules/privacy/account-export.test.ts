import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { testOrder } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { signedInAdmin, signedInClient, trpcMutation, trpcQuery, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { SESSION_COOKIE_NAME } from '../sessions/session-control.ts';
import { deleteExpiredAccountExports, runAccountExport } from './account-export.ts';

// A user's export of all their data: requested on /settings, built by the job in batches through a
// cursor (a batch of 2 rows here, so every table takes several), read back from the zip.

const testApp = useTestApp();
const DAY_MS = 86_400_000;
const fork = () => testApp.orm.em.fork();

function download(client: ApiClient, id: number) {
  return testApp.app.inject({ method: 'GET', url: `/api/account-exports/${id}/download`, headers: client.sessionCookie ? { cookie: `${SESSION_COOKIE_NAME}=${client.sessionCookie}` } : {} });
}

async function ownerWithOrders() {
  const owner = await ownerWithStore(testApp.app, testApp.orm, 'Export Shop');
  const placed = Date.now() - 10 * DAY_MS;
  await ingestOrders(fork(), owner.store.id, Array.from({ length: 5 }, (_, index) => testOrder({ externalId: `x-${index + 1}`, placedAt: new Date(placed + index * DAY_MS), grossMinor: 1_000 * (index + 1) })));
  return owner;
}

describe('exporting all of one’s data', () => {
  it('a job builds the zip (JSON and CSV per table, in batches), the user downloads it and gets an e-mail', async () => {
    const owner = await ownerWithOrders();
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const requested = await trpcMutation(owner.client, 'privacy.requestAccountExport');
    expect(requested.status).toBe(200);
    const { id, status } = requested.body.result.data as { id: number; status: string };
    expect(status).toBe('queued');
    // Asked again while it is being built: the same export.
    expect((await trpcMutation(owner.client, 'privacy.requestAccountExport')).body.result.data.id).toBe(id);

    await runAccountExport(fork(), id, { batchSize: 2, baseUrl: 'https://app.example' });
    const latest = (await trpcQuery(owner.client, 'privacy.accountExport')).body.result.data as { status: string; expiresAt: string; finishedAt: string };
    expect(latest.status).toBe('ready');
    expect(Date.parse(latest.expiresAt) - Date.parse(latest.finishedAt)).toBe(7 * DAY_MS);

    const response = await download(owner.client, id);
    expect(response.statusCode).toBe(200);
    const files = unzipSync(new Uint8Array(response.rawPayload));
    for (const table of ['account', 'preferences', 'subscriptions', 'stores', 'orders', 'order_lines', 'refunds', 'customers', 'products', 'ad_metrics', 'expenses', 'reports', 'guests', 'guest_invitations', 'audit_log']) {
      expect(Object.keys(files), table).toEqual(expect.arrayContaining([`${table}.json`, `${table}.csv`]));
    }
    const json = (name: string) => JSON.parse(strFromU8(files[`${name}.json`]!)) as Record<string, unknown>[];
    expect(json('account')).toEqual([expect.objectContaining({ id: owner.user.id, username: owner.credentials.username, email: owner.credentials.email })]);
    expect(JSON.stringify(json('account'))).not.toMatch(/password/);
    expect(json('stores')).toEqual([expect.objectContaining({ id: owner.store.id, name: 'Export Shop' })]);
    // Five orders, read two at a time: all of them, once, in both formats.
    expect(json('orders').map((order) => order.external_id)).toEqual(['x-1', 'x-2', 'x-3', 'x-4', 'x-5']);
    const csv = strFromU8(files['orders.csv']!).trim().split('\r\n');
    expect(csv).toHaveLength(6);
    expect(csv[0]).toMatch(/^store_id,id,platform,external_id/);
    expect(json('guests')).toEqual([expect.objectContaining({ username: guest.credentials.username })]);

    const mail = await fork().findOneOrFail(OutboundEmail, { template: 'account_export_ready', userId: owner.user.id });
    expect(mail.textBody).toContain('https://app.example/settings#export-data');
  });

  it('nobody else downloads it (another user, an admin in guest mode, signed out); it expires after 7 days', async () => {
    const owner = await ownerWithOrders();
    const { id } = (await trpcMutation(owner.client, 'privacy.requestAccountExport')).body.result.data as { id: number };
    // Not built yet: nothing to download.
    expect((await download(owner.client, id)).statusCode).toBe(404);
    await runAccountExport(fork(), id);

    const stranger = await signedInClient(testApp.app, 'stranger');
    expect((await download(stranger.client, id)).statusCode).toBe(404);
    expect((await trpcQuery(stranger.client, 'privacy.accountExport')).body.result.data).toBeNull();
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect((await download(admin.client, id)).statusCode).toBe(404);
    expect((await trpcQuery(admin.client, 'privacy.accountExport')).body.result.data).toBeNull();
    expect((await testApp.app.inject({ method: 'GET', url: `/api/account-exports/${id}/download` })).statusCode).toBe(401);
    expect((await download(owner.client, id)).statusCode).toBe(200);

    const q = sqlRunner(fork());
    expect(await deleteExpiredAccountExports(q, new Date(Date.now() + 6 * DAY_MS))).toBe(0);
    expect(await deleteExpiredAccountExports(q, new Date(Date.now() + 8 * DAY_MS))).toBeGreaterThanOrEqual(1);
    expect((await download(owner.client, id)).statusCode).toBe(404);
  });
});
