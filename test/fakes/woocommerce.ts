import { createHmac, randomBytes } from 'node:crypto';
import { seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';
import { decimal, StoreFake, type StoreFakeLine } from './store-common.ts';

// A WooCommerce store on 127.0.0.1 speaking REST API v3: /orders (modified_after/before, after/before,
// status lists, orderby id, page/per_page/offset, X-WP-Total, X-WP-TotalPages, Link), /orders/{id},
// /orders/{id}/refunds, /products, /data/currencies/current; Basic or query-string key auth; signed
// webhook deliveries. Orders are built from (seed, index) on demand.

export interface WooCommerceFakeOptions {
  seed?: number;
  orders?: number;
  products?: number;
  currency?: string;
  /** Orders are created evenly across [from, to). */
  from?: Date;
  to?: Date;
  consumerKey?: string;
  consumerSecret?: string;
  webhookSecret?: string;
  /** The site's offset from UTC in hours, for the non-GMT date fields. */
  utcOffsetHours?: number;
  now?: () => number;
}

interface FakeLine extends StoreFakeLine {
  name: string;
}

interface FakeRefund {
  id: number;
  createdMs: number;
  amountMinor: number;
  /** The refunded line's total, or null for an amount-only refund. */
  lineMinor: number | null;
  reason: string;
}

interface FakeOrder {
  id: number;
  status: string;
  createdMs: number;
  modifiedMs: number;
  customerId: number;
  email: string;
  lines: FakeLine[];
  shippingMinor: number;
  taxMinor: number;
  refunds: FakeRefund[];
  attribution: Record<string, string> | null;
}

interface OrderChanges {
  modifiedMs: number;
  status?: string;
  refunds: FakeRefund[];
}

const ORDER_ID_BASE = 1000;
const PRODUCT_ID_BASE = 90;
const STATUSES: [string, number][] = [
  ['completed', 0.6],
  ['processing', 0.2],
  ['on-hold', 0.04],
  ['pending', 0.04],
  ['cancelled', 0.04],
  ['failed', 0.03],
  ['refunded', 0.05],
];
const ATTRIBUTIONS: (Record<string, string> | null)[] = [
  { source_type: 'utm', utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'brand', referrer: 'https://www.google.com/', session_entry: 'https://store.example/?utm_source=google&gclid=Cj0KCQfake' },
  { source_type: 'utm', utm_source: 'facebook', utm_medium: 'paid', utm_campaign: 'spring', referrer: 'https://l.facebook.com/', session_entry: 'https://store.example/shop/?fbclid=IwARfake' },
  { source_type: 'organic', utm_source: 'google', utm_medium: 'organic', referrer: 'https://www.google.com/', session_entry: 'https://store.example/' },
  { source_type: 'typein', utm_source: '(direct)', session_entry: 'https://store.example/' },
  null,
];

function gmt(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** WooCommerce reads zone-less dates as GMT when dates_are_gmt is set. */
function parseGmt(value: string | null): number | null {
  if (!value) return null;
  return Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
}

export class WooCommerceFake extends StoreFake<FakeOrder, OrderChanges> {
  readonly currency: string;
  readonly consumerKey: string;
  readonly consumerSecret: string;
  readonly webhookSecret: string;
  readonly orderCount: number;
  readonly productCount: number;

  private readonly seed: number;
  private readonly fromMs: number;
  private readonly spanMs: number;
  private readonly offsetMs: number;
  readonly now: () => number;
  private keyRevoked = false;
  private readonly baseModified: Float64Array;
  private readonly baseStatus: Uint8Array;
  private nextRefundId = 600_000;

  constructor(options: WooCommerceFakeOptions = {}) {
    super();
    this.seed = options.seed ?? 1;
    this.orderCount = options.orders ?? 300;
    this.productCount = options.products ?? 25;
    this.currency = options.currency ?? 'EUR';
    this.consumerKey = options.consumerKey ?? 'ck_fake_0123456789';
    this.consumerSecret = options.consumerSecret ?? 'cs_fake_0123456789';
    this.webhookSecret = options.webhookSecret ?? 'fake-woo-webhook-secret';
    this.fromMs = (options.from ?? new Date('2025-01-01T00:00:00Z')).getTime();
    this.spanMs = (options.to ?? new Date('2026-01-01T00:00:00Z')).getTime() - this.fromMs;
    this.offsetMs = (options.utcOffsetHours ?? -3) * 3_600_000;
    this.now = options.now ?? Date.now;
    this.baseModified = new Float64Array(this.orderCount);
    this.baseStatus = new Uint8Array(this.orderCount);
    for (let index = 0; index < this.orderCount; index++) {
      const order = this.generate(index);
      this.baseModified[index] = order.modifiedMs;
      this.baseStatus[index] = STATUSES.findIndex(([status]) => status === order.status);
    }

    const api = '/wp-json/wc/v3';
    this.route('GET', `${api}/orders`, (request) => this.guarded(request, () => this.listOrders(request)));
    this.route('GET', `${api}/orders/:id`, (request) => this.guarded(request, () => this.getOrder(request.params.id!)));
    this.route('GET', `${api}/orders/:id/refunds`, (request) => this.guarded(request, () => this.listRefunds(request.params.id!)));
    this.route('GET', `${api}/products`, (request) => this.guarded(request, () => this.listProducts(request)));
    this.route('GET', `${api}/data/currencies/current`, (request) => this.guarded(request, () => ({ body: { code: this.currency, name: this.currency, symbol: '€' } })));
  }

  // -------------------------------------------------------------------------------------------
  // The data set

  protected generate(index: number): FakeOrder {
    const random = seededRandom(this.seed * 999_983 + index * 104_729);
    const createdMs = this.secondOf(this.fromMs + ((index + random()) * this.spanMs) / this.orderCount);
    let roll = random();
    let status = 'completed';
    for (const [candidate, share] of STATUSES) {
      if (roll < share) {
        status = candidate;
        break;
      }
      roll -= share;
    }
    const guest = random() < 0.15;
    const customerId = guest ? 0 : 1 + Math.floor(random() * Math.max(1, this.orderCount / 3));
    const lineCount = 1 + Math.floor(random() * 3);
    const couponed = random() < 0.2;
    const lines: FakeLine[] = [];
    for (let position = 0; position < lineCount; position++) {
      const product = Math.floor(random() * this.productCount);
      const quantity = 1 + Math.floor(random() * 2);
      const unitMinor = this.productPriceMinor(product);
      lines.push({
        id: (ORDER_ID_BASE + index) * 10 + position,
        productId: PRODUCT_ID_BASE + product,
        name: `Woo Product ${product}`,
        sku: product % 5 === 0 ? '' : `WOO-${product}`,
        quantity,
        unitMinor,
        discountMinor: couponed ? Math.round((unitMinor * quantity) / 5) : 0,
      });
    }
    const merchandise = lines.reduce((sum, line) => sum + line.unitMinor * line.quantity - line.discountMinor, 0);
    const shippingMinor = random() < 0.6 ? 490 : 0;
    const attribution = ATTRIBUTIONS[Math.floor(random() * ATTRIBUTIONS.length)] ?? null;
    // Nothing happens after the end of the span (`to`, often "now"): a shop has no future edits, so
    // an order refunded "later" than that is still processing.
    const endMs = this.secondOf(this.fromMs + this.spanMs);
    let modifiedMs = Math.min(endMs, createdMs + this.secondOf(random() * 3 * 3_600_000));
    const refunds: FakeRefund[] = [];
    const refundMs = createdMs + 3 * 86_400_000;
    if (status === 'refunded' && refundMs > endMs) status = 'processing';
    if (status === 'refunded') {
      const taxMinor = Math.round(merchandise * 0.19);
      refunds.push({ id: 500_000 + index, createdMs: refundMs, amountMinor: merchandise + shippingMinor + taxMinor, lineMinor: merchandise, reason: 'Returned' });
      modifiedMs = refundMs;
    }
    return {
      id: ORDER_ID_BASE + index,
      status,
      createdMs,
      modifiedMs,
      customerId,
      email: guest ? `guest${index}@example.com` : `customer${customerId}@example.com`,
      lines,
      shippingMinor,
      taxMinor: Math.round(merchandise * 0.19),
      refunds,
      attribution,
    };
  }

  private productPriceMinor(product: number): number {
    return 1200 + Math.floor(seededRandom(this.seed * 17 + product)() * 60) * 50;
  }

  protected withChange(order: FakeOrder, change: OrderChanges): FakeOrder {
    return { ...order, modifiedMs: change.modifiedMs, status: change.status ?? order.status, refunds: [...order.refunds, ...change.refunds] };
  }

  indexOfOrder(id: number | string): number {
    const index = Number(id) - ORDER_ID_BASE;
    if (!Number.isInteger(index) || index < 0 || index >= this.orderCount) throw new Error(`no fake WooCommerce order ${id}`);
    return index;
  }

  orderId(index: number): string {
    return String(ORDER_ID_BASE + index);
  }

  private modifiedMsOf(index: number): number {
    return this.changes.get(index)?.modifiedMs ?? this.baseModified[index]!;
  }

  private statusOf(index: number): string {
    return this.changes.get(index)?.status ?? STATUSES[this.baseStatus[index]!]![0];
  }

  private createdMsOf(index: number): number {
    return this.secondOf(this.fromMs + ((index + seededRandom(this.seed * 999_983 + index * 104_729)()) * this.spanMs) / this.orderCount);
  }

  /** WordPress keeps dates to the second. */
  private secondOf(ms: number): number {
    return Math.floor(ms / 1000) * 1000;
  }

  // -------------------------------------------------------------------------------------------
  // Test helpers

  updateOrder(id: number | string, changes: { status?: string; at?: Date } = {}): void {
    const index = this.indexOfOrder(id);
    const change = this.changes.get(index) ?? { modifiedMs: 0, refunds: [] };
    change.modifiedMs = this.secondOf((changes.at ?? new Date(this.now())).getTime());
    if (changes.status) change.status = changes.status;
    this.changes.set(index, change);
  }

  /** A refund of `amountMinor` (merchandise, on the first line unless `amountOnly`); returns its id. */
  addRefund(orderId: number | string, options: { amountMinor: number; at?: Date; reason?: string; amountOnly?: boolean }): string {
    const atMs = this.secondOf((options.at ?? new Date(this.now())).getTime());
    const refund: FakeRefund = { id: this.nextRefundId++, createdMs: atMs, amountMinor: options.amountMinor, lineMinor: options.amountOnly ? null : options.amountMinor, reason: options.reason ?? '' };
    this.updateOrder(orderId, { at: new Date(atMs) });
    this.changes.get(this.indexOfOrder(orderId))!.refunds.push(refund);
    return String(refund.id);
  }

  /** The merchant deletes the API key. */
  revokeKey(): void {
    this.keyRevoked = true;
  }

  /** Orders modified in [since, until): what a window must return. */
  ordersModifiedBetween(since: Date, until: Date): number {
    let count = 0;
    for (let index = 0; index < this.orderCount; index++) {
      const ms = this.modifiedMsOf(index);
      if (ms >= since.getTime() && ms < until.getTime()) count++;
    }
    return count;
  }

  /** Orders created per [start, end) with a counting status (what sourceTotals should say). */
  expectedDayCounts(days: { day: string; start: Date; end: Date }[], statuses: readonly string[]): { day: string; orders: number }[] {
    return days.map((day) => {
      let orders = 0;
      for (let index = 0; index < this.orderCount; index++) {
        const ms = this.createdMsOf(index);
        if (ms >= day.start.getTime() && ms < day.end.getTime() && statuses.includes(this.statusOf(index))) orders++;
      }
      return { day: day.day, orders };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Wire format

  /** The order as GET /orders/{id} (and webhooks) return it. */
  restOrder(index: number): Record<string, unknown> {
    const order = this.order(index);
    const subtotal = order.lines.reduce((sum, line) => sum + line.unitMinor * line.quantity, 0);
    const discount = order.lines.reduce((sum, line) => sum + line.discountMinor, 0);
    const local = (ms: number) => gmt(ms + this.offsetMs);
    const paid = ['processing', 'completed', 'refunded'].includes(order.status);
    return {
      id: order.id,
      parent_id: 0,
      number: String(order.id),
      order_key: `wc_order_${order.id.toString(16)}`,
      created_via: 'checkout',
      status: order.status,
      currency: this.currency,
      date_created: local(order.createdMs),
      date_created_gmt: gmt(order.createdMs),
      date_modified: local(order.modifiedMs),
      date_modified_gmt: gmt(order.modifiedMs),
      date_paid_gmt: paid ? gmt(order.createdMs + 5000) : null,
      date_completed_gmt: order.status === 'completed' ? gmt(order.createdMs + 86_400_000) : null,
      discount_total: decimal(discount),
      discount_tax: '0.00',
      shipping_total: decimal(order.shippingMinor),
      shipping_tax: '0.00',
      cart_tax: decimal(order.taxMinor),
      total: decimal(subtotal - discount + order.shippingMinor + order.taxMinor),
      total_tax: decimal(order.taxMinor),
      prices_include_tax: false,
      customer_id: order.customerId,
      billing: { first_name: 'Fake', last_name: `Buyer ${index}`, email: order.email, country: 'DE' },
      payment_method: 'stripe',
      meta_data: Object.entries(order.attribution ?? {}).map(([key, value], position) => ({ id: order.id * 100 + position, key: `_wc_order_attribution_${key}`, value })),
      line_items: order.lines.map((line) => ({
        id: line.id,
        name: line.name,
        product_id: line.productId,
        variation_id: 0,
        quantity: line.quantity,
        tax_class: '',
        subtotal: decimal(line.unitMinor * line.quantity),
        subtotal_tax: '0.00',
        total: decimal(line.unitMinor * line.quantity - line.discountMinor),
        total_tax: '0.00',
        taxes: [],
        meta_data: [],
        sku: line.sku,
        price: (line.unitMinor * line.quantity - line.discountMinor) / line.quantity / 100,
      })),
      shipping_lines: order.shippingMinor ? [{ id: order.id * 10 + 9, method_title: 'Flat Rate', method_id: 'flat_rate', total: decimal(order.shippingMinor), total_tax: '0.00', taxes: [] }] : [],
      fee_lines: [],
      coupon_lines: [],
      refunds: order.refunds.map((refund) => ({ id: refund.id, reason: refund.reason, total: decimal(-refund.amountMinor) })),
    };
  }

  private restRefund(order: FakeOrder, refund: FakeRefund): Record<string, unknown> {
    const line = order.lines[0]!;
    return {
      id: refund.id,
      date_created: gmt(refund.createdMs + this.offsetMs),
      date_created_gmt: gmt(refund.createdMs),
      amount: decimal(refund.amountMinor),
      reason: refund.reason,
      refunded_by: 1,
      refunded_payment: true,
      line_items:
        refund.lineMinor === null
          ? []
          : [{ id: refund.id * 10, name: line.name, product_id: line.productId, quantity: -1, subtotal: decimal(-refund.lineMinor), total: decimal(-refund.lineMinor), sku: line.sku }],
    };
  }

  private authorized(request: FakeRequest): boolean {
    if (this.keyRevoked) return false;
    const header = request.headers.authorization;
    if (typeof header === 'string' && header.startsWith('Basic ')) {
      return Buffer.from(header.slice(6), 'base64').toString('utf8') === `${this.consumerKey}:${this.consumerSecret}`;
    }
    return request.query.get('consumer_key') === this.consumerKey && request.query.get('consumer_secret') === this.consumerSecret;
  }

  private guarded(request: FakeRequest, answer: () => FakeResponse): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'rate_limit') return { status: 429, headers: { 'retry-after': '3' }, body: { code: 'too_many_requests', message: 'Too many requests.', data: { status: 429 } } };
    if (fault === 'server_error') return { status: 503, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>503 Service Unavailable</h1></body></html>' };
    if (fault === 'malformed') return { status: 200, headers: { 'content-type': 'text/html' }, body: '<!DOCTYPE html><html><body>Briefly unavailable for scheduled maintenance.</body></html>' };
    if (fault === 'expired_token' || fault === 'revoked' || !this.authorized(request)) {
      return { status: 401, body: { code: 'woocommerce_rest_authentication_error', message: 'Consumer key is invalid.', data: { status: 401 } } };
    }
    return answer();
  }

  private paged(request: FakeRequest, total: number, rows: unknown[], perPage: number, page: number): FakeResponse {
    const totalPages = Math.max(1, Math.ceil(total / perPage));
    const links: string[] = [];
    const link = (target: number, rel: string) => {
      const url = new URL(`${this.url}${request.path}`);
      for (const [key, value] of request.query) if (key !== 'consumer_secret') url.searchParams.set(key, value);
      url.searchParams.set('page', String(target));
      url.searchParams.delete('offset');
      links.push(`<${url.toString()}>; rel="${rel}"`);
    };
    if (page > 1) link(page - 1, 'prev');
    if (page < totalPages) link(page + 1, 'next');
    return { headers: { 'x-wp-total': String(total), 'x-wp-totalpages': String(totalPages), ...(links.length ? { link: links.join(', ') } : {}) }, body: rows };
  }

  private pageParams(request: FakeRequest): { perPage: number; start: number; page: number } | FakeResponse {
    const perPage = Number(request.query.get('per_page') ?? 10);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
      return { status: 400, body: { code: 'rest_invalid_param', message: 'Invalid parameter(s): per_page', data: { status: 400, params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' } } } };
    }
    const page = Number(request.query.get('page') ?? 1);
    const offset = request.query.get('offset');
    return { perPage, page, start: offset !== null ? Number(offset) : (page - 1) * perPage };
  }

  private listOrders(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    const query = request.query;
    const modifiedAfter = parseGmt(query.get('modified_after'));
    const modifiedBefore = parseGmt(query.get('modified_before'));
    const after = parseGmt(query.get('after'));
    const before = parseGmt(query.get('before'));
    const statusParam = query.get('status') ?? 'any';
    const statuses = statusParam === 'any' ? null : statusParam.split(',');
    const matching: number[] = [];
    for (let index = 0; index < this.orderCount; index++) {
      const modified = this.modifiedMsOf(index);
      if (modifiedAfter !== null && !(modified > modifiedAfter)) continue;
      if (modifiedBefore !== null && !(modified < modifiedBefore)) continue;
      if (after !== null || before !== null) {
        const created = this.createdMsOf(index);
        // Like WordPress's date_query, both bounds are exclusive.
        if ((after !== null && !(created > after)) || (before !== null && !(created < before))) continue;
      }
      if (statuses && !statuses.includes(this.statusOf(index))) continue;
      matching.push(index);
    }
    if (query.get('order') !== 'asc') matching.reverse();
    const rows = matching.slice(params.start, params.start + params.perPage).map((index) => this.restOrder(index));
    return this.paged(request, matching.length, rows, params.perPage, params.page);
  }

  private getOrder(id: string): FakeResponse {
    try {
      return { body: this.restOrder(this.indexOfOrder(id)) };
    } catch {
      return { status: 404, body: { code: 'woocommerce_rest_shop_order_invalid_id', message: 'Invalid ID.', data: { status: 404 } } };
    }
  }

  private listRefunds(id: string): FakeResponse {
    const order = this.order(this.indexOfOrder(id));
    const refunds = order.refunds.map((refund) => this.restRefund(order, refund)).reverse();
    return { headers: { 'x-wp-total': String(refunds.length), 'x-wp-totalpages': '1' }, body: refunds };
  }

  /** Products were all last modified at `from`. */
  private listProducts(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    const modifiedAfter = parseGmt(request.query.get('modified_after'));
    const modifiedBefore = parseGmt(request.query.get('modified_before'));
    const inWindow = (modifiedAfter === null || this.fromMs > modifiedAfter) && (modifiedBefore === null || this.fromMs < modifiedBefore);
    const total = inWindow ? this.productCount : 0;
    const rows = [];
    for (let product = params.start; product < Math.min(total, params.start + params.perPage); product++) {
      rows.push({
        id: PRODUCT_ID_BASE + product,
        name: `Woo Product ${product}`,
        status: product % 11 === 10 ? 'draft' : 'publish',
        sku: product % 5 === 0 ? '' : `WOO-${product}`,
        price: decimal(this.productPriceMinor(product)),
        regular_price: decimal(this.productPriceMinor(product)),
        date_modified_gmt: gmt(this.fromMs),
        images: [{ id: product, src: `https://store.example/wp-content/uploads/product-${product}.jpg` }],
      });
    }
    return this.paged(request, total, rows, params.perPage, params.page);
  }

  // -------------------------------------------------------------------------------------------
  // Webhooks

  /** A delivery as WooCommerce would send it; `secret` other than the webhook's forges it. */
  webhookDelivery(topic: 'order.created' | 'order.updated', orderId: number | string, options: { secret?: string; deliveryId?: string } = {}): { headers: Record<string, string>; body: string } {
    const body = JSON.stringify(this.restOrder(this.indexOfOrder(orderId)));
    const [resource, event] = topic.split('.') as [string, string];
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'WooCommerce/9.9.0 Hookshot (WordPress/6.8.0)',
        'x-wc-webhook-source': 'https://store.example/',
        'x-wc-webhook-topic': topic,
        'x-wc-webhook-resource': resource,
        'x-wc-webhook-event': event,
        'x-wc-webhook-signature': createHmac('sha256', options.secret ?? this.webhookSecret).update(body).digest('base64'),
        'x-wc-webhook-id': '12',
        'x-wc-webhook-delivery-id': options.deliveryId ?? String(randomBytes(4).readUInt32BE()),
      },
    };
  }

  async deliverWebhook(url: string, topic: 'order.created' | 'order.updated', orderId: number | string, options: { secret?: string; deliveryId?: string } = {}): Promise<{ status: number; deliveryId: string }> {
    const delivery = this.webhookDelivery(topic, orderId, options);
    return { status: await this.post(url, delivery), deliveryId: delivery.headers['x-wc-webhook-delivery-id']! };
  }

  /** The unsigned ping sent when a webhook is created. */
  async deliverPing(url: string): Promise<number> {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'webhook_id=12' });
    await response.text();
    return response.status;
  }
}

export async function startWooCommerceFake(options: WooCommerceFakeOptions = {}): Promise<WooCommerceFake> {
  return new WooCommerceFake(options).start();
}
