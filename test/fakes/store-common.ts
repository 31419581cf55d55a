import { FakeServer } from './fake-server.ts';

// What the store platform fakes (shopify, woocommerce) share: decimal money strings, order lines,
// orders generated from (seed, index) with the changes tests made on top, and posting a signed
// webhook delivery to the app.

/** Minor units as the platforms' decimal strings ("12.50", "-3.00"). */
export function decimal(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** An order line as both fakes generate it (each adds its platform's name field). */
export interface StoreFakeLine {
  id: number;
  productId: number;
  sku: string;
  quantity: number;
  unitMinor: number;
  discountMinor: number;
}

export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * A store fake whose orders are generated on demand from their index; `changes` holds what tests
 * changed since (updates, refunds), applied over the generated order by `withChange`.
 */
export abstract class StoreFake<Order, Change> extends FakeServer {
  protected readonly changes = new Map<number, Change>();

  protected abstract generate(index: number): Order;
  protected abstract withChange(order: Order, change: Change): Order;

  /** The order as it is now (generated, then changed by the test helpers). */
  order(index: number): Order {
    const order = this.generate(index);
    const change = this.changes.get(index);
    return change ? this.withChange(order, change) : order;
  }

  /** POSTs a webhook delivery to `url` (e.g. the app's webhook route); returns the status answered. */
  protected async post(url: string, delivery: WebhookRequest): Promise<number> {
    const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    await response.text();
    return response.status;
  }
}
