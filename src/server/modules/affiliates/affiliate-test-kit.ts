import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { StripeFake } from '../../../../test/fakes/stripe.ts';
import { ApiClient, createTestApp, signedInClient, testServices, uniqueUser, useTestDatabase } from '../../../../test/harness.ts';
import { stripePaymentProvider, type StripePaymentProvider } from '../subscriptions/stripe-billing.ts';
import { processPendingStripeEvents } from '../subscriptions/stripe-events.ts';
import { Affiliate, AffiliateCommission } from './affiliate.entities.ts';

const SECRET_KEY = 'sk_test_storepulsefake';
const WEBHOOK_SECRET = 'whsec_storepulsefakesecret';
export const DAY = 86_400;

/**
 * The affiliate tests' world: this file's database, the app paid through the Stripe fake, and the steps of
 * an affiliate's life (join, a referred visitor subscribing, the events job). Call once per test file.
 */
export function useAffiliateWorld() {
  const database = useTestDatabase();
  let app: FastifyInstance;
  let provider: StripePaymentProvider;
  let stripe: StripeFake;

  beforeAll(async () => {
    stripe = new StripeFake({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      deliver: async (body, signature) =>
        (await app.inject({ method: 'POST', url: '/api/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature } })).statusCode,
    });
    await stripe.start();
    provider = stripePaymentProvider({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase: new URL(stripe.url) });
    app = await createTestApp(database.orm, { ...testServices(), paymentProvider: provider });
  });

  afterAll(async () => {
    await app?.close();
    await stripe?.close();
  });

  async function runEventsJob() {
    const outcome = await processPendingStripeEvents(database.orm.em.fork(), provider.stripe, { baseUrl: 'http://app.test' });
    expect(outcome.failed).toBe(0);
  }

  async function newAffiliate(prefix = 'aff') {
    const { client, user } = await signedInClient(app, prefix);
    const joined = await client.post('/api/affiliate');
    expect(joined.status).toBe(200);
    const affiliateId = (await database.orm.em.fork().findOneOrFail(Affiliate, { code: joined.body.code })).id;
    return { client, user, code: joined.body.code as string, affiliateId };
  }

  /** Subscribes the signed-in client to Professional (£79/month, 14-day trial) through Stripe Checkout; returns the Stripe customer. */
  async function subscribe(client: ApiClient): Promise<string> {
    const plans = (await client.get('/api/subscription/plans')).body as { id: number; name: string }[];
    const started = await client.post('/api/subscription/checkout', { planId: plans.find((plan) => plan.name === 'Professional')!.id, interval: 'month' });
    expect(started.status).toBe(200);
    const sessionId = new URL(started.body.redirectUrl).pathname.split('/').pop()!;
    await stripe.completeCheckout(sessionId);
    await runEventsJob();
    return String(stripe.objects.get(sessionId)!.customer);
  }

  /** A visitor who followed the affiliate's link, signed up, subscribed and paid the first £79 invoice when the trial ended. */
  async function referredSubscriber(code: string, beforeCheckout?: (userId: number) => Promise<void>, beforeFirstPayment?: (customer: string) => void) {
    const client = new ApiClient(app);
    const click = await client.post('/api/affiliate/clicks', { code });
    const cookie = String([click.headers['set-cookie']].flat().find((value) => String(value).startsWith('sp_ref='))).split(';')[0]!;
    const registered = await client.request('POST', '/api/register', uniqueUser('referred'), { cookie });
    expect(registered.status).toBe(201);
    await beforeCheckout?.(registered.body.id);
    const customer = await subscribe(client);
    beforeFirstPayment?.(customer);
    // The trial ends: the first £79 invoice is paid.
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    const paid = [...stripe.objects.values()].filter((item) => item.object === 'invoice' && item.amount_paid === 7900 && String(item.customer) === customer).at(-1);
    return { client, userId: registered.body.id as number, customer, paidInvoiceId: paid?.id as string | undefined };
  }

  const commissionsOf = (affiliateId: number) =>
    database.orm.em.fork().find(AffiliateCommission, { affiliate: affiliateId }, { orderBy: { id: 'asc' } });

  /** Ends the refund hold of the affiliate's commissions so far: they become payable. */
  const endHold = (affiliateId: number) =>
    database.orm.em.fork().nativeUpdate(AffiliateCommission, { affiliate: affiliateId }, { payableAt: new Date(Date.now() - 1000) });

  return {
    database,
    get app() {
      return app;
    },
    get stripe() {
      return stripe;
    },
    runEventsJob,
    newAffiliate,
    subscribe,
    referredSubscriber,
    commissionsOf,
    endHold,
  };
}
