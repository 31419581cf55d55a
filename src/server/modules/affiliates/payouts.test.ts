import { describe, expect, it } from 'vitest';
import { signedInAdmin, signedInClient, type ApiClient } from '../../../../test/harness.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { User } from '../users/user.entity.ts';
import { Affiliate } from './affiliate.entities.ts';
import { DAY, useAffiliateWorld } from './affiliate-test-kit.ts';

const world = useAffiliateWorld();
const { database, runEventsJob, newAffiliate, referredSubscriber, commissionsOf, endHold } = world;

const dashboardOf = async (client: ApiClient) => (await client.get('/api/affiliate/dashboard')).body;
const setRate = (affiliateId: number, ratePercent: number) =>
  database.orm.em.fork().nativeUpdate(Affiliate, { id: affiliateId }, { commissionRatePercent: ratePercent });

/** An affiliate at 70 % whose one referred £79 invoice is past its hold: £55.30 payable, above the £50 threshold. */
async function affiliateWithPayable() {
  const affiliate = await newAffiliate('payee');
  await setRate(affiliate.affiliateId, 70);
  const referred = await referredSubscriber(affiliate.code);
  await endHold(affiliate.affiliateId);
  return { ...affiliate, referred };
}

describe('affiliate payouts', () => {
  it('below the threshold a request is refused with the reason and nothing changes', async () => {
    const { client, code, affiliateId } = await newAffiliate('small');
    await referredSubscriber(code);
    await endHold(affiliateId);
    const refused = await client.post('/api/affiliate/payouts');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Payouts open at £50.00 payable');
    const dashboard = await dashboardOf(client);
    expect(dashboard.kpis).toMatchObject({ payableMinor: 2370, paidMinor: 0 });
    expect(dashboard.payouts).toMatchObject({ thresholdMinor: 5000, open: null, history: [] });
  });

  it('request, approve, mark paid with a reference: the dashboard shows it paid; a second open request is refused', async () => {
    const { client, user } = await affiliateWithPayable();
    const requested = await client.post('/api/affiliate/payouts');
    expect(requested.status).toBe(200);
    expect(requested.body).toMatchObject({ amountMinor: 5530, currency: 'GBP', status: 'requested' });
    const payoutId = requested.body.id as number;

    const again = await client.post('/api/affiliate/payouts');
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('You already have a payout in progress');
    let dashboard = await dashboardOf(client);
    expect(dashboard.kpis.payableMinor).toBe(0);
    expect(dashboard.payouts.open).toMatchObject({ id: payoutId, status: 'requested' });

    const admin = await signedInAdmin(world.app, database.orm);
    const early = await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/paid`, { reference: 'BACS-1' });
    expect(early.status).toBe(409);
    expect(early.body.message).toBe('Approve the payout before marking it paid');
    expect((await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/approve`)).body).toMatchObject({ status: 'approved', approvedAt: expect.any(String) });
    const noReference = await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/paid`, { reference: '  ' });
    expect(noReference.status).toBe(400);
    expect(noReference.body.message).toBe('Enter the payment reference');
    const paid = await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/paid`, { reference: 'BACS-2026-0042' });
    expect(paid.body).toMatchObject({ status: 'paid', reference: 'BACS-2026-0042', paidAt: expect.any(String) });

    dashboard = await dashboardOf(client);
    expect(dashboard.kpis).toMatchObject({ paidMinor: 5530, payableMinor: 0 });
    expect(dashboard.payouts.open).toBeNull();
    expect(dashboard.payouts.history).toMatchObject([{ id: payoutId, amountMinor: 5530, status: 'paid', reference: 'BACS-2026-0042' }]);

    const audit = await database.orm.em.fork().find(AuditLogEntry, { targetUserId: user.id }, { orderBy: { id: 'asc' } });
    expect(audit.map((entry) => [entry.action, entry.actorUserId, entry.details?.payoutId])).toEqual([
      ['affiliate.payout_approved', admin.user.id, payoutId],
      ['affiliate.payout_paid', admin.user.id, payoutId],
    ]);
    expect(audit[1]!.details).toMatchObject({ reference: 'BACS-2026-0042', amountMinor: 5530 });
  });

  it('a refund or chargeback after the payout becomes a negative adjustment carried into the next balance', async () => {
    const { client, affiliateId, referred } = await affiliateWithPayable();
    const payoutId = (await client.post('/api/affiliate/payouts')).body.id as number;
    const admin = await signedInAdmin(world.app, database.orm);
    await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/approve`);
    await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/paid`, { reference: 'BACS-7' });

    await world.stripe.refund(referred.paidInvoiceId!, 2000);
    await runEventsJob();
    let dashboard = await dashboardOf(client);
    // 70 % of the £20 refunded comes back off what was paid: -£14.00, not lost, not silently written off.
    expect(dashboard.kpis).toMatchObject({ payableMinor: -1400, paidMinor: 5530 });
    expect(dashboard.payouts.adjustmentMinor).toBe(-1400);
    expect(dashboard.payouts.history).toMatchObject([{ amountMinor: 5530, status: 'paid' }]);

    // The next month's invoice earns £55.30; the adjustment comes off it.
    await world.stripe.advanceClock(31 * DAY);
    await runEventsJob();
    expect(await commissionsOf(affiliateId)).toHaveLength(2);
    await endHold(affiliateId);
    dashboard = await dashboardOf(client);
    expect(dashboard.kpis.payableMinor).toBe(5530 - 1400);
    expect(dashboard.payouts.adjustmentMinor).toBe(-1400);

    // A chargeback of the paid-out invoice takes back all of what was paid for it.
    await world.stripe.dispute(referred.paidInvoiceId!);
    await runEventsJob();
    dashboard = await dashboardOf(client);
    expect(dashboard.payouts.adjustmentMinor).toBe(-5530);
    expect(dashboard.kpis.payableMinor).toBe(0);
  });

  it('two requests at once make one payout; its history survives the referred account being deleted', async () => {
    const { client, referred } = await affiliateWithPayable();
    const answers = await Promise.all([client.post('/api/affiliate/payouts'), client.post('/api/affiliate/payouts')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const payoutId = answers.find((answer) => answer.status === 200)!.body.id as number;
    const admin = await signedInAdmin(world.app, database.orm);
    await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/approve`);
    await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/paid`, { reference: 'BACS-9' });

    // The account goes (account deletion also ends its Stripe subscription).
    for (const item of world.stripe.objects.values()) if (item.object === 'subscription' && item.customer === referred.customer) item.status = 'canceled';
    await database.orm.em.fork().nativeDelete(User, { id: referred.userId });
    const dashboard = await dashboardOf(client);
    expect(dashboard.kpis).toMatchObject({ paidMinor: 5530, payableMinor: 0, signUps: 0 });
    expect(dashboard.payouts.history).toMatchObject([{ id: payoutId, amountMinor: 5530, status: 'paid', reference: 'BACS-9' }]);
  });

  it('a rejected payout gives its commissions back to the payable balance', async () => {
    const { client, user } = await affiliateWithPayable();
    const payoutId = (await client.post('/api/affiliate/payouts')).body.id as number;
    const admin = await signedInAdmin(world.app, database.orm);
    const rejected = await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/reject`, { note: 'Bank details missing' });
    expect(rejected.body).toMatchObject({ status: 'rejected', note: 'Bank details missing' });
    const dashboard = await dashboardOf(client);
    expect(dashboard.kpis.payableMinor).toBe(5530);
    expect(dashboard.payouts.open).toBeNull();
    expect((await client.post('/api/affiliate/payouts')).body).toMatchObject({ status: 'requested', amountMinor: 5530 });
    expect(await database.orm.em.fork().count(AuditLogEntry, { targetUserId: user.id, action: 'affiliate.payout_rejected' })).toBe(1);
  });

  it('only administrators decide payouts, and never while viewing as a user', async () => {
    const { client, user } = await affiliateWithPayable();
    const payoutId = (await client.post('/api/affiliate/payouts')).body.id as number;
    const { client: stranger } = await signedInClient(world.app, 'stranger');
    for (const path of ['approve', 'reject', 'paid']) {
      const answer = await stranger.post(`/api/admin/affiliate-payouts/${payoutId}/${path}`, { reference: 'X' });
      expect(answer.status).toBe(403);
      expect((await client.post(`/api/admin/affiliate-payouts/${payoutId}/${path}`, { reference: 'X' })).status).toBe(403);
    }
    const admin = await signedInAdmin(world.app, database.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: user.id })).status).toBe(200);
    const asGuest = await admin.client.post(`/api/admin/affiliate-payouts/${payoutId}/approve`);
    expect(asGuest.status).toBe(403);
    expect(asGuest.body.message).toBe('Guest mode is read-only');
    expect((await dashboardOf(client)).payouts.open).toMatchObject({ status: 'requested' });
  });
});
