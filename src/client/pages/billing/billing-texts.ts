import type { BillingInterval } from '../../../shared/billing.ts';

/** `?billing=yearly` on /pricing and /checkout/{id}: the interval shown and bought (monthly by default). */
export function intervalFromSearch(search: string): BillingInterval {
  return new URLSearchParams(search).get('billing') === 'yearly' ? 'year' : 'month';
}

export function searchForInterval(interval: BillingInterval): string {
  return interval === 'year' ? '?billing=yearly' : '';
}
