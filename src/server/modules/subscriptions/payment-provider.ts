import { randomUUID } from 'node:crypto';
import type { PlanEntity } from './plan.entity.ts';

export type CheckoutOutcome =
  /** Paid (or nothing to pay): the subscription starts now. */
  | { kind: 'completed'; providerReference: string }
  /** The buyer must finish paying on the provider's page; a webhook completes it later. */
  | { kind: 'redirect'; url: string; providerReference: string };

export interface PaymentProvider {
  readonly id: string;
  /** True when no money moves; the UI labels checkout as test mode. */
  readonly testMode: boolean;
  startCheckout(request: { userId: number; email: string; plan: PlanEntity }): Promise<CheckoutOutcome>;
}

/** Completes every checkout at once without charging anyone. */
export const testPaymentProvider: PaymentProvider = {
  id: 'test',
  testMode: true,
  async startCheckout() {
    return { kind: 'completed', providerReference: `test_${randomUUID()}` };
  },
};

export function paymentProviderFor(id: 'test'): PaymentProvider {
  switch (id) {
    case 'test':
      return testPaymentProvider;
  }
}
