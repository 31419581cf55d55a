import { createHmac, randomBytes } from 'node:crypto';
import { seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';
import { decimal, StoreFake, type StoreFakeLine } from './store-common.ts';

// A Shopify shop on 127.0.0.1 speaking the Admin GraphQL API (orders, products, ordersCount, shop) with
// cursor pagination, the cost-based leaky bucket (THROTTLED with HTTP 200), the OAuth consent page and
// token endpoint (expiring offline tokens + refresh), and signed webhook deliveries. Orders are made
// from (seed, index) on demand: only a few typed arrays (timestamps and flags) are kept per order.

export interface ShopifyFakeOptions {
  seed?: number;
  orders?: number;
  products?: number;
  shop?: string;
  currency?: string;
  /** Orders are placed evenly across [from, to). */
  from?: Date;
  to?: Date;
  appName?: string;
  clientId?: string;
  clientSecret?: string;
  /** A token that works from the start (as if the app were already installed); null for none. */
  accessToken?: string | null;
  /** Lifetime of tokens issued with `expiring: 1`; their refresh tokens rotate on use. */
  tokenLifetimeSeconds?: number;
  codeLifetimeMs?: number;
  /** The realistic cost bucket; off for benchmarks. */
  rateLimit?: boolean;
  maximumAvailable?: number;
  restoreRate?: number;
  now?: () => number;
}

interface Money {
  minor: number;
}

interface FakeLine extends StoreFakeLine {
  title: string;
}

interface FakeRefund {
  id: number;
  createdMs: number;
  /** The refunded line's subtotal (or, without a line, the whole refund). */
  lineSubtotalMinor: number | null;
  totalMinor: number;
  note: string | null;
}

interface FakeVisit {
  landingPage: string;
  referrerUrl: string | null;
  source: string;
  sourceType: string | null;
  utm: { source: string | null; medium: string | null; campaign: string | null };
}

interface FakeOrder {
  index: number;
  id: number;
  name: string;
  createdMs: number;
  processedMs: number;
  updatedMs: number;
  cancelledMs: number | null;
  test: boolean;
  presentmentCurrency: string;
  financialStatus: string;
  customer: { id: number; email: string } | null;
  lines: FakeLine[];
  shipping: Money;
  tax: Money;
  refunds: FakeRefund[];
  visit: FakeVisit | null;
}

interface OrderChanges {
  updatedMs: number;
  cancelledMs?: number | null;
  test?: boolean;
  financialStatus?: string;
  refunds: FakeRefund[];
}

const ORDER_ID_BASE = 5_610_000_000_000;
const PRODUCT_ID_BASE = 800_000;
const CUSTOMER_ID_BASE = 7_000_000;
const DAY_MS = 86_400_000;

const VISITS: (FakeVisit | null)[] = [
  { landingPage: 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&gclid=Cj0KCQfake', referrerUrl: 'https://www.google.com/', source: 'Google', sourceType: 'SEARCH', utm: { source: 'google', medium: 'cpc', campaign: 'brand' } },
  { landingPage: 'https://shop.example/products/tee?utm_source=facebook&utm_medium=paid&fbclid=IwARfake', referrerUrl: 'https://l.facebook.com/', source: 'Facebook', sourceType: 'SOCIAL', utm: { source: 'facebook', medium: 'paid', campaign: 'spring' } },
  { landingPage: 'https://shop.example/', referrerUrl: 'https://www.google.com/', source: 'Google', sourceType: 'SEARCH', utm: { source: null, medium: null, campaign: null } },
  { landingPage: 'https://shop.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome', referrerUrl: null, source: 'Klaviyo', sourceType: 'EMAIL', utm: { source: 'klaviyo', medium: 'email', campaign: 'welcome' } },
  null,
];

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

interface SearchTerm {
  field: string;
  op: '>=' | '>' | '<' | '<=' | '=';
  value: string;
  negated: boolean;
}

/** The slice of Shopify search syntax the connector uses: `field:>='value'`, `test:false`, `-status:cancelled`, `id:123`. */
function parseSearch(query: string | null | undefined): SearchTerm[] {
  const terms: SearchTerm[] = [];
  for (const match of (query ?? '').matchAll(/(-|NOT\s+)?(\w+):(>=|<=|>|<)?('([^']*)'|"([^"]*)"|(\S+))/g)) {
    terms.push({ negated: Boolean(match[1]), field: match[2]!, op: (match[3] as SearchTerm['op']) ?? '=', value: match[5] ?? match[6] ?? match[7] ?? '' });
  }
  return terms;
}

function compare(actual: number, op: SearchTerm['op'], expected: number): boolean {
  if (op === '>=') return actual >= expected;
  if (op === '>') return actual > expected;
  if (op === '<') return actual < expected;
  if (op === '<=') return actual <= expected;
  return actual === expected;
}

function rangeOf(terms: SearchTerm[], field: string): { min: number; max: number } {
  let min = -Infinity;
  let max = Infinity;
  for (const term of terms) {
    if (term.field !== field || term.negated) continue;
    const value = Date.parse(term.value);
    if (term.op === '>=') min = Math.max(min, value);
    if (term.op === '>') min = Math.max(min, value + 1);
    if (term.op === '<') max = Math.min(max, value);
    if (term.op === '<=') max = Math.min(max, value + 1);
  }
  return { min, max };
}

const TEST_FLAG = 1;
const CANCELLED_FLAG = 2;
const VOIDED_FLAG = 4;

/** What searches filter on, kept per order: test, cancelled, payment voided or expired. */
function flagsOf(order: FakeOrder): number {
  const voided = order.financialStatus === 'VOIDED' || order.financialStatus === 'EXPIRED';
  return (order.test ? TEST_FLAG : 0) | (order.cancelledMs !== null ? CANCELLED_FLAG : 0) | (voided ? VOIDED_FLAG : 0);
}

export class ShopifyFake extends StoreFake<FakeOrder, OrderChanges> {
  readonly shop: string;
  readonly currency: string;
  readonly appName: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly orderCount: number;
  readonly productCount: number;
  /** The access token that works from the start (null when the test goes through OAuth). */
  readonly initialToken: string | null;

  private readonly seed: number;
  private readonly fromMs: number;
  private readonly spanMs: number;
  private readonly options: Required<Pick<ShopifyFakeOptions, 'tokenLifetimeSeconds' | 'codeLifetimeMs' | 'rateLimit' | 'maximumAvailable' | 'restoreRate'>>;
  readonly now: () => number;

  private readonly baseUpdated: Float64Array;
  private readonly flags: Uint8Array;
  private sortedByUpdate: Int32Array | null = null;
  private nextRefundId = 3_000_000;

  private readonly tokens = new Map<string, { expiresMs: number | null }>();
  private readonly refreshTokens = new Set<string>();
  private readonly codes = new Map<string, { expiresMs: number; used: boolean }>();
  private bucket: { available: number; atMs: number };

  constructor(options: ShopifyFakeOptions = {}) {
    super();
    this.seed = options.seed ?? 1;
    this.orderCount = options.orders ?? 500;
    this.productCount = options.products ?? 40;
    this.shop = options.shop ?? 'storepulse-demo.myshopify.com';
    this.currency = options.currency ?? 'USD';
    this.appName = options.appName ?? 'StorePulse';
    this.clientId = options.clientId ?? 'fake-shopify-client-id';
    this.clientSecret = options.clientSecret ?? 'fake-shopify-client-secret';
    this.fromMs = (options.from ?? new Date('2025-01-01T00:00:00Z')).getTime();
    this.spanMs = (options.to ?? new Date('2026-01-01T00:00:00Z')).getTime() - this.fromMs;
    this.now = options.now ?? Date.now;
    this.options = {
      tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
      codeLifetimeMs: options.codeLifetimeMs ?? 60_000,
      rateLimit: options.rateLimit ?? true,
      maximumAvailable: options.maximumAvailable ?? 2000,
      restoreRate: options.restoreRate ?? 100,
    };
    this.bucket = { available: this.options.maximumAvailable, atMs: this.now() };
    this.initialToken = options.accessToken === undefined ? 'shpat_fake_initial_token' : options.accessToken;
    if (this.initialToken) this.tokens.set(this.initialToken, { expiresMs: null });

    this.baseUpdated = new Float64Array(this.orderCount);
    this.flags = new Uint8Array(this.orderCount);
    for (let index = 0; index < this.orderCount; index++) {
      const order = this.generate(index);
      this.baseUpdated[index] = order.updatedMs;
      this.flags[index] = flagsOf(order);
    }

    this.route('POST', '/admin/api/:version/graphql.json', (request) => this.graphql(request));
    this.route('GET', '/admin/oauth/authorize', (request) => this.consentPage(request));
    this.route('POST', '/admin/oauth/access_token', (request) => this.tokenEndpoint(request));
  }

  // -------------------------------------------------------------------------------------------
  // The data set

  protected generate(index: number): FakeOrder {
    const random = seededRandom(this.seed * 1_000_003 + index * 7919);
    const createdMs = Math.floor(this.fromMs + ((index + random()) * this.spanMs) / this.orderCount);
    const test = random() < 0.02;
    const cancelled = random() < 0.03;
    const customerRoll = random();
    const customerId = CUSTOMER_ID_BASE + Math.floor(random() * Math.max(1, this.orderCount / 2));
    const lineCount = 1 + Math.floor(random() * 3);
    const discounted = random() < 0.2;
    const lines: FakeLine[] = [];
    for (let position = 0; position < lineCount; position++) {
      const product = Math.floor(random() * this.productCount);
      const quantity = 1 + Math.floor(random() * 3);
      const unitMinor = this.productPriceMinor(product);
      lines.push({
        id: (ORDER_ID_BASE + index) * 10 + position,
        productId: PRODUCT_ID_BASE + product,
        title: `Product ${product}`,
        sku: `SKU-${product}`,
        quantity,
        unitMinor,
        discountMinor: discounted && position === 0 ? Math.round((unitMinor * quantity) / 10) : 0,
      });
    }
    const subtotal = lines.reduce((sum, line) => sum + line.unitMinor * line.quantity - line.discountMinor, 0);
    const shipping = random() < 0.5 ? 500 : 0;
    const refundRoll = random();
    const pending = random() < 0.03;
    const visit = VISITS[Math.floor(random() * VISITS.length)] ?? null;
    const presentment = random() < 0.2 ? (this.currency === 'EUR' ? 'USD' : 'EUR') : this.currency;
    // Nothing happens after the end of the span (`to`, often "now"): a shop has no future edits.
    const endMs = this.fromMs + this.spanMs;
    let updatedMs = Math.min(endMs, createdMs + Math.floor(random() * 6 * 3_600_000));
    const refunds: FakeRefund[] = [];
    let financialStatus = pending ? 'PENDING' : 'PAID';
    const cancelledMs = cancelled ? Math.min(endMs, createdMs + 3_600_000) : null;
    const refundMs = createdMs + 2 * DAY_MS;
    if (cancelledMs) {
      updatedMs = Math.max(updatedMs, cancelledMs);
      financialStatus = 'VOIDED';
    } else if (!pending && refundRoll < 0.08 && refundMs <= endMs) {
      const line = lines[0]!;
      const lineSubtotal = line.unitMinor * line.quantity - line.discountMinor;
      refunds.push({ id: 3_000_000 + index, createdMs: refundMs, lineSubtotalMinor: lineSubtotal, totalMinor: lineSubtotal + Math.round(lineSubtotal / 10), note: null });
      updatedMs = Math.max(updatedMs, refundMs);
      financialStatus = lines.length === 1 ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    }
    return {
      index,
      id: ORDER_ID_BASE + index,
      name: `#${1001 + index}`,
      createdMs,
      processedMs: createdMs - 1000,
      updatedMs,
      cancelledMs,
      test,
      presentmentCurrency: presentment,
      financialStatus,
      customer: customerRoll < 0.1 ? null : { id: customerId, email: `customer${customerId}@example.com` },
      lines,
      shipping: { minor: shipping },
      tax: { minor: Math.round(subtotal / 10) },
      refunds,
      visit,
    };
  }

  private productPriceMinor(product: number): number {
    return 900 + Math.floor(seededRandom(this.seed * 31 + product)() * 90) * 100;
  }

  protected withChange(order: FakeOrder, change: OrderChanges): FakeOrder {
    return {
      ...order,
      updatedMs: change.updatedMs,
      cancelledMs: change.cancelledMs === undefined ? order.cancelledMs : change.cancelledMs,
      test: change.test ?? order.test,
      financialStatus: change.financialStatus ?? order.financialStatus,
      refunds: [...order.refunds, ...change.refunds],
    };
  }

  indexOfOrder(id: number | string): number {
    const index = Number(String(id).replace(/^.*\//, '')) - ORDER_ID_BASE;
    if (!Number.isInteger(index) || index < 0 || index >= this.orderCount) throw new Error(`no fake Shopify order ${id}`);
    return index;
  }

  orderId(index: number): string {
    return String(ORDER_ID_BASE + index);
  }

  private updatedMsOf(index: number): number {
    return this.changes.get(index)?.updatedMs ?? this.baseUpdated[index]!;
  }

  private sorted(): Int32Array {
    if (!this.sortedByUpdate) {
      const indexes = new Int32Array(this.orderCount);
      for (let index = 0; index < this.orderCount; index++) indexes[index] = index;
      indexes.sort((a, b) => this.updatedMsOf(a) - this.updatedMsOf(b) || a - b);
      this.sortedByUpdate = indexes;
    }
    return this.sortedByUpdate;
  }

  /** First position in update order whose (updatedMs, index) is at or after the given key. */
  private lowerBound(updatedMs: number, index = -1): number {
    const sorted = this.sorted();
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const candidate = sorted[middle]!;
      const candidateMs = this.updatedMsOf(candidate);
      if (candidateMs < updatedMs || (candidateMs === updatedMs && candidate <= index)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The `test:`, `status:cancelled`, `financial_status:voided|expired` and `id:` terms of a search. */
  private matchesFlags(index: number, terms: SearchTerm[]): boolean {
    const flags = this.flags[index]!;
    for (const term of terms) {
      let matches: boolean;
      if (term.field === 'test') matches = Boolean(flags & TEST_FLAG) === (term.value === 'true');
      else if (term.field === 'status' && term.value === 'cancelled') matches = Boolean(flags & CANCELLED_FLAG);
      else if (term.field === 'financial_status' && (term.value === 'voided' || term.value === 'expired')) {
        matches = Boolean(flags & VOIDED_FLAG) && this.order(index).financialStatus === term.value.toUpperCase();
      } else if (term.field === 'id') matches = this.orderId(index) === term.value;
      else continue;
      if (matches === term.negated) return false;
    }
    return true;
  }

  private processedMsOf(index: number): number {
    return Math.floor(this.fromMs + ((index + seededRandom(this.seed * 1_000_003 + index * 7919)()) * this.spanMs) / this.orderCount) - 1000;
  }

  /** Orders matching a search, counted without building them. */
  countMatching(search: string): number {
    const terms = parseSearch(search);
    const processed = rangeOf(terms, 'processed_at');
    const updated = rangeOf(terms, 'updated_at');
    let count = 0;
    if (processed.min > -Infinity || processed.max < Infinity) {
      // processedAt grows with the index: find the slice by bisection.
      const first = this.firstIndexProcessedAtOrAfter(processed.min);
      for (let index = first; index < this.orderCount && this.processedMsOf(index) < processed.max; index++) {
        const ms = this.updatedMsOf(index);
        if (ms >= updated.min && ms < updated.max && this.matchesFlags(index, terms)) count++;
      }
      return count;
    }
    const sorted = this.sorted();
    for (let position = this.lowerBound(updated.min); position < sorted.length; position++) {
      const index = sorted[position]!;
      if (this.updatedMsOf(index) >= updated.max) break;
      if (this.matchesFlags(index, terms)) count++;
    }
    return count;
  }

  private firstIndexProcessedAtOrAfter(ms: number): number {
    let low = 0;
    let high = this.orderCount;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.processedMsOf(middle) < ms) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  // -------------------------------------------------------------------------------------------
  // Test helpers

  /** Changes an order as a merchant would; its updatedAt moves to `at` (default now). */
  updateOrder(id: number | string, changes: { cancel?: boolean; test?: boolean; financialStatus?: string; at?: Date } = {}): void {
    const index = this.indexOfOrder(id);
    const atMs = (changes.at ?? new Date(this.now())).getTime();
    const change = this.changes.get(index) ?? { updatedMs: atMs, refunds: [] };
    change.updatedMs = atMs;
    if (changes.cancel !== undefined) change.cancelledMs = changes.cancel ? atMs : null;
    if (changes.test !== undefined) change.test = changes.test;
    if (changes.financialStatus) change.financialStatus = changes.financialStatus;
    this.changes.set(index, change);
    this.flags[index] = flagsOf(this.order(index));
    this.sortedByUpdate = null;
  }

  /** A refund of `amountMinor` of merchandise (default: the first line) at `at`; returns its id. */
  addRefund(orderId: number | string, options: { amountMinor?: number; at?: Date; note?: string } = {}): string {
    const index = this.indexOfOrder(orderId);
    const order = this.order(index);
    const line = order.lines[0]!;
    const amount = options.amountMinor ?? line.unitMinor * line.quantity - line.discountMinor;
    const atMs = (options.at ?? new Date(this.now())).getTime();
    const refund: FakeRefund = { id: this.nextRefundId++, createdMs: atMs, lineSubtotalMinor: amount, totalMinor: amount, note: options.note ?? null };
    this.updateOrder(orderId, { at: options.at ?? new Date(atMs), financialStatus: 'PARTIALLY_REFUNDED' });
    this.changes.get(index)!.refunds.push(refund);
    return String(refund.id);
  }

  /** The app is uninstalled: every token and refresh token stops working. */
  revokeToken(): void {
    this.tokens.clear();
    this.refreshTokens.clear();
  }

  /** Every access token expires now (refresh tokens keep working). */
  expireTokens(): void {
    for (const entry of this.tokens.values()) entry.expiresMs = this.now() - 1;
  }

  /** Orders whose updatedAt is in [since, until): what a window must return. */
  ordersUpdatedBetween(since: Date, until: Date): number {
    return this.countMatching(`updated_at:>='${since.toISOString()}' updated_at:<'${until.toISOString()}'`);
  }

  /** Orders per [start, end) slice by processedAt, without test, cancelled or voided ones (what sourceTotals should say). */
  expectedDayCounts(days: { day: string; start: Date; end: Date }[]): { day: string; orders: number }[] {
    return days.map((day) => ({
      day: day.day,
      orders: this.countMatching(`processed_at:>='${day.start.toISOString()}' processed_at:<'${day.end.toISOString()}' test:false -status:cancelled -financial_status:voided -financial_status:expired`),
    }));
  }

  /** A fresh authorization code and the signed callback query Shopify would send with it. */
  issueAuthorizationCode(state: string): Record<string, string> {
    const code = randomBytes(12).toString('hex');
    this.codes.set(code, { expiresMs: this.now() + this.options.codeLifetimeMs, used: false });
    const query: Record<string, string> = { code, shop: this.shop, state, timestamp: String(Math.floor(this.now() / 1000)) };
    const message = Object.keys(query)
      .sort()
      .map((key) => `${key}=${query[key]}`)
      .join('&');
    return { ...query, hmac: createHmac('sha256', this.clientSecret).update(message).digest('hex') };
  }

  /** Codes issued so far expire (the merchant took too long). */
  expireCodes(): void {
    for (const entry of this.codes.values()) entry.expiresMs = this.now() - 1;
  }

  // -------------------------------------------------------------------------------------------
  // Webhooks

  /** The REST representation Shopify sends in orders/* webhooks. */
  restOrder(index: number): Record<string, unknown> {
    const order = this.order(index);
    const lineItemsMinor = order.lines.reduce((sum, line) => sum + line.unitMinor * line.quantity, 0);
    const discounts = order.lines.reduce((sum, line) => sum + line.discountMinor, 0);
    const shopSet = (minor: number) => ({ shop_money: { amount: decimal(minor), currency_code: this.currency }, presentment_money: { amount: decimal(minor), currency_code: order.presentmentCurrency } });
    return {
      id: order.id,
      admin_graphql_api_id: `gid://shopify/Order/${order.id}`,
      name: order.name,
      order_number: 1001 + index,
      email: order.customer?.email ?? null,
      created_at: iso(order.createdMs),
      updated_at: iso(order.updatedMs),
      processed_at: iso(order.processedMs),
      cancelled_at: order.cancelledMs ? iso(order.cancelledMs) : null,
      test: order.test,
      currency: this.currency,
      presentment_currency: order.presentmentCurrency,
      financial_status: order.financialStatus.toLowerCase(),
      total_line_items_price: decimal(lineItemsMinor),
      subtotal_price: decimal(lineItemsMinor - discounts),
      total_discounts: decimal(discounts),
      total_tax: decimal(order.tax.minor),
      total_price: decimal(lineItemsMinor - discounts + order.tax.minor + order.shipping.minor),
      total_shipping_price_set: shopSet(order.shipping.minor),
      landing_site: order.visit ? new URL(order.visit.landingPage).pathname + new URL(order.visit.landingPage).search : null,
      referring_site: order.visit?.referrerUrl ?? null,
      source_name: 'web',
      customer: order.customer ? { id: order.customer.id, email: order.customer.email } : null,
      line_items: order.lines.map((line) => ({
        id: line.id,
        product_id: line.productId,
        sku: line.sku,
        title: line.title,
        quantity: line.quantity,
        price: decimal(line.unitMinor),
        total_discount: decimal(line.discountMinor),
      })),
      refunds: order.refunds.map((refund) => this.restRefund(order, refund)),
    };
  }

  private restRefund(order: FakeOrder, refund: FakeRefund): Record<string, unknown> {
    return {
      id: refund.id,
      order_id: order.id,
      created_at: iso(refund.createdMs),
      note: refund.note,
      refund_line_items:
        refund.lineSubtotalMinor === null
          ? []
          : [{ line_item_id: order.lines[0]!.id, quantity: 1, subtotal: decimal(refund.lineSubtotalMinor), subtotal_set: { shop_money: { amount: decimal(refund.lineSubtotalMinor), currency_code: this.currency } } }],
      transactions: [{ id: refund.id * 10, kind: 'refund', status: 'success', amount: decimal(refund.totalMinor) }],
    };
  }

  /** A delivery as Shopify would send it: headers (signed with the client secret) and the raw body. */
  webhookDelivery(topic: string, orderId: number | string | null, options: { secret?: string; webhookId?: string } = {}): { headers: Record<string, string>; body: string } {
    let payload: unknown;
    if (topic === 'app/uninstalled') payload = { id: 1, name: 'StorePulse demo', domain: this.shop, myshopify_domain: this.shop };
    else if (topic === 'refunds/create') {
      const order = this.order(this.indexOfOrder(orderId!));
      const refund = order.refunds.at(-1);
      if (!refund) throw new Error(`order ${orderId} has no refund`);
      payload = this.restRefund(order, refund);
    } else payload = this.restOrder(this.indexOfOrder(orderId!));
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': topic,
        'x-shopify-hmac-sha256': createHmac('sha256', options.secret ?? this.clientSecret).update(body).digest('base64'),
        'x-shopify-shop-domain': this.shop,
        'x-shopify-api-version': '2026-01',
        'x-shopify-webhook-id': options.webhookId ?? randomBytes(8).toString('hex'),
        'x-shopify-event-id': randomBytes(8).toString('hex'),
        'x-shopify-triggered-at': new Date(this.now()).toISOString(),
      },
    };
  }

  /** POSTs a delivery to `url` (e.g. the app's webhook route); `secret` other than the client secret forges it. */
  async deliverWebhook(url: string, topic: string, orderId: number | string | null, options: { secret?: string; webhookId?: string } = {}): Promise<{ status: number; webhookId: string }> {
    const delivery = this.webhookDelivery(topic, orderId, options);
    return { status: await this.post(url, delivery), webhookId: delivery.headers['x-shopify-webhook-id']! };
  }

  // -------------------------------------------------------------------------------------------
  // GraphQL

  private authorized(request: FakeRequest): boolean {
    const token = request.headers['x-shopify-access-token'];
    const entry = typeof token === 'string' ? this.tokens.get(token) : undefined;
    return Boolean(entry && (entry.expiresMs === null || entry.expiresMs > this.now()));
  }

  private refill(): void {
    const now = this.now();
    this.bucket.available = Math.min(this.options.maximumAvailable, this.bucket.available + ((now - this.bucket.atMs) / 1000) * this.options.restoreRate);
    this.bucket.atMs = now;
  }

  private cost(requested: number, actual: number | null) {
    return {
      requestedQueryCost: requested,
      actualQueryCost: actual,
      throttleStatus: { maximumAvailable: this.options.maximumAvailable, currentlyAvailable: Math.floor(this.bucket.available), restoreRate: this.options.restoreRate },
    };
  }

  private throttled(requested: number): FakeResponse {
    return {
      body: {
        errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
        extensions: { cost: this.cost(requested, null) },
      },
    };
  }

  private graphql(request: FakeRequest): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'server_error') return { status: 503, body: { errors: 'Service Unavailable' } };
    if (fault === 'expired_token' || fault === 'revoked') {
      return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    }
    if (!this.authorized(request)) return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    const body = request.body as { query?: string; variables?: Record<string, unknown> } | undefined;
    const query = body?.query ?? '';
    const variables = body?.variables ?? {};
    const first = Math.min(250, Number(variables.first ?? 0));
    if (Number(variables.first) > 250) {
      return { body: { errors: [{ message: 'The first argument must be less than or equal to 250', extensions: { code: 'BAD_REQUEST' } }] } };
    }

    let requested: number;
    if (query.startsWith('query Orders')) requested = 2 + Math.ceil(first * 2.5);
    else if (query.startsWith('query DayOrders')) requested = 2 + first;
    else if (query.startsWith('query Products')) requested = 2 + first * 2;
    else if (query.startsWith('query OrderCounts')) requested = 1 + Object.keys(variables).length;
    else requested = 1;

    this.refill();
    if (fault === 'rate_limit') {
      // As if another client of the shop had emptied the bucket: a wait of requested / restoreRate s.
      this.bucket.available = 0;
      return this.throttled(requested);
    }
    if (this.options.rateLimit && requested > this.bucket.available) return this.throttled(requested);
    if (fault === 'malformed') return { body: { data: { unexpected: 'shape' }, extensions: { cost: this.cost(requested, 1) } } };

    let data: unknown;
    let actual = requested;
    if (query.startsWith('query Orders')) {
      const page = this.ordersPage(first, (variables.after as string | null) ?? null, String(variables.q ?? ''));
      actual = 2 + page.nodes.length * 2;
      data = { orders: page };
    } else if (query.startsWith('query DayOrders')) {
      const page = this.dayOrdersPage(first, String(variables.q ?? ''));
      actual = 2 + page.nodes.length;
      data = { orders: page };
    } else if (query.startsWith('query Products')) {
      const page = this.productsPage(first, (variables.after as string | null) ?? null, String(variables.q ?? ''));
      actual = 2 + page.nodes.length;
      data = { products: page };
    } else if (query.startsWith('query OrderCounts')) {
      data = Object.fromEntries([...query.matchAll(/(\w+):ordersCount\(query:\$(\w+)/g)].map(([, alias, variable]) => [alias, { count: this.countMatching(String(variables[variable!] ?? '')), precision: 'EXACT' }]));
    } else if (query.startsWith('query Shop')) {
      data = { shop: { name: 'StorePulse Demo', myshopifyDomain: this.shop, currencyCode: this.currency, ianaTimezone: 'America/New_York' } };
    } else {
      return { body: { errors: [{ message: `fake Shopify does not know this query: ${query.slice(0, 60)}`, extensions: { code: 'BAD_REQUEST' } }] } };
    }
    this.bucket.available -= actual;
    return { body: { data, extensions: { cost: this.cost(requested, actual) } } };
  }

  private ordersPage(first: number, after: string | null, search: string) {
    const terms = parseSearch(search);
    const id = terms.find((term) => term.field === 'id' && !term.negated)?.value;
    if (id !== undefined) {
      // One order by id (as `orders(query: "id:...")` finds it), whatever its dates.
      const index = Number(id) - ORDER_ID_BASE;
      const found = Number.isInteger(index) && index >= 0 && index < this.orderCount && this.matchesFlags(index, terms);
      return { pageInfo: { hasNextPage: false, endCursor: null }, nodes: found && first > 0 ? [this.graphqlOrder(index)] : [] };
    }
    const updated = rangeOf(terms, 'updated_at');
    const sorted = this.sorted();
    let position = this.lowerBound(updated.min);
    if (after) {
      const [afterMs, afterIndex] = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as [number, number];
      position = Math.max(position, this.lowerBound(afterMs, afterIndex));
    }
    const nodes: unknown[] = [];
    let lastKey: [number, number] | null = null;
    let hasNextPage = false;
    for (; position < sorted.length; position++) {
      const index = sorted[position]!;
      if (this.updatedMsOf(index) >= updated.max) break;
      if (!this.matchesFlags(index, terms)) continue;
      if (nodes.length === first) {
        hasNextPage = true;
        break;
      }
      nodes.push(this.graphqlOrder(index));
      lastKey = [this.updatedMsOf(index), index];
    }
    return { pageInfo: { hasNextPage, endCursor: lastKey ? Buffer.from(JSON.stringify(lastKey)).toString('base64url') : null }, nodes };
  }

  /** Orders processed in the search's range (sortKey PROCESSED_AT), with just their id, name and updatedAt. */
  private dayOrdersPage(first: number, search: string) {
    const terms = parseSearch(search);
    const processed = rangeOf(terms, 'processed_at');
    const nodes: { legacyResourceId: string; name: string; updatedAt: string }[] = [];
    let hasNextPage = false;
    for (let index = this.firstIndexProcessedAtOrAfter(processed.min); index < this.orderCount && this.processedMsOf(index) < processed.max; index++) {
      if (!this.matchesFlags(index, terms)) continue;
      if (nodes.length === first) {
        hasNextPage = true;
        break;
      }
      nodes.push({ legacyResourceId: this.orderId(index), name: `#${1001 + index}`, updatedAt: iso(this.updatedMsOf(index)) });
    }
    return { pageInfo: { hasNextPage, endCursor: null }, nodes };
  }

  /** The GraphQL `Order` node of platform-apis.md 1.3. */
  graphqlOrder(index: number): Record<string, unknown> {
    const order = this.order(index);
    const money = (minor: number) => ({ shopMoney: { amount: decimal(minor), currencyCode: this.currency }, presentmentMoney: { amount: decimal(minor), currencyCode: order.presentmentCurrency } });
    const lineItemsMinor = order.lines.reduce((sum, line) => sum + line.unitMinor * line.quantity, 0);
    const discounts = order.lines.reduce((sum, line) => sum + line.discountMinor, 0);
    const refundedLines = order.refunds.reduce((sum, refund) => sum + (refund.lineSubtotalMinor ?? 0), 0);
    const refundedTotal = order.refunds.reduce((sum, refund) => sum + refund.totalMinor, 0);
    const visit = order.visit && {
      occurredAt: iso(order.createdMs - 600_000),
      landingPage: order.visit.landingPage,
      referrerUrl: order.visit.referrerUrl,
      source: order.visit.source,
      sourceType: order.visit.sourceType,
      utmParameters: { ...order.visit.utm, content: null, term: null },
    };
    return {
      id: `gid://shopify/Order/${order.id}`,
      legacyResourceId: String(order.id),
      name: order.name,
      createdAt: iso(order.createdMs),
      updatedAt: iso(order.updatedMs),
      processedAt: iso(order.processedMs),
      cancelledAt: order.cancelledMs ? iso(order.cancelledMs) : null,
      test: order.test,
      currencyCode: this.currency,
      presentmentCurrencyCode: order.presentmentCurrency,
      sourceName: 'web',
      displayFinancialStatus: order.financialStatus,
      email: order.customer?.email ?? null,
      customer: order.customer ? { id: `gid://shopify/Customer/${order.customer.id}`, defaultEmailAddress: { emailAddress: order.customer.email } } : null,
      subtotalPriceSet: money(lineItemsMinor - discounts),
      currentSubtotalPriceSet: money(lineItemsMinor - discounts - refundedLines),
      totalDiscountsSet: money(discounts),
      totalShippingPriceSet: money(order.shipping.minor),
      totalTaxSet: money(order.tax.minor),
      totalRefundedSet: money(refundedTotal),
      customerJourneySummary: visit ? { ready: true, firstVisit: visit, lastVisit: null } : null,
      lineItems: {
        pageInfo: { hasNextPage: false },
        nodes: order.lines.map((line) => ({
          id: `gid://shopify/LineItem/${line.id}`,
          title: line.title,
          sku: line.sku,
          quantity: line.quantity,
          currentQuantity: line.quantity,
          product: { id: `gid://shopify/Product/${line.productId}` },
          variant: { id: `gid://shopify/ProductVariant/${line.productId * 10}` },
          originalUnitPriceSet: money(line.unitMinor),
          discountedTotalSet: money(line.unitMinor * line.quantity - line.discountMinor),
        })),
      },
      refunds: order.refunds.map((refund) => ({
        id: `gid://shopify/Refund/${refund.id}`,
        createdAt: iso(refund.createdMs),
        note: refund.note,
        totalRefundedSet: money(refund.totalMinor),
        refundLineItems: { nodes: refund.lineSubtotalMinor === null ? [] : [{ subtotalSet: money(refund.lineSubtotalMinor) }] },
      })),
    };
  }

  /** Products all last changed at `from` (so a window from before it returns the whole catalogue). */
  private productsPage(first: number, after: string | null, search: string) {
    const updated = rangeOf(parseSearch(search), 'updated_at');
    const inWindow = this.fromMs >= updated.min && this.fromMs < updated.max;
    const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) + 1 : 0;
    const end = inWindow ? Math.min(this.productCount, start + first) : start;
    const nodes = [];
    for (let product = start; product < end; product++) {
      nodes.push({
        id: `gid://shopify/Product/${PRODUCT_ID_BASE + product}`,
        legacyResourceId: String(PRODUCT_ID_BASE + product),
        title: `Product ${product}`,
        status: product % 17 === 16 ? 'ARCHIVED' : 'ACTIVE',
        updatedAt: iso(this.fromMs),
        featuredImage: { url: `https://cdn.shopify.example/products/${product}.jpg` },
        variants: {
          nodes: [
            {
              id: `gid://shopify/ProductVariant/${(PRODUCT_ID_BASE + product) * 10}`,
              sku: `SKU-${product}`,
              price: decimal(this.productPriceMinor(product)),
              inventoryItem: { unitCost: { amount: decimal(Math.round(this.productPriceMinor(product) * 0.4)), currencyCode: this.currency } },
            },
          ],
        },
      });
    }
    const hasNextPage = inWindow && end < this.productCount;
    return { pageInfo: { hasNextPage, endCursor: nodes.length ? Buffer.from(String(end - 1)).toString('base64url') : null }, nodes };
  }

  // -------------------------------------------------------------------------------------------
  // OAuth

  private consentPage(request: FakeRequest): FakeResponse {
    const html = (status: number, content: string): FakeResponse => ({ status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<!doctype html><html><head><title>Install ${this.appName}</title></head><body>${content}</body></html>` });
    const redirectUri = request.query.get('redirect_uri');
    if (request.query.get('client_id') !== this.clientId || !redirectUri) return html(400, '<h1>Oauth error invalid_request: The client_id or redirect_uri is missing or wrong</h1>');
    const state = request.query.get('state') ?? '';
    const scopes = (request.query.get('scope') ?? '').split(',').filter(Boolean);
    const target = new URL(redirectUri);
    for (const [key, value] of Object.entries(this.issueAuthorizationCode(state))) target.searchParams.set(key, value);
    const escape = (text: string) => text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);
    return html(
      200,
      `<h1>Install ${escape(this.appName)}</h1><p>${escape(this.appName)} wants to access ${escape(this.shop)}:</p><ul>${scopes.map((scope) => `<li>${escape(scope)}</li>`).join('')}</ul>` +
        `<a id="allow" role="button" href="${escape(target.toString())}">Allow</a>`,
    );
  }

  private issueTokens(expiring: boolean): Record<string, unknown> {
    const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
    if (!expiring) {
      this.tokens.set(accessToken, { expiresMs: null });
      return { access_token: accessToken, scope: 'read_orders,read_all_orders,read_products,read_customers,read_inventory' };
    }
    const refreshToken = `shprt_${randomBytes(16).toString('hex')}`;
    this.tokens.set(accessToken, { expiresMs: this.now() + this.options.tokenLifetimeSeconds * 1000 });
    this.refreshTokens.add(refreshToken);
    return {
      access_token: accessToken,
      scope: 'read_orders,read_all_orders,read_products,read_customers,read_inventory',
      expires_in: this.options.tokenLifetimeSeconds,
      refresh_token: refreshToken,
      refresh_token_expires_in: 90 * 86_400,
    };
  }

  private tokenEndpoint(request: FakeRequest): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'server_error') return { status: 503, body: { errors: 'Service Unavailable' } };
    const form = typeof request.body === 'object' && request.body ? (request.body as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(request.rawBody));
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
    }
    if (form.grant_type === 'refresh_token') {
      const token = String(form.refresh_token ?? '');
      if (!this.refreshTokens.has(token)) return { status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token is invalid or was revoked' } };
      this.refreshTokens.delete(token);
      return { body: this.issueTokens(true) };
    }
    const code = String(form.code ?? '');
    const entry = this.codes.get(code);
    if (!entry || entry.used || entry.expiresMs <= this.now()) {
      return { status: 400, body: { error: 'invalid_request', error_description: 'The authorization code was not found, has expired or was already used' } };
    }
    entry.used = true;
    return { body: this.issueTokens(String(form.expiring) === '1') };
  }
}

export async function startShopifyFake(options: ShopifyFakeOptions = {}): Promise<ShopifyFake> {
  return new ShopifyFake(options).start();
}
