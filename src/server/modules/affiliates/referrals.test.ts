import { describe, expect, it } from 'vitest';
import { ApiClient, signedInClient, trpcMutation, trpcQuery, uniqueUser, useTestApp } from '../../../../test/harness.ts';
import { User } from '../users/user.entity.ts';
import { AffiliateClick, AffiliateFlag, AffiliateReferral } from './affiliate.entities.ts';
import { recordReferralClick } from './affiliates.service.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

const testApp = useTestApp();

async function newAffiliate(prefix = 'aff') {
  const signedIn = await signedInClient(testApp.app, prefix);
  const joined = await signedIn.client.post('/api/affiliate');
  expect(joined.status).toBe(200);
  return { ...signedIn, code: joined.body.code as string };
}

/** A fresh browser following a referral link: returns the referral cookie it was given. */
async function followLink(code: string, cookie?: string): Promise<string | undefined> {
  const visitor = new ApiClient(testApp.app);
  const answer = await visitor.request('POST', '/api/affiliate/clicks', { code }, {
    'user-agent': 'Mozilla/5.0 test',
    ...(cookie ? { cookie: `sp_ref=${cookie}` } : {}),
  });
  expect(answer.status).toBe(200);
  const setCookie = [answer.headers['set-cookie'] ?? []].flat().find((header) => String(header).startsWith('sp_ref='));
  return setCookie ? String(setCookie).split(';')[0]!.slice('sp_ref='.length) : undefined;
}

async function signUpWith(referralCookie: string | undefined, credentials = uniqueUser('ref')) {
  const client = new ApiClient(testApp.app);
  const answer = await client.request('POST', '/api/register', credentials, referralCookie ? { cookie: `sp_ref=${referralCookie}` } : {});
  expect(answer.status).toBe(201);
  return answer.body as { id: number };
}

function referralOf(userId: number) {
  return testApp.orm.em.fork().findOne(AffiliateReferral, { referredUser: userId }, { populate: ['affiliate'] });
}

describe('referral links', () => {
  it('joining gives a code and a link; joining again keeps them', async () => {
    const { client, code } = await newAffiliate();
    expect(code).toMatch(/^[a-f0-9]{12}$/);
    const again = await client.post('/api/affiliate');
    expect(again.body).toMatchObject({ code, linkPath: `/?ref=${code}` });
    const membership = await trpcQuery(client, 'affiliates.membership');
    expect(membership.body.result.data.code).toBe(code);
  });

  it('a click is counted by day and hashed visitor, sets sp_ref for 60 days, and the sign-up is attributed', async () => {
    const { code, user } = await newAffiliate();
    const visitor = new ApiClient(testApp.app, { remoteAddress: '203.0.113.9' });
    const click = await visitor.request('POST', '/api/affiliate/clicks', { code }, { 'user-agent': 'Mozilla/5.0 test' });
    const header = String([click.headers['set-cookie']].flat().find((value) => String(value).startsWith('sp_ref=')));
    expect(header).toMatch(/Max-Age=5184000/);
    expect(header).toMatch(/HttpOnly/);
    const row = await testApp.orm.em.fork().findOneOrFail(AffiliateClick, { affiliate: { code } });
    expect(row.visitorHash).toMatch(/^[a-f0-9]{64}$/);
    expect(row.visitorHash).not.toContain('203.0.113.9');

    const referred = await signUpWith(header.split(';')[0]!.slice('sp_ref='.length));
    const referral = await referralOf(referred.id);
    expect(referral?.affiliate.user.id).toBe(user.id);
  });

  it('the last referral link followed wins', async () => {
    const first = await newAffiliate('first');
    const second = await newAffiliate('second');
    const firstCookie = await followLink(first.code);
    const lastCookie = await followLink(second.code, firstCookie);
    const referred = await signUpWith(lastCookie);
    expect((await referralOf(referred.id))?.affiliate.user.id).toBe(second.user.id);
  });

  it('with AFFILIATE_ATTRIBUTION=first the first link still in its window keeps the credit, and gives way once it is older', async () => {
    const first = await newAffiliate('firstwins');
    const second = await newAffiliate('secondloses');
    const jar = new Map<string, string>();
    const cookies = { get: (name: string) => jar.get(name), set: (name: string, value: string) => void jar.set(name, value) };
    const visit = (code: string, now: Date) =>
      recordReferralClick(testApp.orm.em.fork(), code, { user: null, clientIp: '198.51.100.7', userAgent: 'Mozilla/5.0 test', cookies, cookieDays: 60, attribution: 'first', now });
    const start = new Date();
    expect(await visit(first.code, start)).toEqual({ recorded: true });
    const firstCookie = jar.get('sp_ref');
    expect(await visit(second.code, new Date(start.getTime() + 59 * DAY_MS))).toEqual({ recorded: true });
    expect(jar.get('sp_ref')).toBe(firstCookie);
    expect(await testApp.orm.em.fork().count(AffiliateClick, { affiliate: { code: second.code } })).toBe(1);
    expect((await referralOf((await signUpWith(jar.get('sp_ref'))).id))?.affiliate.user.id).toBe(first.user.id);

    expect(await visit(second.code, new Date(start.getTime() + 61 * DAY_MS))).toEqual({ recorded: true });
    expect(jar.get('sp_ref')).not.toBe(firstCookie);
    expect(jar.get('sp_ref')).toMatch(new RegExp(`^${second.code}\\.`));
  });

  it('a click older than the window does not attribute the sign-up', async () => {
    const { code } = await newAffiliate();
    const cookie = await followLink(code);
    const em = testApp.orm.em.fork();
    const click = await em.findOneOrFail(AffiliateClick, { id: Number(cookie!.split('.')[1]) });
    click.clickedAt = new Date(Date.now() - 61 * 24 * 60 * 60 * 1000);
    await em.flush();
    const referred = await signUpWith(cookie);
    expect(await referralOf(referred.id)).toBeNull();
  });

  it('a sign-up without the cookie, or with a forged one, is not attributed', async () => {
    const { code } = await newAffiliate();
    expect(await referralOf((await signUpWith(undefined)).id)).toBeNull();
    expect(await referralOf((await signUpWith(`${code}.999999999`)).id)).toBeNull();
    expect(await followLink('unknowncode1')).toBeUndefined();
  });

  it('self-referral is blocked and flagged: own link while signed in, or own mailbox at sign-up', async () => {
    const affiliate = await newAffiliate('self');
    const ownClick = await trpcMutation(affiliate.client, 'affiliates.recordClick', { code: affiliate.code });
    expect(ownClick.body.result.data).toEqual({ recorded: false });

    const cookie = await followLink(affiliate.code);
    const [local, domain] = affiliate.credentials.email.split('@');
    const referred = await signUpWith(cookie, { ...uniqueUser('selfalt'), email: `${local!.toUpperCase()}+alt@${domain}` });
    expect(await referralOf(referred.id)).toBeNull();
    const flags = await testApp.orm.em.fork().find(AffiliateFlag, { affiliate: { code: affiliate.code } }, { orderBy: { id: 'asc' } });
    expect(flags.map((row) => row.kind)).toEqual(['self_referral', 'self_referral']);
    expect(await testApp.orm.em.fork().findOne(User, { id: referred.id })).not.toBeNull();
  });

  it('joining needs an account', async () => {
    const answer = await new ApiClient(testApp.app).post('/api/affiliate');
    expect(answer.status).toBe(401);
  });
});

describe('the affiliate dashboard', () => {
  it('shows an affiliate their own clicks and anonymised referrals, never another affiliate\'s', async () => {
    const mine = await newAffiliate('mine');
    const theirs = await newAffiliate('theirs');
    await signUpWith(await followLink(mine.code));
    await followLink(mine.code);
    const referredElsewhere = uniqueUser('elsewhere');
    await signUpWith(await followLink(theirs.code), referredElsewhere);

    const dashboard = (await mine.client.get('/api/affiliate/dashboard')).body;
    expect(dashboard.kpis).toMatchObject({ clicks: 2, signUps: 1, trials: 0, payingCustomers: 0, conversionRate: 0.5, earnedMinor: 0 });
    expect(dashboard.referrals).toEqual([{ ordinal: 1, joinedAt: expect.any(String), planName: null, standing: 'signed_up' }]);
    expect(JSON.stringify(dashboard)).not.toContain(referredElsewhere.username);
    expect((await theirs.client.get('/api/affiliate/dashboard')).body.kpis).toMatchObject({ clicks: 1, signUps: 1 });
  });

  it('before joining the dashboard is empty; signed out it is refused', async () => {
    const { client } = await signedInClient(testApp.app, 'nojoin');
    expect((await client.get('/api/affiliate/dashboard')).body).toMatchObject({ membership: null, referrals: [] });
    expect((await new ApiClient(testApp.app).get('/api/affiliate/dashboard')).status).toBe(401);
  });
});
