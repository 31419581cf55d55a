import { describe, expect, it } from 'vitest';
import { signedInAdmin, signedInClient, trpcMutation, trpcQuery } from '../../../../test/harness.ts';
import { AffiliateFlag } from './affiliate.entities.ts';
import { useAffiliateWorld } from './affiliate-test-kit.ts';

const world = useAffiliateWorld();
const { database, newAffiliate, referredSubscriber, commissionsOf, endHold } = world;

const admin = () => signedInAdmin(world.app, database.orm);

describe('the affiliate programme in the admin console', () => {
  it('lists affiliates with their totals, sorted and paged, searchable', async () => {
    const busy = await newAffiliate('listbusy');
    await referredSubscriber(busy.code);
    await endHold(busy.affiliateId);
    const quiet = await newAffiliate('listquiet');
    await database.orm.em.fork().insert(AffiliateFlag, { affiliate: quiet.affiliateId, kind: 'self_referral', detail: 'test', createdAt: new Date() });
    const { client } = await admin();

    const list = (await client.get('/api/admin/affiliates?q=list&sort=earned&direction=desc')).body;
    expect(list.total).toBe(2);
    expect(list.rows).toMatchObject([
      { userId: busy.user.id, email: `${busy.user.username}@example.com`, code: busy.code, referrals: 1, paying: 1, earnedMinor: 2370, payableMinor: 2370, paidMinor: 0, openPayout: null, flags: 0 },
      { userId: quiet.user.id, referrals: 0, paying: 0, earnedMinor: 0, payableMinor: 0, flags: 1 },
    ]);
    const ascending = (await client.get('/api/admin/affiliates?q=list&sort=earned&direction=asc')).body;
    expect(ascending.rows.map((row: { userId: number }) => row.userId)).toEqual([quiet.user.id, busy.user.id]);
    const secondPage = (await client.get('/api/admin/affiliates?q=list&sort=earned&direction=desc&pageSize=1&page=2')).body;
    expect(secondPage).toMatchObject({ total: 2, page: 2, rows: [{ userId: quiet.user.id }] });
    const pastTheEnd = (await client.get('/api/admin/affiliates?q=list&page=9')).body;
    expect(pastTheEnd).toMatchObject({ total: 2, rows: [] });
    expect((await client.get(`/api/admin/affiliates?q=${busy.code}`)).body.rows).toMatchObject([{ userId: busy.user.id }]);
  });

  it('shows one affiliate with referred e-mails, commissions, flags and payouts; a non-affiliate is not found', async () => {
    const affiliate = await newAffiliate('detail');
    const referred = await referredSubscriber(affiliate.code);
    const { client } = await admin();
    const detail = (await client.get(`/api/admin/affiliates/${affiliate.user.id}`)).body;
    expect(detail.affiliate).toMatchObject({ userId: affiliate.user.id, code: affiliate.code, commissionRatePercent: null, commissionMonths: null });
    expect(detail.referrals).toMatchObject([{ userId: referred.userId, email: expect.stringMatching(/^referred.*@example\.com$/), standing: 'paying', planName: 'Professional' }]);
    expect(detail.commissions).toMatchObject([{ invoice: referred.paidInvoiceId, amountMinor: 2370, status: 'earned', ratePercent: 30 }]);
    expect(detail.kpis).toMatchObject({ referrals: 1, paying: 1, earnedMinor: 2370, pendingMinor: 2370, payableMinor: 0, paidMinor: 0 });

    const { user: plain } = await signedInClient(world.app, 'plain');
    const missing = await client.get(`/api/admin/affiliates/${plain.id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('This user has not joined the affiliate programme');
    expect((await client.get(`/api/admin/users/${affiliate.user.id}`)).body.user.affiliateCode).toBe(affiliate.code);
    expect((await client.get(`/api/admin/users/${plain.id}`)).body.user.affiliateCode).toBeNull();
  });

  it('an override of the rate changes the next commission and is audited; bad values are refused; null restores the default', async () => {
    const affiliate = await newAffiliate('override');
    const { client, user: adminUser } = await admin();
    const tooHigh = await client.post(`/api/admin/affiliates/${affiliate.user.id}/overrides`, { commissionRatePercent: 101, commissionMonths: null });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.message).toBe('Enter a rate from 0 to 100 %');
    const tooLong = await client.post(`/api/admin/affiliates/${affiliate.user.id}/overrides`, { commissionRatePercent: null, commissionMonths: 121 });
    expect(tooLong.body.message).toBe('Enter a duration from 1 to 120 months');

    const set = await client.post(`/api/admin/affiliates/${affiliate.user.id}/overrides`, { commissionRatePercent: 50, commissionMonths: 24 });
    expect(set.body).toEqual({ commissionRatePercent: 50, commissionMonths: 24 });
    await referredSubscriber(affiliate.code);
    expect(await commissionsOf(affiliate.affiliateId)).toMatchObject([{ ratePercent: 50, amountMinor: 3950 }]);

    await client.post(`/api/admin/affiliates/${affiliate.user.id}/overrides`, { commissionRatePercent: null, commissionMonths: null });
    const detail = (await client.get(`/api/admin/affiliates/${affiliate.user.id}`)).body;
    expect(detail.affiliate).toMatchObject({ commissionRatePercent: null, commissionMonths: null });
    expect(detail.audit.map((entry: { action: string; actorUserId: number; details: unknown }) => [entry.action, entry.actorUserId, entry.details])).toEqual([
      ['affiliate.override_changed', adminUser.id, { before: { commissionRatePercent: 50, commissionMonths: 24 }, after: { commissionRatePercent: null, commissionMonths: null } }],
      ['affiliate.override_changed', adminUser.id, { before: { commissionRatePercent: null, commissionMonths: null }, after: { commissionRatePercent: 50, commissionMonths: 24 } }],
    ]);
  });

  it('every admin affiliate procedure refuses non-admins; guest mode cannot change overrides or payouts', async () => {
    const affiliate = await newAffiliate('guarded');
    const { client: member } = await signedInClient(world.app, 'member');
    const calls = [
      () => trpcQuery(member, 'affiliateAdmin.list', {}),
      () => trpcQuery(member, 'affiliateAdmin.detail', { userId: affiliate.user.id }),
      () => trpcMutation(member, 'affiliateAdmin.setOverrides', { userId: affiliate.user.id, commissionRatePercent: 90, commissionMonths: null }),
      () => trpcMutation(member, 'affiliateAdmin.approvePayout', { payoutId: 1 }),
      () => trpcMutation(member, 'affiliateAdmin.rejectPayout', { payoutId: 1 }),
      () => trpcMutation(member, 'affiliateAdmin.markPayoutPaid', { payoutId: 1, reference: 'X' }),
    ];
    for (const call of calls) expect((await call()).body.error.data.code).toBe('FORBIDDEN');

    const { client } = await admin();
    await client.post('/api/admin/enter-guest-mode', { userId: affiliate.user.id });
    const refused = await client.post(`/api/admin/affiliates/${affiliate.user.id}/overrides`, { commissionRatePercent: 90, commissionMonths: null });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Guest mode is read-only');
    // Looking stays allowed.
    expect((await client.get(`/api/admin/affiliates/${affiliate.user.id}`)).body.affiliate.commissionRatePercent).toBeNull();
  });
});
