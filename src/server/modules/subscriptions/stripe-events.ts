import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { PAYMENT_GRACE_DAYS, type BillingInvoice as BillingInvoiceDto } from '../../../shared/billing.ts';
import { formatMoney } from '../../../shared/currencies.ts';
import type { JobDefinition } from '../../jobs/queues.ts';
import { sendEmail } from '../email/email.service.ts';
import { User } from '../users/user.entity.ts';
import { applyInvoiceToCommission } from '../affiliates/commissions.service.ts';
import { BillingCustomer, BillingInvoice, StripeEvent } from './billing.entities.ts';
import { planFromLookupKey, type StripePaymentProvider } from './stripe-billing.ts';
import { Subscription, type SubscriptionEntity } from './subscription.entity.ts';
import { addDays, planByTier } from './subscriptions.service.ts';

/** Stripe-node's default, stated: a signature older than five minutes is refused (replays). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
export const STRIPE_EVENTS_QUEUE = 'stripe.events';

export interface WebhookAnswer {
  status: number;
  message: string;
}

/**
 * Checks the Stripe-Signature over the raw body and stores the event under its id. Nothing else
 * happens here: the job processes stored events, so Stripe gets its 2xx at once. An event id seen
 * before is acknowledged and not stored again.
 */
export async function receiveStripeWebhook(em: EntityManager, provider: StripePaymentProvider, rawBody: Buffer, signature: string | undefined): Promise<WebhookAnswer & { stored: boolean }> {
  let event: Stripe.Event;
  try {
    event = provider.stripe.webhooks.constructEvent(rawBody, signature ?? '', provider.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
  } catch {
    return { status: 400, message: 'Invalid Stripe-Signature.', stored: false };
  }
  const inserted = await em.getConnection().execute<{ id: string }[]>(
    `insert into stripe_events (id, type, event_created_at, payload, received_at) values (?, ?, to_timestamp(?), ?, now()) on conflict (id) do nothing returning id`,
    [event.id, event.type, event.created, JSON.stringify(event)],
  );
  return inserted.length > 0 ? { status: 200, message: 'Received.', stored: true } : { status: 200, message: 'Already received.', stored: false };
}

const STATUS_FROM_STRIPE: Record<Stripe.Subscription.Status, SubscriptionEntity['status'] | null> = {
  trialing: 'trial',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'canceled',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  // Not paid yet (first payment needs action): nothing to give access to.
  incomplete: null,
  paused: 'canceled',
};

/** The user a Stripe customer belongs to: only customers we created (billing_customers) count. */
async function userOfCustomer(em: EntityManager, customer: string | { id: string } | null): Promise<number | null> {
  const id = typeof customer === 'string' ? customer : customer?.id;
  if (!id) return null;
  const row = await em.findOne(BillingCustomer, { stripeCustomerId: id });
  return row ? row.user.id : null;
}

/**
 * Makes our row of a Stripe subscription match what the API says now. Events may arrive out of order
 * or late, so their payload is not trusted for state: Stripe's advice is to fetch the object.
 */
export async function syncSubscription(em: EntityManager, stripe: Stripe, subscriptionId: string, now = new Date()): Promise<SubscriptionEntity | null> {
  const remote = await stripe.subscriptions.retrieve(subscriptionId, { expand: ['items.data.price'] });
  const userId = await userOfCustomer(em, remote.customer);
  if (userId === null) {
    // Ended with a deleted account (privacy/account-deletion.ts cancels it first): nothing left to update.
    if (remote.status === 'canceled') return null;
    throw new Error(`Subscription ${subscriptionId} belongs to a customer we do not know`);
  }
  const status = STATUS_FROM_STRIPE[remote.status] ?? null;
  if (status === null) return null;
  const item = remote.items.data[0];
  const planKey = planFromLookupKey(item?.price.lookup_key);
  if (!item || !planKey) throw new Error(`Subscription ${subscriptionId} has no StorePulse price`);
  const plan = await planByTier(em, planKey.tier);
  return em.transactional(async (tx) => {
    let row = await tx.findOne(Subscription, { provider: 'stripe', providerReference: subscriptionId });
    if (!row) {
      // Only one subscription is ever live: the new Stripe one replaces a trial or an earlier plan.
      await tx.nativeUpdate(Subscription, { user: userId, status: { $ne: 'canceled' } }, { status: 'canceled', canceledAt: now, updatedAt: now });
      await tx.nativeUpdate(User, { id: userId, isGuest: true }, { isGuest: false });
      row = tx.create(Subscription, {
        user: userId,
        plan,
        status,
        provider: 'stripe',
        providerReference: subscriptionId,
        currentPeriodStart: new Date(item.current_period_start * 1000),
        currentPeriodEnd: new Date(item.current_period_end * 1000),
        canceledAt: null,
      });
    }
    if (row.user.id !== userId) throw new Error(`Subscription ${subscriptionId} moved to another customer`);
    row.plan = plan;
    row.status = status;
    row.billingInterval = planKey.interval;
    row.currentPeriodStart = new Date(item.current_period_start * 1000);
    row.currentPeriodEnd = new Date(item.current_period_end * 1000);
    row.cancelAtPeriodEnd = remote.cancel_at_period_end;
    row.canceledAt = status === 'canceled' ? new Date((remote.ended_at ?? remote.canceled_at ?? Math.floor(now.getTime() / 1000)) * 1000) : null;
    row.graceUntil = status === 'past_due' ? (row.graceUntil ?? addDays(now, PAYMENT_GRACE_DAYS)) : null;
    if (status === 'trial') await tx.nativeUpdate(User, { id: userId, trialStartedAt: null }, { trialStartedAt: now });
    await tx.flush();
    return row;
  });
}

function subscriptionIdOfInvoice(invoice: Stripe.Invoice): string | null {
  const subscription = invoice.parent?.subscription_details?.subscription;
  return typeof subscription === 'string' ? subscription : (subscription?.id ?? null);
}

/** Stores the invoice as the API has it now, for its customer's user. */
async function syncInvoice(em: EntityManager, stripe: Stripe, invoiceId: string): Promise<{ invoice: Stripe.Invoice; userId: number }> {
  const invoice = await stripe.invoices.retrieve(invoiceId);
  const userId = await userOfCustomer(em, invoice.customer as string | null);
  if (userId === null) throw new Error(`Invoice ${invoiceId} belongs to a customer we do not know`);
  const paidAt = invoice.status_transitions?.paid_at;
  await em.getConnection().execute(
    `insert into billing_invoices (user_id, stripe_invoice_id, stripe_subscription_id, status, currency, amount_due, amount_paid, hosted_invoice_url, invoice_pdf, period_start, period_end, paid_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, to_timestamp(?), to_timestamp(?), ?, now(), now())
     on conflict (stripe_invoice_id) do update set status = excluded.status, amount_due = excluded.amount_due, amount_paid = excluded.amount_paid,
       hosted_invoice_url = excluded.hosted_invoice_url, invoice_pdf = excluded.invoice_pdf, paid_at = excluded.paid_at, updated_at = now()
     where billing_invoices.user_id = excluded.user_id`,
    [
      userId, invoice.id, subscriptionIdOfInvoice(invoice), invoice.status ?? 'draft', invoice.currency.toUpperCase(), invoice.amount_due, invoice.amount_paid,
      invoice.hosted_invoice_url ?? null, invoice.invoice_pdf ?? null, invoice.period_start, invoice.period_end, paidAt ? new Date(paidAt * 1000) : null,
    ],
  );
  return { invoice, userId };
}

/**
 * The fingerprint of the card that paid an invoice, stored on it (the affiliate same-card rule compares them):
 * invoice -> invoice payment -> payment intent -> its charge's payment_method_details.card.fingerprint.
 */
async function recordCardFingerprint(em: EntityManager, stripe: Stripe, invoiceId: string, userId: number): Promise<void> {
  const payments = await stripe.invoicePayments.list({ invoice: invoiceId, limit: 1 });
  const payment = payments.data[0]?.payment;
  const intent = typeof payment?.payment_intent === 'string' ? payment.payment_intent : payment?.payment_intent?.id;
  if (!intent) return;
  const charges = await stripe.charges.list({ payment_intent: intent, limit: 1 });
  const fingerprint = charges.data[0]?.payment_method_details?.card?.fingerprint;
  if (!fingerprint) return;
  await em.getConnection().execute(`update billing_invoices set card_fingerprint = ?, updated_at = now() where stripe_invoice_id = ? and user_id = ?`, [fingerprint, invoiceId, userId]);
}

interface ProcessContext {
  em: EntityManager;
  stripe: Stripe;
  baseUrl: string;
  log: (message: string) => void;
  now: Date;
}

async function mailUser(context: ProcessContext, userId: number, template: 'trial_will_end' | 'payment_failed', variables: Record<string, string>): Promise<void> {
  const user = await context.em.findOneOrFail(User, { id: userId });
  await sendEmail(context.em, { to: user.email, template, userId, variables: { username: user.username, billingUrl: `${context.baseUrl}/settings`, ...variables } }, context.log);
}

/**
 * Stripe retries a failed invoice several times (Smart Retries), sending invoice.payment_failed for
 * each attempt with a rising attempt_count; a manual attempt does not raise it (docs/platform-notes.md,
 * "Stripe Billing"). The user hears of a failure once per invoice: the first failure claims the
 * invoice's row, in the transaction that queues the e-mail, and later attempts find it claimed.
 */
async function mailPaymentFailureOnce(context: ProcessContext, invoice: Stripe.Invoice, mail: { userId: number; variables: Record<string, string> }): Promise<void> {
  await context.em.transactional(async (tx) => {
    const claimed = await tx.nativeUpdate(BillingInvoice, { stripeInvoiceId: invoice.id!, user: mail.userId, paymentFailureEmailedAt: null }, { paymentFailureEmailedAt: context.now });
    if (claimed === 0) return;
    await mailUser({ ...context, em: tx }, mail.userId, 'payment_failed', mail.variables);
  });
}

async function handleEvent(context: ProcessContext, event: Stripe.Event): Promise<void> {
  const { em, stripe } = context;
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      if (session.mode !== 'subscription' || typeof session.subscription !== 'string') return;
      // The checkout was started by this user for their own customer: a session naming another
      // user than the customer's owner attaches nothing.
      const owner = await userOfCustomer(em, session.customer as string | null);
      if (owner === null || String(owner) !== session.client_reference_id) throw new Error(`Checkout ${session.id}: customer and client_reference_id disagree`);
      await syncSubscription(em, stripe, session.subscription, context.now);
      return;
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      await syncSubscription(em, stripe, event.data.object.id, context.now);
      return;
    case 'customer.subscription.trial_will_end': {
      const row = await syncSubscription(em, stripe, event.data.object.id, context.now);
      if (!row || row.status !== 'trial') return;
      const plan = row.plan;
      await mailUser(context, row.user.id, 'trial_will_end', {
        planName: plan.name,
        trialEnd: row.currentPeriodEnd.toISOString().slice(0, 10),
        amount: formatMoney(row.billingInterval === 'year' ? plan.monthlyPriceMinor * 10 : plan.monthlyPriceMinor, plan.currency, 'en'),
      });
      return;
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const { invoice, userId } = await syncInvoice(em, stripe, event.data.object.id!);
      if (event.type === 'invoice.paid') {
        await recordCardFingerprint(em, stripe, invoice.id!, userId);
        await applyInvoiceToCommission(em, invoice.id!);
      }
      const subscriptionId = subscriptionIdOfInvoice(invoice);
      const row = subscriptionId ? await syncSubscription(em, stripe, subscriptionId, context.now) : null;
      if (event.type === 'invoice.payment_failed' && row?.status === 'past_due') {
        await mailPaymentFailureOnce(context, invoice, {
          userId: row.user.id,
          variables: { planName: row.plan.name, amount: formatMoney(invoice.amount_due, invoice.currency.toUpperCase(), 'en'), graceUntil: row.graceUntil!.toISOString().slice(0, 10) },
        });
      }
      return;
    }
    case 'charge.refunded':
      await recordChargeOutcome(context, event.data.object.id, false);
      return;
    case 'charge.dispute.created': {
      const charge = event.data.object.charge;
      await recordChargeOutcome(context, typeof charge === 'string' ? charge : charge.id, true);
      return;
    }
    default:
      return;
  }
}

/**
 * A refund or a chargeback, recorded against the invoice the charge paid (what an affiliate
 * commission must be reversed by). Charge -> payment intent -> invoice payment -> invoice.
 */
async function recordChargeOutcome(context: ProcessContext, chargeId: string, disputed: boolean): Promise<void> {
  const { em, stripe } = context;
  const charge = await stripe.charges.retrieve(chargeId);
  const intent = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
  const userId = await userOfCustomer(em, charge.customer as string | null);
  if (!intent || userId === null) return;
  const payments = await stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: intent }, limit: 1 });
  const invoice = payments.data[0]?.invoice;
  const invoiceId = typeof invoice === 'string' ? invoice : invoice?.id;
  if (!invoiceId) return;
  await em.getConnection().execute(
    `update billing_invoices set amount_refunded = ?, disputed = disputed or ?, updated_at = now() where stripe_invoice_id = ? and user_id = ?`,
    [charge.amount_refunded, disputed, invoiceId, userId],
  );
  await applyInvoiceToCommission(em, invoiceId);
}

/**
 * The job: processes every stored, unprocessed event in Stripe's order. A failing event keeps its
 * error and stays pending (the job is retried); the others go on.
 */
export async function processPendingStripeEvents(em: EntityManager, stripe: Stripe, options: { baseUrl: string; log?: (message: string) => void; now?: Date }): Promise<{ processed: number; failed: number }> {
  const pending = await em.find(StripeEvent, { processedAt: null }, { orderBy: { eventCreatedAt: 'asc', receivedAt: 'asc' }, limit: 200 });
  let processed = 0;
  let failed = 0;
  for (const row of pending) {
    // Claimed first, so two jobs running at once never handle one event twice (e-mails included).
    const claimed = await em.nativeUpdate(StripeEvent, { id: row.id, processedAt: null }, { processedAt: new Date(), error: null });
    if (claimed === 0) continue;
    try {
      await handleEvent({ em: em.fork(), stripe, baseUrl: options.baseUrl, log: options.log ?? (() => {}), now: options.now ?? new Date() }, row.payload as unknown as Stripe.Event);
      processed += 1;
    } catch (error) {
      await em.nativeUpdate(StripeEvent, { id: row.id }, { processedAt: null, error: (error as Error).message.slice(0, 1000) });
      options.log?.(`Stripe event ${row.id} (${row.type}) failed: ${(error as Error).message}`);
      failed += 1;
    }
  }
  return { processed, failed };
}

export async function listInvoices(em: EntityManager, userId: number): Promise<BillingInvoiceDto[]> {
  const rows = await em.find(BillingInvoice, { user: userId }, { orderBy: { periodStart: 'desc', id: 'desc' } });
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    currency: row.currency,
    amountDueMinor: row.amountDue,
    amountPaidMinor: row.amountPaid,
    amountRefundedMinor: row.amountRefunded,
    disputed: row.disputed,
    hostedInvoiceUrl: row.hostedInvoiceUrl ?? null,
    invoicePdf: row.invoicePdf ?? null,
    periodStart: row.periodStart.toISOString(),
    periodEnd: row.periodEnd.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
  }));
}

/** The Stripe client the job uses: the app's provider when PAYMENT_PROVIDER=stripe (set by the webhook routes). */
let jobStripe: Stripe | null = null;
export function configureStripeEventsJob(stripe: Stripe | null): void {
  jobStripe = stripe;
}

/** The Stripe client of this server, when PAYMENT_PROVIDER=stripe. */
export function configuredStripe(): Stripe | null {
  return jobStripe;
}

export const STRIPE_EVENTS_JOB: JobDefinition = {
  queue: STRIPE_EVENTS_QUEUE,
  retryLimit: 10,
  retryDelaySeconds: 30,
  handle: async (context) => {
    if (!jobStripe) return { processed: 0, failed: 0 };
    const result = await processPendingStripeEvents(context.em, jobStripe, { baseUrl: context.baseUrl, log: context.log });
    if (result.failed > 0) throw new Error(`${result.failed} Stripe event(s) failed; retrying`);
    return result;
  },
};
