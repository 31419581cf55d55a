import type { EntityManager } from '@mikro-orm/postgresql';
import Stripe from 'stripe';
import type { BillingInterval } from '../../../shared/billing.ts';
import { TRIAL_DAYS, tierFromPlanName, type PlanTier } from '../../../shared/plans.ts';
import type { AppConfig } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { User } from '../users/user.entity.ts';
import { BillingCustomer } from './billing.entities.ts';
import type { CheckoutOutcome, PaymentProvider } from './payment-provider.ts';
import type { PlanEntity } from './plan.entity.ts';
import { Subscription } from './subscription.entity.ts';

/** The API version every request is pinned to: the stripe package's own (stripe-node 23.1.0). */
export const STRIPE_API_VERSION = Stripe.API_VERSION;

/** Our prices carry these lookup keys, e.g. storepulse_business_yearly. */
export function priceLookupKey(tier: PlanTier, interval: BillingInterval): string {
  return `storepulse_${tier}_${interval === 'month' ? 'monthly' : 'yearly'}`;
}

export function planFromLookupKey(lookupKey: string | null | undefined): { tier: PlanTier; interval: BillingInterval } | null {
  const match = /^storepulse_(\w+?)_(monthly|yearly)$/.exec(lookupKey ?? '');
  const tier = match && tierFromPlanName(match[1]!);
  return tier ? { tier, interval: match![2] === 'monthly' ? 'month' : 'year' } : null;
}

/** Yearly is ten months: two months free. */
export function priceAmountMinor(plan: Pick<PlanEntity, 'monthlyPriceMinor'>, interval: BillingInterval): number {
  return interval === 'month' ? plan.monthlyPriceMinor : plan.monthlyPriceMinor * 10;
}

export function createStripeClient(settings: NonNullable<AppConfig['stripe']>): Stripe {
  const base = settings.apiBase;
  return new Stripe(settings.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
}

/**
 * The price of a plan and interval, found by lookup key or created (with an idempotency key, so two
 * processes starting at once create one price). Found prices are remembered for the process's life.
 */
export async function ensurePrice(stripe: Stripe, plan: PlanEntity, interval: BillingInterval, cache: Map<string, string>): Promise<string> {
  const tier = tierFromPlanName(plan.name);
  if (!tier) throw new AppError('NOT_FOUND', 'Plan not found');
  const lookupKey = priceLookupKey(tier, interval);
  const cached = cache.get(lookupKey);
  if (cached) return cached;
  const amount = priceAmountMinor(plan, interval);
  const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
  let price = found.data.find((candidate) => candidate.unit_amount === amount && candidate.currency === plan.currency.toLowerCase());
  if (!price) {
    price = await stripe.prices.create(
      {
        currency: plan.currency.toLowerCase(),
        unit_amount: amount,
        recurring: { interval },
        lookup_key: lookupKey,
        // A changed amount moves the lookup key to the new price; subscribers keep the old one.
        transfer_lookup_key: true,
        product_data: { name: `StorePulse ${plan.name}` },
      },
      { idempotencyKey: `storepulse-price-${lookupKey}-${plan.currency}-${amount}` },
    );
  }
  cache.set(lookupKey, price.id);
  return price.id;
}

/** The user's Stripe customer, created on their first checkout and stored so every later one reuses it. */
async function customerFor(em: EntityManager, stripe: Stripe, user: { id: number; email: string }): Promise<string> {
  const known = await em.findOne(BillingCustomer, { user: user.id });
  if (known) return known.stripeCustomerId;
  const customer = await stripe.customers.create({ email: user.email, metadata: { storepulse_user_id: String(user.id) } }, { idempotencyKey: `storepulse-customer-${user.id}` });
  await em.getConnection().execute(`insert into billing_customers (user_id, stripe_customer_id, created_at) values (?, ?, now()) on conflict (user_id) do nothing`, [user.id, customer.id]);
  return (await em.fork().findOneOrFail(BillingCustomer, { user: user.id })).stripeCustomerId;
}

export interface StripePaymentProvider extends PaymentProvider {
  readonly stripe: Stripe;
  readonly webhookSecret: string;
}

export function stripePaymentProvider(settings: NonNullable<AppConfig['stripe']>): StripePaymentProvider {
  const stripe = createStripeClient(settings);
  const prices = new Map<string, string>();
  return {
    id: 'stripe',
    testMode: settings.secretKey.includes('_test_'),
    stripe,
    webhookSecret: settings.webhookSecret,
    async startCheckout({ em, userId, plan, interval, origin }): Promise<CheckoutOutcome> {
      const user = await em.findOneOrFail(User, { id: userId });
      const price = await ensurePrice(stripe, plan, interval, prices);
      const customer = await customerFor(em, stripe, user);
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: String(userId),
        line_items: [{ price, quantity: 1 }],
        // One free trial per user, whether taken here or through the app's own trial button.
        ...(user.trialStartedAt ? {} : { subscription_data: { trial_period_days: TRIAL_DAYS } }),
        success_url: `${origin}/pricing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${origin}/pricing?checkout=canceled`,
        metadata: { storepulse_user_id: String(userId) },
      });
      if (!session.url) throw new AppError('INTERNAL_SERVER_ERROR', 'Stripe returned no checkout address.');
      return { kind: 'redirect', url: session.url, providerReference: session.id };
    },
    async openBillingPortal({ em, userId, origin }) {
      const known = await em.findOne(BillingCustomer, { user: userId });
      if (!known) throw new AppError('NOT_FOUND', 'There is no billing account yet: subscribe to a plan first.');
      const portal = await stripe.billingPortal.sessions.create({ customer: known.stripeCustomerId, return_url: `${origin}/settings` });
      return portal.url;
    },
  };
}

/**
 * Ends the user's live Stripe subscriptions at once, before their account is deleted, so that the card
 * is never charged again (https://docs.stripe.com/api/subscriptions/cancel). The customer and its
 * invoices stay in Stripe: they are the business's accounting records.
 */
export async function cancelStripeSubscriptionsOf(em: EntityManager, stripe: Stripe, userId: number): Promise<number> {
  const live = await em.find(Subscription, { user: userId, provider: 'stripe', status: { $ne: 'canceled' }, providerReference: { $ne: null } });
  let cancelled = 0;
  for (const row of live) {
    const remote = await stripe.subscriptions.retrieve(row.providerReference!);
    if (remote.status === 'canceled' || remote.status === 'incomplete_expired') continue;
    await stripe.subscriptions.cancel(row.providerReference!, {}, { idempotencyKey: `storepulse-account-deletion-${row.providerReference}` });
    cancelled++;
  }
  return cancelled;
}
