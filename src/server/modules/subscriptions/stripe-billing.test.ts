import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStripeForm, StripeFake } from '../../../../test/fakes/stripe.ts';
import { ApiClient, createTestApp, signedInClient, testServices, useTestDatabase } from '../../../../test/harness.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { deleteDueAccounts } from '../privacy/account-deletion.ts';
import { User } from '../users/user.entity.ts';
import { BillingInvoice, StripeEvent } from './billing.entities.ts';
import { stripePaymentProvider, type StripePaymentProvider } from './stripe-billing.ts';
import { processPendingStripeEvents } from './stripe-events.ts';
import { Subscription } from './subscription.entity.ts';

const SECRET_KEY = 'sk_test_storepulsefake';
const WEBHOOK_SECRET = 'whsec_storepulsefakesecret';
const DAY = 86_400;

const database = useTestDatabase();
let app: FastifyInstance;
let provider: StripePaymentProvider;
let stripe: StripeFake;
/** The webhook answers the fake got, in order. */
const deliveries: { status: number; body: string }[] = [];

beforeAll(async () => {
  stripe = new StripeFake({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    deliver: async (body, signature) => {
      const answer = await app.inject({ method: 'POST', url: '/api/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature } });
      deliveries.push({ status: answer.statusCode, body });
      return answer.statusCode;
    },
  });
  await stripe.start();
  provider = stripePaymentProvider({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase: new URL(stripe.url) });
  app = await createTestApp(database.orm, { ...testServices(), paymentProvider: provider });
});

afterAll(async () => {
  await app?.close();
  await stripe?.close();
});

/** What the pg-boss job does after each webhook. */
async function runEventsJob(now?: Date) {
  return processPendingStripeEvents(database.orm.em.fork(), provider.stripe, { baseUrl: 'http://app.test', now });
}

async function planId(client: ApiClient, name: string): Promise<number> {
  const plans = (await client.get('/api/subscription/plans')).body as { id: number; name: string }[];
  return plans.find((plan) => plan.name === name)!.id;
}

/** A signed-in user who went through Stripe Checkout for a plan (paying on the fake's page). */
async function subscribed(prefix: string, plan = 'Professional', interval: 'month' | 'year' = 'month') {
  const { client, user } = await signedInClient(app, prefix);
  const started = await client.post('/api/subscription/checkout', { planId: await planId(client, plan), interval });
  expect(started.status).toBe(200);
  expect(started.body).toMatchObject({ status: 'redirect', current: { hasActiveSubscription: false } });
  const sessionId = new URL(started.body.redirectUrl).pathname.split('/').pop()!;
  await stripe.completeCheckout(sessionId);
  await runEventsJob();
  const subscriptionId = String(stripe.objects.get(sessionId)!.subscription);
  const customerId = String(stripe.objects.get(sessionId)!.customer);
  return { client, user, sessionId, subscriptionId, customerId };
}

const current = async (client: ApiClient) => (await client.get('/api/subscription/current')).body;
const invoices = async (client: ApiClient) => (await client.get('/api/subscription/invoices')).body as { status: string; amountPaidMinor: number; amountRefundedMinor: number; disputed: boolean; invoicePdf: string }[];

describe('Stripe checkout', () => {
  it('creates the monthly and yearly prices by lookup key once, and a checkout session for the user with the 14-day trial', async () => {
    const { client, user } = await signedInClient(app, 'checkout');
    const answer = await client.post('/api/subscription/checkout', { planId: await planId(client, 'Business'), interval: 'year' });
    expect(answer.body).toMatchObject({ status: 'redirect', testMode: true });
    const session = stripe.objects.get(new URL(answer.body.redirectUrl).pathname.split('/').pop()!)!;
    expect(session).toMatchObject({ mode: 'subscription', client_reference_id: String(user.id), trial_period_days: 14 });
    expect(stripe.priceByLookupKey('storepulse_business_yearly')).toMatchObject({ unit_amount: 199_000, currency: 'gbp', recurring: { interval: 'year' } });
    // Until a webhook says so, nothing is active: the redirect back proves nothing.
    expect(await current(client)).toMatchObject({ hasActiveSubscription: false });
    const again = await client.post('/api/subscription/checkout', { planId: await planId(client, 'Business'), interval: 'year' });
    expect(stripe.objects.get(new URL(again.body.redirectUrl).pathname.split('/').pop()!)!.customer).toBe(session.customer);
    expect([...stripe.objects.values()].filter((item) => item.object === 'price' && item.lookup_key === 'storepulse_business_yearly')).toHaveLength(1);
  });

  it('subscribe: checkout.session.completed makes the subscription trialing; the trial ends, the card pays: active, invoice listed', async () => {
    const { client, subscriptionId } = await subscribed('trialing');
    expect(await current(client)).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'trial', provider: 'stripe', billingInterval: 'month', plan: { name: 'Professional' } } });
    await stripe.advanceClock(12 * DAY);
    await runEventsJob();
    const mails = await database.orm.em.fork().find(OutboundEmail, { template: 'trial_will_end' });
    expect(mails.some((mail) => mail.textBody.includes('Professional') && mail.textBody.includes('£79'))).toBe(true);
    await stripe.advanceClock(3 * DAY);
    await runEventsJob();
    expect(await current(client)).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'active' } });
    const listed = await invoices(client);
    expect(listed[0]).toMatchObject({ status: 'paid', amountPaidMinor: 7900, currency: 'GBP' });
    expect(listed[0]!.invoicePdf).toMatch(/\/pdf$/);
    expect(stripe.objects.get(subscriptionId)!.status).toBe('active');
  });

  it('a user who had a trial gets no second one', async () => {
    const { client } = await signedInClient(app, 'hadtrial');
    await client.post('/api/subscription/trial', { planId: await planId(client, 'Basic') });
    const answer = await client.post('/api/subscription/checkout', { planId: await planId(client, 'Basic') });
    expect(stripe.objects.get(new URL(answer.body.redirectUrl).pathname.split('/').pop()!)!.trial_period_days).toBeNull();
  });
});

describe('failed payments', () => {
  it('past_due with a grace period, then recovers to active', async () => {
    const { client, subscriptionId, customerId } = await subscribed('pastdue');
    stripe.declineCard(customerId);
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    const pastDue = await current(client);
    expect(pastDue).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'past_due' } });
    const graceDays = (Date.parse(pastDue.subscription.graceUntil) - Date.now()) / (DAY * 1000);
    expect(graceDays).toBeGreaterThan(6.9);
    expect(graceDays).toBeLessThan(7.01);
    expect(await database.orm.em.fork().count(OutboundEmail, { template: 'payment_failed' })).toBeGreaterThan(0);
    await stripe.recoverPayment(subscriptionId);
    await runEventsJob();
    expect(await current(client)).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'active', graceUntil: null } });
  });

  it('sends the "payment failed" e-mail once per failed invoice, not on each Smart Retry; the next invoice failing sends another', async () => {
    const { client, user, subscriptionId, customerId } = await subscribed('retries');
    const failureMails = () => database.orm.em.fork().count(OutboundEmail, { template: 'payment_failed', userId: user.id });
    stripe.declineCard(customerId);
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    expect(await failureMails()).toBe(1);
    const retried = await stripe.retryPayment(subscriptionId);
    await runEventsJob();
    const attempts = stripe.sentEvents
      .filter((event) => event.type === 'invoice.payment_failed' && (event.data as { object: { id: string } }).object.id === retried.id)
      .map((event) => (event.data as { object: { attempt_count: number } }).object.attempt_count);
    expect(attempts).toEqual([1, 2]);
    expect(await failureMails()).toBe(1);
    // Paid at last; a month later the next invoice fails: a new episode, a new e-mail.
    await stripe.recoverPayment(subscriptionId);
    await runEventsJob();
    expect(await current(client)).toMatchObject({ subscription: { status: 'active' } });
    stripe.declineCard(customerId);
    await stripe.advanceClock(31 * DAY);
    await runEventsJob();
    expect(stripe.objects.get(String(stripe.objects.get(subscriptionId)!.latest_invoice))!.id).not.toBe(retried.id);
    expect(await failureMails()).toBe(2);
  });

  it('access ends when the grace period passes without payment', async () => {
    const { client, customerId, user } = await subscribed('graceover');
    stripe.declineCard(customerId);
    await stripe.advanceClock(15 * DAY);
    // The job ran the failure eight days ago: the seven days of grace are over.
    await runEventsJob(new Date(Date.now() - 8 * DAY * 1000));
    expect(await current(client)).toMatchObject({ hasActiveSubscription: false, subscription: { status: 'past_due' } });
    expect((await client.get('/api/stores/dashboard-limits')).body.maxDashboards).toBe(1);
    expect(await database.orm.em.fork().count(Subscription, { user: user.id, status: 'past_due' })).toBe(1);
  });
});

describe('refunds and chargebacks', () => {
  it('records a partial refund and a dispute against the invoice the charge paid', async () => {
    const { client } = await subscribed('refund');
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    const paid = [...stripe.objects.values()].filter((item) => item.object === 'invoice' && item.amount_paid === 7900).at(-1)!;
    await stripe.refund(paid.id, 2000);
    await runEventsJob();
    expect((await invoices(client)).find((invoice) => invoice.amountPaidMinor === 7900)).toMatchObject({ amountRefundedMinor: 2000, disputed: false });
    await stripe.dispute(paid.id);
    await runEventsJob();
    expect((await invoices(client)).find((invoice) => invoice.amountPaidMinor === 7900)).toMatchObject({ amountRefundedMinor: 2000, disputed: true });
  });
});

describe('portal changes', () => {
  it('cancel at period end keeps access, then customer.subscription.deleted ends the plan', async () => {
    const { client, subscriptionId } = await subscribed('cancel');
    await stripe.cancelAtPeriodEnd(subscriptionId);
    await runEventsJob();
    expect(await current(client)).toMatchObject({ hasActiveSubscription: true, subscription: { cancelAtPeriodEnd: true } });
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    expect(await current(client)).toMatchObject({ hasActiveSubscription: false, subscription: { status: 'canceled' } });
  });

  it('an upgrade changes the plan from the webhook, with a prorated invoice', async () => {
    const { client, subscriptionId } = await subscribed('upgrade', 'Basic');
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    await client.post('/api/subscription/checkout', { planId: await planId(client, 'Enterprise') });
    const enterprise = stripe.priceByLookupKey('storepulse_enterprise_monthly')!;
    const proration = await stripe.changePrice(subscriptionId, enterprise.id);
    await runEventsJob();
    expect(await current(client)).toMatchObject({ subscription: { status: 'active', plan: { name: 'Enterprise' } } });
    expect(Number(proration.amount_due)).toBeGreaterThan(0);
    expect(Number(proration.amount_due)).toBeLessThan(49_900 - 2_900);
    expect((await invoices(client)).map((invoice) => invoice.amountPaidMinor)).toContain(Number(proration.amount_due));
  });

  it('opens the Customer Portal for the user’s own customer', async () => {
    const { client, customerId } = await subscribed('portal');
    const answer = await client.post('/api/subscription/billing-portal');
    expect(answer.status).toBe(200);
    const portal = [...stripe.objects.values()].find((item) => item.object === 'billing_portal.session' && item.url === answer.body.url)!;
    expect(portal.customer).toBe(customerId);
    const { client: stranger } = await signedInClient(app, 'noportal');
    expect((await stranger.post('/api/subscription/billing-portal')).status).toBe(404);
  });
});

describe('account deletion', () => {
  it('cancels the live Stripe subscription before the account is deleted, and the late deleted event finds nothing left to update', async () => {
    const { user, subscriptionId } = await subscribed('deleting');
    expect(stripe.objects.get(subscriptionId)).toMatchObject({ status: 'trialing' });
    await database.orm.em.fork().getConnection().execute(`update users set deletion_scheduled_for = now() - interval '1 minute' where id = ?`, [user.id]);
    expect(await deleteDueAccounts(() => database.orm.em.fork())).toBe(1);
    expect(stripe.objects.get(subscriptionId)).toMatchObject({ status: 'canceled' });
    expect(await database.orm.em.fork().count(User, { id: user.id })).toBe(0);
    expect(await runEventsJob()).toMatchObject({ failed: 0 });
  });
});

describe('webhook security', () => {
  it('refuses a forged signature with 400 and stores nothing', async () => {
    const body = JSON.stringify({ id: 'evt_forged1', object: 'event', type: 'customer.subscription.deleted', created: stripe.now, data: { object: { id: 'sub_x' } } });
    const forged = await app.inject({ method: 'POST', url: '/api/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': stripe.signature(body, undefined, 'whsec_wrong') } });
    expect(forged.statusCode).toBe(400);
    const unsigned = await app.inject({ method: 'POST', url: '/api/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json' } });
    expect(unsigned.statusCode).toBe(400);
    expect(await database.orm.em.fork().count(StripeEvent, { id: 'evt_forged1' })).toBe(0);
  });

  it('refuses a signature older than five minutes', async () => {
    const body = JSON.stringify({ id: 'evt_old1', object: 'event', type: 'invoice.paid', created: stripe.now, data: { object: { id: 'in_x' } } });
    const old = await app.inject({ method: 'POST', url: '/api/webhooks/stripe', payload: body, headers: { 'content-type': 'application/json', 'stripe-signature': stripe.signature(body, Math.floor(Date.now() / 1000) - 301) } });
    expect(old.statusCode).toBe(400);
    expect(await database.orm.em.fork().count(StripeEvent, { id: 'evt_old1' })).toBe(0);
  });

  it('processes a replayed event (same id) once', async () => {
    const { client, subscriptionId } = await subscribed('replay');
    await stripe.advanceClock(15 * DAY);
    await runEventsJob();
    const paid = stripe.sentEvents.filter((event) => event.type === 'invoice.paid' && (event.data as { object: { amount_paid: number } }).object.amount_paid > 0).at(-1)!;
    expect(await stripe.resend(paid)).toBe(200);
    expect(await runEventsJob()).toEqual({ processed: 0, failed: 0 });
    expect((await invoices(client)).filter((invoice) => invoice.amountPaidMinor > 0)).toHaveLength(1);
    expect(subscriptionId).toMatch(/^sub_/);
  });

  it("never attaches a subscription to another user than the checkout's, and invoices stay their owner's", async () => {
    const owner = await subscribed('owner');
    const { client: other, user: otherUser } = await signedInClient(app, 'other');
    // A forged-in-content (but validly signed) session naming another user for the owner's customer.
    const session = { ...stripe.objects.get(owner.sessionId)!, client_reference_id: String(otherUser.id) };
    const event = { id: 'evt_mismatch1', object: 'event', type: 'checkout.session.completed', created: stripe.now, data: { object: session } };
    expect(await stripe.resend(event as never)).toBe(200);
    expect(await runEventsJob()).toEqual({ processed: 0, failed: 1 });
    expect(await current(other)).toMatchObject({ hasActiveSubscription: false, subscription: null });
    expect(await invoices(other)).toEqual([]);
    expect((await invoices(owner.client)).length).toBeGreaterThan(0);
    expect(await database.orm.em.fork().count(BillingInvoice, { user: otherUser.id })).toBe(0);
  });
});

describe('the Stripe fake speaks the documented wire format', () => {
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${stripe.url}${path}`, { method: 'POST', body, headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded', ...headers } });

  it('answers a wrong key with 401 and an error object, and limit outside 1..100 with 400', async () => {
    const wrongKey = await fetch(`${stripe.url}/v1/prices`, { headers: { authorization: 'Bearer sk_test_wrong' } });
    expect(wrongKey.status).toBe(401);
    expect((await wrongKey.json()).error.type).toBe('invalid_request_error');
    const tooMany = await fetch(`${stripe.url}/v1/prices?limit=101`, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.param).toBe('limit');
  });

  it('replays the same response for the same Idempotency-Key and body, and refuses another body with idempotency_error', async () => {
    const body = 'email=idem%40example.com&metadata[source]=test';
    const first = await (await post('/v1/customers', body, { 'idempotency-key': 'idem-1' })).json();
    const again = await post('/v1/customers', body, { 'idempotency-key': 'idem-1' });
    expect((await again.json()).id).toBe(first.id);
    expect(first.metadata).toEqual({ source: 'test' });
    const other = await post('/v1/customers', 'email=other%40example.com', { 'idempotency-key': 'idem-1' });
    expect(other.status).toBe(400);
    expect((await other.json()).error.type).toBe('idempotency_error');
  });

  it('parses a[b][0][c] nesting', () => {
    expect(parseStripeForm('line_items[0][price]=price_1&line_items[0][quantity]=2&expand[]=customer&expand[]=subscription')).toEqual({
      line_items: [{ price: 'price_1', quantity: '2' }],
      expand: ['customer', 'subscription'],
    });
  });
});
