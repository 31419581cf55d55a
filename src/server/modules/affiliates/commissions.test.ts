import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeFake } from '../../../../test/fakes/stripe.ts';
import { ApiClient, createTestApp, signedInClient, testServices, uniqueUser, useTestDatabase } from '../../../../test/harness.ts';
import { stripePaymentProvider, type StripePaymentProvider } from '../subscriptions/stripe-billing.ts';
import { BillingInvoice } from '../subscriptions/billing.entities.ts';
import { processPendingStripeEvents } from '../subscriptions/stripe-events.ts';
import { Affiliate, AffiliateCommission, AffiliateReferral } from './affiliate.entities.ts';
import { commissionTotals } from './commissions.service.ts';

const SECRET_KEY = 'sk_test_storepulsefake';
const WEBHOOK_SECRET = 'whsec_storepulsefakesecret';
const DAY = 86_400;

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

async function newAffiliate() {
  const { client } = await signedInClient(app, 'aff');
  const joined = await client.post('/api/affiliate');
  expect(joined.status).toBe(200);
  const affiliateId = (await database.orm.em.fork().findOneOrFail(Affiliate, { code: joined.body.code })).id;
  return { code: joined.body.code as string, affiliateId };
}

/** A visitor who followed the affiliate's link, signed up and subscribed to Professional (£79/month, 14-day trial). */
async function referredSubscriber(code: string, beforeCheckout?: (userId: number) => Promise<void>) {
  const client = new ApiClient(app);
  const click = await client.post('/api/affiliate/clicks', { code });
  const cookie = String([click.headers['set-cookie']].flat().find((value) => String(value).startsWith('sp_ref='))).split(';')[0]!;
  const registered = await client.request('POST', '/api/register', uniqueUser('referred'), { cookie });
  expect(registered.status).toBe(201);
  await beforeCheckout?.(registered.body.id);
  const plans = (await client.get('/api/subscription/plans')).body as { id: number; name: string }[];
  const started = await client.post('/api/subscription/checkout', { planId: plans.find((plan) => plan.name === 'Professional')!.id, interval: 'month' });
  expect(started.status).toBe(200);
  const sessionId = new URL(started.body.redirectUrl).pathname.split('/').pop()!;
  await stripe.completeCheckout(sessionId);
  await runEventsJob();
  // The trial ends: the first £79 invoice is paid.
  await stripe.advanceClock(15 * DAY);
  await runEventsJob();
  const paid = [...stripe.objects.values()].filter((item) => item.object === 'invoice' && item.amount_paid === 7900 && String(item.customer) === String(stripe.objects.get(sessionId)!.customer)).at(-1);
  return { userId: registered.body.id as number, paidInvoiceId: paid?.id as string | undefined };
}

const commissionsOf = (affiliateId: number) =>
  database.orm.em.fork().find(AffiliateCommission, { affiliate: affiliateId }, { orderBy: { id: 'asc' } });

describe('affiliate commissions from Stripe invoices', () => {
  it('a paid invoice of a referred account earns 30 %, pending for 30 days then payable; each invoice earns once', async () => {
    const { code, affiliateId } = await newAffiliate();
    const { paidInvoiceId } = await referredSubscriber(code);
    expect(paidInvoiceId).toBeDefined();
    const [commission, ...others] = await commissionsOf(affiliateId);
    expect(others).toEqual([]);
    expect(commission).toMatchObject({ status: 'earned', currency: 'GBP', ratePercent: 30, amountMinor: 2370 });

    const invoice = await database.orm.em.fork().findOneOrFail(BillingInvoice, { stripeInvoiceId: paidInvoiceId! });
    const paidAt = invoice.paidAt!.getTime();
    expect(await commissionTotals(database.orm.em.fork(), affiliateId, new Date(paidAt + 29 * DAY * 1000))).toEqual({ earnedMinor: 2370, pendingMinor: 2370, payableMinor: 0 });
    expect(await commissionTotals(database.orm.em.fork(), affiliateId, new Date(paidAt + 31 * DAY * 1000))).toEqual({ earnedMinor: 2370, pendingMinor: 0, payableMinor: 2370 });

    const invoicePaid = stripe.sentEvents.filter((event) => event.type === 'invoice.paid' && (event.data as { object: { id: string } }).object.id === paidInvoiceId).at(-1)!;
    await stripe.resend(invoicePaid);
    await runEventsJob();
    expect((await commissionsOf(affiliateId)).map((row) => row.amountMinor)).toEqual([2370]);
  });

  it('a refund reduces the commission proportionally and a chargeback reverses it', async () => {
    const { code, affiliateId } = await newAffiliate();
    const { paidInvoiceId } = await referredSubscriber(code);
    await stripe.refund(paidInvoiceId!, 2000);
    await runEventsJob();
    expect(await commissionsOf(affiliateId)).toMatchObject([{ status: 'earned', amountMinor: Math.round(5900 * 0.3) }]);
    await stripe.dispute(paidInvoiceId!);
    await runEventsJob();
    expect(await commissionsOf(affiliateId)).toMatchObject([{ status: 'reversed', amountMinor: 0 }]);
    expect((await commissionTotals(database.orm.em.fork(), affiliateId)).earnedMinor).toBe(0);
  });

  it('invoices paid after the 12 months from sign-up earn nothing; a per-affiliate rate applies', async () => {
    const late = await newAffiliate();
    await referredSubscriber(late.code, async (userId) => {
      await database.orm.em.fork().nativeUpdate(AffiliateReferral, { referredUser: userId }, { signedUpAt: new Date(Date.now() - 366 * DAY * 1000) });
    });
    expect(await commissionsOf(late.affiliateId)).toEqual([]);

    const custom = await newAffiliate();
    await database.orm.em.fork().getConnection().execute('update affiliates set commission_rate_percent = 50 where id = ?', [custom.affiliateId]);
    await referredSubscriber(custom.code);
    expect(await commissionsOf(custom.affiliateId)).toMatchObject([{ ratePercent: 50, amountMinor: 3950 }]);
  });

  it('an account that was not referred earns nobody anything', async () => {
    const { client, user } = await signedInClient(app, 'plain');
    const plans = (await client.get('/api/subscription/plans')).body as { id: number; name: string }[];
    const started = await client.post('/api/subscription/checkout', { planId: plans.find((plan) => plan.name === 'Professional')!.id, interval: 'month' });
    await stripe.completeCheckout(new URL(started.body.redirectUrl).pathname.split('/').pop()!);
    await runEventsJob();
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    // Earlier tests' subscriptions renew too when the clock moves; only referred accounts' invoices may count.
    const em = database.orm.em.fork();
    const paidInvoices = await em.find(BillingInvoice, { user: user.id, amountPaid: { $gt: 0 } });
    expect(paidInvoices).toHaveLength(1);
    expect(await em.count(AffiliateCommission, { invoice: paidInvoices[0]!.id })).toBe(0);
  });
});
