import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiClient, grantTestPlan, signedInClient, uniqueUser, useTestApp } from '../../../../test/harness.ts';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { User } from '../users/user.entity.ts';
import { Subscription } from './subscription.entity.ts';
import { addOneMonth } from './subscriptions.service.ts';

const testApp = useTestApp();

async function planId(client: ApiClient, name: string): Promise<number> {
  const plans = (await client.get('/api/subscription/plans')).body as { id: number; name: string }[];
  return plans.find((plan) => plan.name === name)!.id;
}

describe('plans', () => {
  it('offers the four plans with their GBP prices, dashboard limits and AI tools', async () => {
    const plans = (await new ApiClient(testApp.app).get('/api/subscription/plans')).body;
    expect(plans).toEqual([
      expect.objectContaining({ name: 'Basic', tier: 'basic', monthlyPriceMinor: 2900, currency: 'GBP', maxDashboards: 1, includesAiTools: false }),
      expect.objectContaining({ name: 'Professional', tier: 'professional', monthlyPriceMinor: 7900, maxDashboards: 3, includesAiTools: true }),
      expect.objectContaining({ name: 'Business', tier: 'business', monthlyPriceMinor: 19900, maxDashboards: 10, includesAiTools: true }),
      expect.objectContaining({ name: 'Enterprise', tier: 'enterprise', monthlyPriceMinor: 49900, maxDashboards: 50, includesAiTools: true }),
    ]);
  });
});

describe('GET /api/subscription/current', () => {
  it('answers 401 signed out and {hasActiveSubscription: false, subscription: null} without a plan', async () => {
    expect((await new ApiClient(testApp.app).get('/api/subscription/current')).status).toBe(401);
    const { client } = await signedInClient(testApp.app, 'nosub');
    expect((await client.get('/api/subscription/current')).body).toEqual({ hasActiveSubscription: false, subscription: null, access: 'none' });
  });

  it("says where access comes from: 'own' for the user's plan, 'none' once it has ended (the ended plan still shown)", async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'source');
    await grantTestPlan(testApp.orm, credentials.username, 'business');
    expect((await client.get('/api/subscription/current')).body).toMatchObject({
      hasActiveSubscription: true,
      access: 'own',
      subscription: { status: 'active', plan: { name: 'Business' } },
    });
    await testApp.orm.em.fork().nativeUpdate(Subscription, { user: user.id }, { currentPeriodEnd: new Date(Date.now() - 1000) });
    expect((await client.get('/api/subscription/current')).body).toMatchObject({
      hasActiveSubscription: false,
      access: 'none',
      subscription: { plan: { name: 'Business' } },
    });
  });
});

describe('trial', () => {
  it('starts a 14-day trial once per user', async () => {
    const { client } = await signedInClient(testApp.app, 'trial');
    const before = Date.now();
    const started = await client.post('/api/subscription/trial', { planId: await planId(client, 'Professional') });
    expect(started.status).toBe(200);
    const current = (await client.get('/api/subscription/current')).body;
    expect(current.hasActiveSubscription).toBe(true);
    expect(current.subscription).toMatchObject({ status: 'trial', plan: { name: 'Professional' } });
    const days = (Date.parse(current.subscription.currentPeriodEnd) - before) / 86_400_000;
    expect(days).toBeGreaterThan(13.99);
    expect(days).toBeLessThan(14.01);

    const again = await client.post('/api/subscription/trial', { planId: await planId(client, 'Business') });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('You have already used your free trial.');
  });

  it('is refused once the trial was used, even after it ended', async () => {
    const { client, user } = await signedInClient(testApp.app, 'trialend');
    await client.post('/api/subscription/trial', { planId: await planId(client, 'Basic') });
    await testApp.orm.em.fork().nativeUpdate(Subscription, { user: user.id }, { currentPeriodEnd: new Date(Date.now() - 1000) });
    expect((await client.get('/api/subscription/current')).body).toMatchObject({ hasActiveSubscription: false, subscription: { status: 'trial' } });
    expect((await client.post('/api/subscription/trial', { planId: await planId(client, 'Basic') })).status).toBe(409);
    const row = await testApp.orm.em.fork().findOneOrFail(User, { id: user.id });
    expect(row.trialStartedAt).toBeInstanceOf(Date);
  });

  it('answers 404 for an unknown plan and 400 for a malformed id', async () => {
    const { client } = await signedInClient(testApp.app, 'trialbad');
    expect((await client.post('/api/subscription/trial', { planId: 999999 })).status).toBe(404);
    const malformed = await client.post('/api/subscription/trial', { planId: 'gold' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].field).toBe('planId');
  });
});

describe('checkout through the test payment provider', () => {
  it('activates the plan for a month, replaces the previous subscription and says it is test mode', async () => {
    const { client, user } = await signedInClient(testApp.app, 'buyer');
    await client.post('/api/subscription/trial', { planId: await planId(client, 'Basic') });
    const bought = await client.post('/api/subscription/checkout', { planId: await planId(client, 'Business') });
    expect(bought.status).toBe(200);
    expect(bought.body).toMatchObject({ status: 'completed', redirectUrl: null, testMode: true });
    expect(bought.body.current).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'active', provider: 'test', plan: { name: 'Business' } } });

    const rows = await testApp.orm.em.fork().find(Subscription, { user: user.id }, { orderBy: { id: 'asc' } });
    expect(rows.map((row) => row.status)).toEqual(['canceled', 'active']);
    expect((await client.get('/api/stores/dashboard-limits')).body.maxDashboards).toBe(10);
  });

  it('a canceled or past-end subscription gives no access; past_due keeps it until the period ends', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'status');
    await grantTestPlan(testApp.orm, credentials.username, 'professional');
    const em = testApp.orm.em.fork();
    await em.nativeUpdate(Subscription, { user: user.id }, { status: 'past_due' });
    expect((await client.get('/api/subscription/current')).body).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'past_due' } });
    await em.nativeUpdate(Subscription, { user: user.id }, { status: 'canceled' });
    expect((await client.get('/api/subscription/current')).body).toMatchObject({ hasActiveSubscription: false, subscription: { status: 'canceled' } });
    expect((await client.get('/api/stores/dashboard-limits')).body.maxDashboards).toBe(1);
  });
});

describe('the test payment provider in production', () => {
  /** An app as main.ts builds it (services and rate limits from the configuration), on this file's database. */
  async function productionApp(env: Record<string, string> = {}): Promise<FastifyInstance> {
    const config = { ...loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://app.example.test', LOG_LEVEL: 'silent', ...env }), sessionSecret: 's'.repeat(40) };
    return buildApp({ config, orm: testApp.orm, logger: false });
  }

  /** A new account signed in from an address of its own (the default registration limit counts per address, in the database). */
  async function buyer(app: FastifyInstance, address: string) {
    const client = new ApiClient(app, { remoteAddress: address });
    const registered = await client.post('/api/register', uniqueUser('buyer'));
    expect(registered.status).toBe(201);
    return { client, user: registered.body as { id: number } };
  }

  it('refuses to give plans away without ALLOW_TEST_PAYMENTS: 403 with the reason, no subscription', async () => {
    const app = await productionApp();
    try {
      const { client, user } = await buyer(app, '10.2.2.1');
      const answer = await client.post('/api/subscription/checkout', { planId: await planId(client, 'Enterprise') });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ message: 'Plans cannot be bought on this server yet: no payment provider is set up. Please contact the administrator.' });
      expect(await testApp.orm.em.fork().count(Subscription, { user: user.id })).toBe(0);
      expect((await client.get('/api/subscription/current')).body).toMatchObject({ hasActiveSubscription: false, subscription: null });
      expect((await client.get('/trpc/subscription.provider')).body.result.data).toEqual({ id: 'unavailable', testMode: false });
    } finally {
      await app.close();
    }
  });

  it('activates plans for free when ALLOW_TEST_PAYMENTS=true (a self-hosted server where everything is free)', async () => {
    const app = await productionApp({ ALLOW_TEST_PAYMENTS: 'true' });
    try {
      const { client } = await buyer(app, '10.2.2.2');
      const answer = await client.post('/api/subscription/checkout', { planId: await planId(client, 'Enterprise') });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'completed', testMode: true, current: { subscription: { status: 'active', provider: 'test', plan: { name: 'Enterprise' } } } });
    } finally {
      await app.close();
    }
  });
});

describe('addOneMonth', () => {
  it('keeps the day of month and clamps to the last day of shorter months', () => {
    expect(addOneMonth(new Date('2026-01-15T10:00:00Z')).toISOString()).toBe('2026-02-15T10:00:00.000Z');
    expect(addOneMonth(new Date('2026-01-31T10:00:00Z')).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addOneMonth(new Date('2028-01-31T10:00:00Z')).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addOneMonth(new Date('2026-12-31T23:00:00Z')).toISOString()).toBe('2027-01-31T23:00:00.000Z');
  });
});
