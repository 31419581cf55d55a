import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BILLING_INVOICE_STATUSES } from '../../../shared/billing.ts';
import { User } from '../users/user.entity.ts';

/** The Stripe customer of a user, created at their first checkout and reused for every later one. */
export const BillingCustomer = defineEntity({
  name: 'BillingCustomer',
  tableName: 'billing_customers',
  properties: {
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    stripeCustomerId: p.string().length(255).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type BillingCustomerEntity = InferEntity<typeof BillingCustomer>;

/**
 * Every Stripe event we accepted, by its id: a redelivered or replayed event finds its row and is not
 * processed again. The job processes rows whose processed_at is null.
 */
export const StripeEvent = defineEntity({
  name: 'StripeEvent',
  tableName: 'stripe_events',
  properties: {
    id: p.string().length(255).primary(),
    type: p.string().length(128),
    /** The event's own `created` (Stripe's clock). */
    eventCreatedAt: p.datetime(),
    payload: p.json<Record<string, unknown>>(),
    receivedAt: p.datetime().onCreate(() => new Date()),
    processedAt: p.datetime().nullable(),
    error: p.text().nullable(),
  },
  indexes: [{ properties: ['processedAt', 'receivedAt'] }],
});
export type StripeEventEntity = InferEntity<typeof StripeEvent>;

/** A Stripe invoice of a user, kept as the webhooks report it (amounts in minor units). */
export const BillingInvoice = defineEntity({
  name: 'BillingInvoice',
  tableName: 'billing_invoices',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    stripeInvoiceId: p.string().length(255).unique(),
    stripeSubscriptionId: p.string().length(255).nullable(),
    status: p.enum(BILLING_INVOICE_STATUSES),
    currency: p.string().length(3),
    amountDue: p.bigint('number'),
    amountPaid: p.bigint('number'),
    amountRefunded: p.bigint('number').default(0),
    disputed: p.boolean().default(false),
    hostedInvoiceUrl: p.text().nullable(),
    invoicePdf: p.text().nullable(),
    periodStart: p.datetime(),
    periodEnd: p.datetime(),
    paidAt: p.datetime().nullable(),
    /**
     * When the "payment failed" e-mail went out for this invoice: once per failure episode, however
     * many retries (each a new invoice.payment_failed) follow (stripe-events.ts).
     */
    paymentFailureEmailedAt: p.datetime().nullable(),
    /** The paying card's Stripe fingerprint (charge.payment_method_details.card.fingerprint): the same card number gives the same value; the affiliate same-card rule compares it. */
    cardFingerprint: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ properties: ['user', 'periodStart'] }],
});
export type BillingInvoiceEntity = InferEntity<typeof BillingInvoice>;
