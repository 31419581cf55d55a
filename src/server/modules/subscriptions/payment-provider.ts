import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingInterval } from '../../../shared/billing.ts';
import type { AppConfig } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { PlanEntity } from './plan.entity.ts';
import { stripePaymentProvider } from './stripe-billing.ts';

export type CheckoutOutcome =
  /** Paid (or nothing to pay): the subscription starts now. */
  | { kind: 'completed'; providerReference: string }
  /** The buyer must finish paying on the provider's page; a webhook completes it later. */
  | { kind: 'redirect'; url: string; providerReference: string };

export interface PaymentProvider {
  readonly id: string;
  /** True when no money moves; the UI labels checkout as test mode. */
  readonly testMode: boolean;
  startCheckout(request: CheckoutRequest): Promise<CheckoutOutcome>;
  /** The provider's own billing page (cards, plan changes, cancellation); absent when there is none. */
  openBillingPortal?(request: { em: EntityManager; userId: number; origin: string }): Promise<string>;
}

export interface CheckoutRequest {
  em: EntityManager;
  userId: number;
  email: string;
  plan: PlanEntity;
  interval: BillingInterval;
  /** The app's origin, for the provider's return addresses. */
  origin: string;
}

/** Completes every checkout at once without charging anyone. */
export const testPaymentProvider: PaymentProvider = {
  id: 'test',
  testMode: true,
  async startCheckout() {
    return { kind: 'completed', providerReference: `test_${randomUUID()}` };
  },
};

export const PAYMENTS_NOT_SET_UP_MESSAGE =
  'Plans cannot be bought on this server yet: no payment provider is set up. Please contact the administrator.';

/** Refuses every checkout: a production server whose only provider is the test one, which would give plans away. */
export const unavailablePaymentProvider: PaymentProvider = {
  id: 'unavailable',
  testMode: false,
  async startCheckout() {
    throw new AppError('FORBIDDEN', PAYMENTS_NOT_SET_UP_MESSAGE);
  },
};

/**
 * The provider of PAYMENT_PROVIDER. The test provider activates any plan for free, so in production
 * it is used only when ALLOW_TEST_PAYMENTS says so (a self-hosted server where everything is free).
 */
export function paymentProviderFor(config: Pick<AppConfig, 'env' | 'paymentProvider' | 'allowTestPayments' | 'stripe'>): PaymentProvider {
  switch (config.paymentProvider) {
    case 'stripe':
      return stripePaymentProvider(config.stripe!);
    case 'test':
      return config.env === 'production' && !config.allowTestPayments ? unavailablePaymentProvider : testPaymentProvider;
  }
}
