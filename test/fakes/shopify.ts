import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kind, parse, type DocumentNode, type FieldNode } from 'graphql';
import { requestedQueryCost } from '../../src/server/connectors/shopify/cost.ts';
import { dayInZone } from '../../src/server/modules/commerce/days.ts';
import { seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';
import { decimal, StoreFake, type StoreFakeLine } from './store-common.ts';

// A Shopify shop on 127.0.0.1 speaking the Admin GraphQL API as documented (docs/platform-notes.md,
// "## Shopify"): orders, their lines, refunds, products, ordersCount, shop, ShopifyQL and bulk
// operations, with cursor pagination; the OAuth consent page and token endpoint (expiring offline
// tokens + refresh); signed webhook deliveries. Orders are made from (seed, index) on demand: only a
// few typed arrays (timestamps and flags) are kept per order. Each rule it enforces names its source:
//
// - Requested cost and the single-query ceiling: a query whose requested cost (computed from
//   Shopify's published rules, src/server/connectors/shopify/cost.ts) is over 1,000 points is refused
//   with MAX_COST_EXCEEDED, whatever the bucket holds.
//   https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits ("Single query limit"); error
//   shape as Shopify sends it (github.com/Shopify/shopify-app-js/issues/577).
// - `first` and `last` at most 250: https://shopify.dev/docs/api/usage/pagination-graphql.
// - The leaky bucket: the requested cost must be available before a query runs, the difference to the
//   actual cost is refunded after; THROTTLED with HTTP 200 otherwise; every answer carries
//   extensions.cost.throttleStatus. https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits
// - taxesIncluded shops (UK/EU VAT) price lines and shipping with tax inside; other shops add it on top.
//   https://shopify.dev/docs/api/admin-graphql/2026-01/objects/Order (taxesIncluded, subtotalPriceSet)
// - Refunds with refunded lines (subtotal, tax), refunded shipping lines and order adjustments;
//   transactions in the presentment currency (REST `amount`).
//   https://shopify.dev/docs/api/admin-graphql/2026-01/objects/Refund,
//   https://shopify.dev/docs/api/admin-rest/2026-01/resources/refund
// - Expiring offline tokens (60 minutes) with rotating refresh tokens.
//   https://shopify.dev/changelog/offline-access-tokens-now-support-expiry-and-refresh
// - Bulk operations: at most five bulk queries at a time per shop from API 2026-01 (one before);
//   CREATED, RUNNING, COMPLETED, FAILED (errorCode), CANCELED, EXPIRED; a JSONL file with __parentId
//   lines served from a URL that expires. https://shopify.dev/docs/api/usage/bulk-operations/queries,
//   https://shopify.dev/docs/api/admin-graphql/2026-01/objects/BulkOperation
// - ACCESS_DENIED on a field the granted scopes do not cover (unitCost without read_inventory,
//   shopifyqlQuery without read_reports), the rest of the data returned.
//   https://shopify.dev/docs/api/usage/access-scopes
// - The shop's time zone (`shop { ianaTimezone }`), not London unless asked.

export interface ShopifyFakeOptions {
  seed?: number;
  orders?: number;
  products?: number;
  shop?: string;
  currency?: string;
  /** The shop's IANA zone (default America/New_York). */
  timezone?: string;
  /** Prices include tax (UK/EU VAT shops). */
  taxesIncluded?: boolean;
  /** Tax rate in basis points (default 2000 with taxesIncluded, else 800). */
  taxRateBp?: number;
  /** Orders are placed evenly across [from, to). */
  from?: Date;
  to?: Date;
  /** When every product last changed (default `from`). */
  productsUpdatedAt?: Date;
  /** Lines of given orders (index -> count), e.g. { 5: 60 } for an order of 60 lines. */
  lineCounts?: Record<number, number>;
  /** The scopes the app was granted (default: the connector's, read_reports included). */
  scopes?: string[];
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
  /** Status polls a bulk operation answers RUNNING before COMPLETED. */
  bulkPollsBeforeComplete?: number;
  /** How long a completed bulk operation's file URL works (Shopify: seven days). */
  bulkUrlLifetimeMs?: number;
  now?: () => number;
}

interface FakeLine extends StoreFakeLine {
  title: string;
}

interface FakeRefund {
  id: number;
  createdMs: number;
  /** Refunded lines: which line, its subtotal as the shop prices (tax included or not) and its tax. */
  lines: { lineIndex: number; quantity: number; subtotalMinor: number; taxMinor: number }[];
  shipping: { subtotalMinor: number; taxMinor: number }[];
  /** Shopify's sign: negative is money returned to the customer. */
  adjustments: { amountMinor: number; taxMinor: number }[];
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
  customer: { id: number; email: string; firstName: string | null; lastName: string | null } | null;
  lines: FakeLine[];
  /** Shipping charged (after shipping discounts), as the shop prices it. */
  shippingMinor: number;
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

interface BulkOperation {
  id: string;
  search: string;
  version: string;
  status: 'CREATED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'EXPIRED';
  polls: number;
  errorCode: string | null;
  completedMs: number | null;
  objectCount: number;
}

const ORDER_ID_BASE = 5_610_000_000_000;
const PRODUCT_ID_BASE = 800_000;
const CUSTOMER_ID_BASE = 7_000_000;
const DAY_MS = 86_400_000;
/** Presentment money of a foreign-currency buyer: shop money × this (basis points). */
const PRESENTMENT_RATE_BP = 9200;
export const SHOPIFY_FAKE_DEFAULT_SCOPES = ['read_orders', 'read_all_orders', 'read_products', 'read_customers', 'read_inventory', 'read_reports'];

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

/** round(amount * numerator / denominator), half up, on whole minor units. */
function share(amount: number, numerator: number, denominator: number): number {
  return Math.floor((amount * numerator * 2 + denominator) / (denominator * 2));
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

type Json = Record<string, unknown>;

/**
 * What a query actually cost: the objects it returned, each connection 2 plus its returned nodes,
 * each object or list element 1 plus what is selected on it, scalars nothing. Written apart from the
 * connector's cost.ts (which computes the requested, worst-case cost from `first` arguments).
 */
function actualCostOf(query: string, data: unknown): number {
  const document = parse(query);
  const selections = (set: FieldNode['selectionSet']) => (set?.selections ?? []).filter((selection): selection is FieldNode => selection.kind === Kind.FIELD);
  const costOf = (set: FieldNode['selectionSet'], value: unknown): number => {
    if (!set || value === null || typeof value !== 'object') return 0;
    let total = 0;
    for (const field of selections(set)) {
      const child = (value as Record<string, unknown>)[field.alias?.value ?? field.name.value];
      if (!field.selectionSet || child === null || child === undefined || field.name.value === 'pageInfo') continue;
      const nodesField = selections(field.selectionSet).find((inner) => inner.name.value === 'nodes' || inner.name.value === 'edges');
      if (nodesField) {
        const nodes = ((child as Record<string, unknown>)[nodesField.alias?.value ?? nodesField.name.value] ?? []) as unknown[];
        const nodeSet = nodesField.name.value === 'edges' ? selections(nodesField.selectionSet).find((inner) => inner.name.value === 'node')?.selectionSet : nodesField.selectionSet;
        total += 2 + nodes.reduce<number>((sum, node) => sum + 1 + costOf(nodeSet, nodesField.name.value === 'edges' ? (node as { node?: unknown }).node : node), 0);
      } else if (Array.isArray(child)) {
        total += child.reduce<number>((sum, element) => sum + 1 + costOf(field.selectionSet, element), 0);
      } else {
        total += 1 + costOf(field.selectionSet, child);
      }
    }
    return total;
  };
  let total = 0;
  for (const definition of document.definitions) if (definition.kind === Kind.OPERATION_DEFINITION) total += costOf(definition.selectionSet, data);
  return total;
}

export class ShopifyFake extends StoreFake<FakeOrder, OrderChanges> {
  readonly shop: string;
  readonly currency: string;
  readonly timezone: string;
  readonly taxesIncluded: boolean;
  readonly taxRateBp: number;
  readonly appName: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly orderCount: number;
  readonly productCount: number;
  /** The access token that works from the start (null when the test goes through OAuth). */
  readonly initialToken: string | null;
  scopes: string[];
  /** Queries refused with MAX_COST_EXCEEDED, with their computed cost. */
  readonly refusedQueries: { query: string; cost: number }[] = [];
  /** Every GraphQL query answered, with its requested cost and the bucket before it. */
  readonly answeredQueries: { name: string; requested: number; availableBefore: number }[] = [];
  readonly bulkOperations: BulkOperation[] = [];
  /** THROTTLED answers served (injected faults included). */
  throttledAnswers = 0;

  private readonly seed: number;
  private readonly fromMs: number;
  private readonly spanMs: number;
  private readonly productsUpdatedMs: number;
  private readonly lineCounts: Record<number, number>;
  private readonly options: Required<Pick<ShopifyFakeOptions, 'tokenLifetimeSeconds' | 'codeLifetimeMs' | 'rateLimit' | 'maximumAvailable' | 'restoreRate' | 'bulkPollsBeforeComplete' | 'bulkUrlLifetimeMs'>>;
  readonly now: () => number;

  private readonly baseUpdated: Float64Array;
  private readonly flags: Uint8Array;
  private sortedByUpdate: Int32Array | null = null;
  private nextRefundId = 3_000_000;
  private nextBulkId = 1;
  private bulkFailure: string | null = null;
  private bulkServer: Server | null = null;
  private bulkUrl = '';

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
    this.timezone = options.timezone ?? 'America/New_York';
    this.taxesIncluded = options.taxesIncluded ?? false;
    this.taxRateBp = options.taxRateBp ?? (this.taxesIncluded ? 2000 : 800);
    this.scopes = options.scopes ?? [...SHOPIFY_FAKE_DEFAULT_SCOPES];
    this.appName = options.appName ?? 'StorePulse';
    this.clientId = options.clientId ?? 'fake-shopify-client-id';
    this.clientSecret = options.clientSecret ?? 'fake-shopify-client-secret';
    this.fromMs = (options.from ?? new Date('2025-01-01T00:00:00Z')).getTime();
    this.spanMs = (options.to ?? new Date('2026-01-01T00:00:00Z')).getTime() - this.fromMs;
    this.productsUpdatedMs = (options.productsUpdatedAt ?? new Date(this.fromMs)).getTime();
    this.lineCounts = options.lineCounts ?? {};
    this.now = options.now ?? Date.now;
    this.options = {
      tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
      codeLifetimeMs: options.codeLifetimeMs ?? 60_000,
      rateLimit: options.rateLimit ?? true,
      maximumAvailable: options.maximumAvailable ?? 2000,
      restoreRate: options.restoreRate ?? 100,
      bulkPollsBeforeComplete: options.bulkPollsBeforeComplete ?? 1,
      bulkUrlLifetimeMs: options.bulkUrlLifetimeMs ?? 7 * DAY_MS,
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

  /** Also starts the bulk files' own server (Shopify serves them from storage, not the shop's API). */
  override async start(port = 0): Promise<this> {
    await super.start(port);
    this.bulkServer = createServer((request, response) => void this.serveBulkFile(request.url ?? '/', response));
    await new Promise<void>((resolve) => this.bulkServer!.listen(0, '127.0.0.1', resolve));
    this.bulkUrl = `http://127.0.0.1:${(this.bulkServer.address() as AddressInfo).port}`;
    return this;
  }

  override async close(): Promise<void> {
    const server = this.bulkServer;
    this.bulkServer = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await super.close();
  }

  // -------------------------------------------------------------------------------------------
  // The data set

  /** The tax inside (taxesIncluded) or on top of a charged amount. */
  taxOf(chargedMinor: number): number {
    return this.taxesIncluded ? share(chargedMinor, this.taxRateBp, 10_000 + this.taxRateBp) : share(chargedMinor, this.taxRateBp, 10_000);
  }

  lineCharged(line: FakeLine): number {
    return line.unitMinor * line.quantity - line.discountMinor;
  }

  protected generate(index: number): FakeOrder {
    const random = seededRandom(this.seed * 1_000_003 + index * 7919);
    const createdMs = Math.floor(this.fromMs + ((index + random()) * this.spanMs) / this.orderCount);
    const test = random() < 0.02;
    const cancelled = random() < 0.03;
    const customerRoll = random();
    const customerId = CUSTOMER_ID_BASE + Math.floor(random() * Math.max(1, this.orderCount / 2));
    const lineCount = this.lineCounts[index] ?? 1 + Math.floor(random() * 3);
    const discounted = random() < 0.2;
    const lines: FakeLine[] = [];
    for (let position = 0; position < lineCount; position++) {
      const product = Math.floor(random() * this.productCount);
      const quantity = 1 + Math.floor(random() * 3);
      const unitMinor = this.productPriceMinor(product);
      lines.push({
        id: (ORDER_ID_BASE + index) * 100 + position,
        productId: PRODUCT_ID_BASE + product,
        title: `Product ${product}`,
        sku: `SKU-${product}`,
        quantity,
        unitMinor,
        discountMinor: discounted && position === 0 ? Math.round((unitMinor * quantity) / 10) : 0,
      });
    }
    const shippingMinor = random() < 0.5 ? 500 : 0;
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
      // The first line refunded whole, with its tax.
      const charged = this.lineCharged(lines[0]!);
      refunds.push({ id: 3_000_000 + index, createdMs: refundMs, lines: [{ lineIndex: 0, quantity: lines[0]!.quantity, subtotalMinor: charged, taxMinor: this.taxOf(charged) }], shipping: [], adjustments: [], note: null });
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
      customer: customerRoll < 0.1 ? null : { id: customerId, email: `customer${customerId}@example.com`, firstName: 'Fake', lastName: `Customer ${customerId}` },
      lines,
      shippingMinor,
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

  /**
   * A refund at `at` (default now); returns its id. `amountMinor`: the refunded line's subtotal as the
   * shop prices it (default: the whole first line), its tax computed at the shop's rate; `lines: 0`
   * refunds no line. `shippingMinor`: shipping refunded (as priced); `adjustmentMinor`: money returned
   * beyond lines and shipping (a goodwill amount), recorded as an order adjustment.
   */
  addRefund(orderId: number | string, options: { amountMinor?: number; lines?: 0 | 1; shippingMinor?: number; adjustmentMinor?: number; at?: Date; note?: string } = {}): string {
    const index = this.indexOfOrder(orderId);
    const order = this.order(index);
    const line = order.lines[0]!;
    const subtotal = options.amountMinor ?? this.lineCharged(line);
    const atMs = (options.at ?? new Date(this.now())).getTime();
    const refund: FakeRefund = {
      id: this.nextRefundId++,
      createdMs: atMs,
      lines: options.lines === 0 ? [] : [{ lineIndex: 0, quantity: 1, subtotalMinor: subtotal, taxMinor: this.taxOf(subtotal) }],
      shipping: options.shippingMinor ? [{ subtotalMinor: options.shippingMinor, taxMinor: this.taxOf(options.shippingMinor) }] : [],
      adjustments: options.adjustmentMinor ? [{ amountMinor: -options.adjustmentMinor, taxMinor: 0 }] : [],
      note: options.note ?? null,
    };
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

  /** The next bulk operation fails with this errorCode (ACCESS_DENIED, INTERNAL_SERVER_ERROR, TIMEOUT). */
  failNextBulkOperation(errorCode: string): void {
    this.bulkFailure = errorCode;
  }

  /** Completed bulk operations' files expire now (the URL stops working, the status says EXPIRED). */
  expireBulkFiles(): void {
    for (const operation of this.bulkOperations) if (operation.completedMs !== null) operation.completedMs = this.now() - this.options.bulkUrlLifetimeMs - 1;
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
  // Money as Shopify shows it

  private presentmentMinor(order: FakeOrder, minor: number): number {
    return order.presentmentCurrency === this.currency ? minor : share(minor, PRESENTMENT_RATE_BP, 10_000);
  }

  private money(order: FakeOrder, minor: number): Json {
    return { shopMoney: { amount: decimal(minor), currencyCode: this.currency }, presentmentMoney: { amount: decimal(this.presentmentMinor(order, minor)), currencyCode: order.presentmentCurrency } };
  }

  private restMoney(order: FakeOrder, minor: number): Json {
    return { shop_money: { amount: decimal(minor), currency_code: this.currency }, presentment_money: { amount: decimal(this.presentmentMinor(order, minor)), currency_code: order.presentmentCurrency } };
  }

  /** An order's totals as Shopify reports them: subtotal after discounts, discounts, tax, shipping. */
  totalsOf(order: FakeOrder): { lineItemsMinor: number; subtotalMinor: number; discountsMinor: number; taxMinor: number; shippingTaxMinor: number } {
    const lineItemsMinor = order.lines.reduce((sum, line) => sum + line.unitMinor * line.quantity, 0);
    const discountsMinor = order.lines.reduce((sum, line) => sum + line.discountMinor, 0);
    const linesTax = order.lines.reduce((sum, line) => sum + this.taxOf(this.lineCharged(line)), 0);
    const shippingTaxMinor = this.taxOf(order.shippingMinor);
    return { lineItemsMinor, subtotalMinor: lineItemsMinor - discountsMinor, discountsMinor, taxMinor: linesTax + shippingTaxMinor, shippingTaxMinor };
  }

  /** A refund's total as the customer received it (tax added for tax-exclusive shops, adjustments returned). */
  refundTotalOf(refund: FakeRefund): number {
    const priced = (subtotal: number, tax: number) => subtotal + (this.taxesIncluded ? 0 : tax);
    return (
      refund.lines.reduce((sum, line) => sum + priced(line.subtotalMinor, line.taxMinor), 0) +
      refund.shipping.reduce((sum, line) => sum + priced(line.subtotalMinor, line.taxMinor), 0) -
      refund.adjustments.reduce((sum, adjustment) => sum + adjustment.amountMinor, 0)
    );
  }

  // -------------------------------------------------------------------------------------------
  // Webhooks

  /** The REST representation Shopify sends in orders/* webhooks (https://shopify.dev/docs/api/admin-rest/2026-01/resources/order). */
  restOrder(index: number): Record<string, unknown> {
    const order = this.order(index);
    const totals = this.totalsOf(order);
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
      taxes_included: this.taxesIncluded,
      financial_status: order.financialStatus.toLowerCase(),
      total_line_items_price: decimal(totals.lineItemsMinor),
      total_line_items_price_set: this.restMoney(order, totals.lineItemsMinor),
      subtotal_price: decimal(totals.subtotalMinor),
      subtotal_price_set: this.restMoney(order, totals.subtotalMinor),
      total_discounts: decimal(totals.discountsMinor),
      total_discounts_set: this.restMoney(order, totals.discountsMinor),
      total_tax: decimal(totals.taxMinor),
      total_tax_set: this.restMoney(order, totals.taxMinor),
      total_price: decimal(totals.subtotalMinor + order.shippingMinor + (this.taxesIncluded ? 0 : totals.taxMinor)),
      total_shipping_price_set: this.restMoney(order, order.shippingMinor),
      shipping_lines: order.shippingMinor
        ? [{ id: order.id * 10, title: 'Standard', price: decimal(order.shippingMinor), price_set: this.restMoney(order, order.shippingMinor), discounted_price_set: this.restMoney(order, order.shippingMinor), tax_lines: totals.shippingTaxMinor ? [{ title: 'Tax', price_set: this.restMoney(order, totals.shippingTaxMinor) }] : [] }]
        : [],
      landing_site: order.visit ? new URL(order.visit.landingPage).pathname + new URL(order.visit.landingPage).search : null,
      referring_site: order.visit?.referrerUrl ?? null,
      source_name: 'web',
      customer: order.customer ? { id: order.customer.id, email: order.customer.email, first_name: order.customer.firstName, last_name: order.customer.lastName } : null,
      line_items: order.lines.map((line) => ({
        id: line.id,
        product_id: line.productId,
        sku: line.sku,
        title: line.title,
        quantity: line.quantity,
        price: decimal(line.unitMinor),
        price_set: this.restMoney(order, line.unitMinor),
        total_discount: decimal(line.discountMinor),
        total_discount_set: this.restMoney(order, line.discountMinor),
        tax_lines: [{ title: 'Tax', price_set: this.restMoney(order, this.taxOf(this.lineCharged(line))) }],
      })),
      refunds: order.refunds.map((refund) => this.restRefund(order, refund)),
    };
  }

  /** https://shopify.dev/docs/api/admin-rest/2026-01/resources/refund: parts in *_set money; transactions in the presentment currency. */
  private restRefund(order: FakeOrder, refund: FakeRefund): Record<string, unknown> {
    return {
      id: refund.id,
      order_id: order.id,
      created_at: iso(refund.createdMs),
      processed_at: iso(refund.createdMs),
      note: refund.note,
      refund_line_items: refund.lines.map((line, position) => ({
        id: refund.id * 100 + position,
        line_item_id: order.lines[line.lineIndex]!.id,
        quantity: line.quantity,
        subtotal: Number(decimal(line.subtotalMinor)),
        subtotal_set: this.restMoney(order, line.subtotalMinor),
        total_tax: Number(decimal(line.taxMinor)),
        total_tax_set: this.restMoney(order, line.taxMinor),
      })),
      refund_shipping_lines: refund.shipping.map((line, position) => ({ id: refund.id * 100 + 50 + position, subtotal_amount_set: this.restMoney(order, line.subtotalMinor), tax_amount_set: this.restMoney(order, line.taxMinor) })),
      order_adjustments: refund.adjustments.map((adjustment, position) => ({
        id: refund.id * 100 + 80 + position,
        order_id: order.id,
        refund_id: refund.id,
        amount_set: this.restMoney(order, adjustment.amountMinor),
        tax_amount_set: this.restMoney(order, adjustment.taxMinor),
        reason: 'Refund discrepancy',
      })),
      transactions: [{ id: refund.id * 10, kind: 'refund', status: 'success', amount: decimal(this.presentmentMinor(order, this.refundTotalOf(refund))), currency: order.presentmentCurrency }],
    };
  }

  /** The REST product (products/create, products/update: https://shopify.dev/docs/api/admin-rest/2026-01/resources/product). */
  restProduct(product: number, changes: { title?: string; priceMinor?: number } = {}): Record<string, unknown> {
    return {
      id: PRODUCT_ID_BASE + product,
      admin_graphql_api_id: `gid://shopify/Product/${PRODUCT_ID_BASE + product}`,
      title: changes.title ?? `Product ${product}`,
      status: 'active',
      updated_at: iso(this.now()),
      image: { src: `https://cdn.shopify.example/products/${product}.jpg` },
      variants: [{ id: (PRODUCT_ID_BASE + product) * 10, sku: `SKU-${product}`, price: decimal(changes.priceMinor ?? this.productPriceMinor(product)) }],
    };
  }

  /** A delivery as Shopify would send it: headers (signed with the client secret) and the raw body. */
  webhookDelivery(topic: string, orderId: number | string | null, options: { secret?: string; webhookId?: string; payload?: unknown } = {}): { headers: Record<string, string>; body: string } {
    let payload: unknown = options.payload;
    if (payload === undefined) {
      if (topic === 'app/uninstalled') payload = { id: 1, name: 'StorePulse demo', domain: this.shop, myshopify_domain: this.shop };
      else if (topic === 'refunds/create') {
        const order = this.order(this.indexOfOrder(orderId!));
        const refund = order.refunds.at(-1);
        if (!refund) throw new Error(`order ${orderId} has no refund`);
        payload = this.restRefund(order, refund);
      } else payload = this.restOrder(this.indexOfOrder(orderId!));
    }
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
  async deliverWebhook(url: string, topic: string, orderId: number | string | null, options: { secret?: string; webhookId?: string; payload?: unknown } = {}): Promise<{ status: number; webhookId: string }> {
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
    this.throttledAnswers++;
    return {
      body: {
        errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
        extensions: { cost: this.cost(requested, null) },
      },
    };
  }

  /** Any `first`/`last` over 250 (literal or variable): https://shopify.dev/docs/api/usage/pagination-graphql. */
  private pageOver250(document: DocumentNode, variables: Json): string | null {
    let found: string | null = null;
    const visit = (field: FieldNode) => {
      for (const argument of field.arguments ?? []) {
        if (argument.name.value !== 'first' && argument.name.value !== 'last') continue;
        const value = argument.value.kind === Kind.VARIABLE ? Number(variables[argument.value.name.value]) : argument.value.kind === Kind.INT ? Number(argument.value.value) : 0;
        if (value > 250) found = field.name.value;
      }
      for (const selection of field.selectionSet?.selections ?? []) {
        if (selection.kind === Kind.FIELD) visit(selection);
        else if (selection.kind === Kind.INLINE_FRAGMENT) for (const inner of selection.selectionSet.selections) if (inner.kind === Kind.FIELD) visit(inner);
      }
    };
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      for (const selection of definition.selectionSet.selections) if (selection.kind === Kind.FIELD) visit(selection);
    }
    return found;
  }

  private graphql(request: FakeRequest): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'server_error') return { status: 503, body: { errors: 'Service Unavailable' } };
    if (fault === 'expired_token' || fault === 'revoked') {
      return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    }
    if (!this.authorized(request)) return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    const body = request.body as { query?: string; variables?: Json } | undefined;
    const query = body?.query ?? '';
    const variables = body?.variables ?? {};
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (error) {
      return { body: { errors: [{ message: `Parse error: ${(error as Error).message}`, extensions: { code: 'BAD_REQUEST' } }] } };
    }
    const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
    const name = operation && 'name' in operation ? (operation.name?.value ?? '') : '';
    const over = this.pageOver250(document, variables);
    if (over) return { body: { errors: [{ message: `The first argument of ${over} must be less than or equal to 250`, extensions: { code: 'BAD_REQUEST' } }] } };

    const requested = requestedQueryCost(query, variables);
    this.refill();
    if (requested > 1000) {
      this.refusedQueries.push({ query, cost: requested });
      return {
        body: {
          errors: [
            {
              message: `Query cost is ${requested}, which exceeds the single query max cost limit (1000).\n\nSee https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\ncost of a query is calculated.\n\nTo query larger amounts of data with fewer limits, bulk operations should be used instead.\nSee https://shopify.dev/api/usage/bulk-operations/queries for usage details.\n`,
              extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: 1000 },
            },
          ],
          extensions: { cost: this.cost(requested, null) },
        },
      };
    }
    if (fault === 'rate_limit') {
      // As if another client of the shop had emptied the bucket: a wait of requested / restoreRate s.
      this.bucket.available = 0;
      return this.throttled(requested);
    }
    if (this.options.rateLimit && requested > this.bucket.available) return this.throttled(requested);
    this.answeredQueries.push({ name, requested, availableBefore: Math.floor(this.bucket.available) });
    if (fault === 'malformed') return { body: { data: { unexpected: 'shape' }, extensions: { cost: this.cost(requested, 1) } } };

    const answer = this.answerQuery(name, query, variables, request.params.version ?? '2026-01');
    if ('errorsOnly' in answer) return { body: { errors: answer.errorsOnly } };
    // The bucket pays the requested cost before the query runs and gets back what it did not use: the
    // actual cost counts the objects returned, by the same rules
    // (https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits, "actualQueryCost").
    const returned = query.startsWith('mutation') ? requested * answer.fraction : actualCostOf(query, answer.data);
    const actual = Math.max(1, Math.min(requested, Math.ceil(returned)));
    if (this.options.rateLimit) this.bucket.available -= actual;
    return { body: { data: answer.data, ...(answer.errors?.length ? { errors: answer.errors } : {}), extensions: { cost: this.cost(requested, actual) } } };
  }

  private answerQuery(name: string, query: string, variables: Json, version: string): { data: unknown; errors?: Json[]; fraction: number } | { errorsOnly: Json[] } {
    const int = (key: string, fallback = 0) => Number(variables[key] ?? fallback);
    switch (name) {
      case 'Orders': {
        const page = this.ordersPage(int('first'), (variables.after as string | null) ?? null, String(variables.q ?? ''), int('lines', 1), int('refunds', 1));
        return { data: { orders: page }, fraction: Math.max(0.05, page.nodes.length / Math.max(1, int('first'))) };
      }
      case 'OrderLines': {
        const index = this.indexOfGid(String(variables.id));
        if (index === null) return { data: { order: null }, fraction: 0 };
        return { data: { order: { lineItems: this.linesPage(this.order(index), int('first'), (variables.after as string | null) ?? null) } }, fraction: 1 };
      }
      case 'OrderRefundIds': {
        const index = this.indexOfGid(String(variables.id));
        return { data: { order: index === null ? null : { refunds: this.order(index).refunds.map((refund) => ({ id: `gid://shopify/Refund/${refund.id}` })) } }, fraction: 1 };
      }
      case 'Refunds': {
        const data: Json = {};
        for (const [key, value] of Object.entries(variables)) {
          if (!/^id\d+$/.test(key)) continue;
          const found = this.findRefund(String(value));
          data[`r${key.slice(2)}`] = found ? this.refundNode(found.order, found.refund, int('rl', 1), null) : null;
        }
        return { data, fraction: 1 };
      }
      case 'RefundLines': {
        const found = this.findRefund(String(variables.id));
        return { data: { refund: found ? { refundLineItems: this.refundLinesPage(found.order, found.refund, int('first'), (variables.after as string | null) ?? null) } : null }, fraction: 1 };
      }
      case 'DayOrders': {
        const page = this.dayOrdersPage(int('first'), String(variables.q ?? ''));
        return { data: { orders: page }, fraction: Math.max(0.05, page.nodes.length / Math.max(1, int('first'))) };
      }
      case 'Products': {
        const { page, errors } = this.productsPage(int('first'), (variables.after as string | null) ?? null, (variables.q as string | null) ?? null);
        return { data: { products: page }, errors, fraction: Math.max(0.05, page.nodes.length / Math.max(1, int('first'))) };
      }
      case 'OrderCounts': {
        const data = Object.fromEntries([...query.matchAll(/(\w+):ordersCount\(query:\$(\w+)/g)].map(([, alias, variable]) => [alias, { count: this.countMatching(String(variables[variable!] ?? '')), precision: 'EXACT' }]));
        return { data, fraction: 1 };
      }
      case 'Shop':
        return { data: { shop: { name: 'StorePulse Demo', myshopifyDomain: this.shop, currencyCode: this.currency, ianaTimezone: this.timezone } }, fraction: 1 };
      case 'NetSales':
        return this.shopifyql(String(variables.q ?? ''));
      case 'BulkOrders':
        return this.runBulk(String(variables.query ?? ''), version);
      case 'BulkStatus':
        return { data: { bulkOperation: this.bulkStatus(String(variables.id)) }, fraction: 1 };
      default:
        return { errorsOnly: [{ message: `fake Shopify does not know this query: ${query.slice(0, 60)}`, extensions: { code: 'BAD_REQUEST' } }] };
    }
  }

  private indexOfGid(gid: string): number | null {
    const index = Number(gid.replace(/^.*\//, '')) - ORDER_ID_BASE;
    return Number.isInteger(index) && index >= 0 && index < this.orderCount ? index : null;
  }

  private findRefund(gid: string): { order: FakeOrder; refund: FakeRefund } | null {
    const id = Number(gid.replace(/^.*\//, ''));
    const generatedIndex = id - 3_000_000;
    const candidates = new Set<number>(this.changes.keys());
    if (generatedIndex >= 0 && generatedIndex < this.orderCount) candidates.add(generatedIndex);
    for (const index of candidates) {
      const order = this.order(index);
      const refund = order.refunds.find((entry) => entry.id === id);
      if (refund) return { order, refund };
    }
    return null;
  }

  private ordersPage(first: number, after: string | null, search: string, lines: number, refunds: number) {
    const terms = parseSearch(search);
    const id = terms.find((term) => term.field === 'id' && !term.negated)?.value;
    const node = (index: number) => this.graphqlOrder(index, { lines, refunds });
    if (id !== undefined) {
      // One order by id (as `orders(query: "id:...")` finds it), whatever its dates.
      const index = Number(id) - ORDER_ID_BASE;
      const found = Number.isInteger(index) && index >= 0 && index < this.orderCount && this.matchesFlags(index, terms);
      return { pageInfo: { hasNextPage: false, endCursor: null }, nodes: found && first > 0 ? [node(index)] : [] };
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
      nodes.push(node(index));
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

  private lineNode(order: FakeOrder, line: FakeLine): Json {
    return {
      id: `gid://shopify/LineItem/${line.id}`,
      title: line.title,
      sku: line.sku,
      quantity: line.quantity,
      currentQuantity: line.quantity,
      product: { id: `gid://shopify/Product/${line.productId}` },
      variant: { id: `gid://shopify/ProductVariant/${line.productId * 10}` },
      originalUnitPriceSet: this.money(order, line.unitMinor),
      discountedTotalSet: this.money(order, this.lineCharged(line)),
      taxLines: [{ title: 'Tax', rate: this.taxRateBp / 10_000, priceSet: this.money(order, this.taxOf(this.lineCharged(line))) }],
    };
  }

  /** A page of an order's lines; the cursor is the position of the last line handed out. */
  private linesPage(order: FakeOrder, first: number, after: string | null) {
    const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) + 1 : 0;
    const slice = order.lines.slice(start, start + first);
    const end = start + slice.length;
    return {
      pageInfo: { hasNextPage: end < order.lines.length, endCursor: slice.length ? Buffer.from(String(end - 1)).toString('base64url') : null },
      nodes: slice.map((line) => this.lineNode(order, line)),
    };
  }

  private refundLineNode(order: FakeOrder, refund: FakeRefund, position: number): Json {
    const line = refund.lines[position]!;
    return {
      id: `gid://shopify/RefundLineItem/${refund.id * 100 + position}`,
      quantity: line.quantity,
      lineItem: { id: `gid://shopify/LineItem/${order.lines[line.lineIndex]!.id}` },
      subtotalSet: this.money(order, line.subtotalMinor),
      totalTaxSet: this.money(order, line.taxMinor),
    };
  }

  private refundLinesPage(order: FakeOrder, refund: FakeRefund, first: number, after: string | null) {
    const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) + 1 : 0;
    const end = Math.min(refund.lines.length, start + first);
    const nodes = [];
    for (let position = start; position < end; position++) nodes.push(this.refundLineNode(order, refund, position));
    return { pageInfo: { hasNextPage: end < refund.lines.length, endCursor: nodes.length ? Buffer.from(String(end - 1)).toString('base64url') : null }, nodes };
  }

  /** https://shopify.dev/docs/api/admin-graphql/2026-01/objects/Refund */
  private refundNode(order: FakeOrder, refund: FakeRefund, linesFirst: number, after: string | null): Json {
    return {
      id: `gid://shopify/Refund/${refund.id}`,
      createdAt: iso(refund.createdMs),
      note: refund.note,
      totalRefundedSet: this.money(order, this.refundTotalOf(refund)),
      refundLineItems: this.refundLinesPage(order, refund, linesFirst, after),
      refundShippingLines: {
        pageInfo: { hasNextPage: false, endCursor: null },
        nodes: refund.shipping.map((line, position) => ({ id: `gid://shopify/RefundShippingLine/${refund.id * 100 + 50 + position}`, subtotalAmountSet: this.money(order, line.subtotalMinor), taxAmountSet: this.money(order, line.taxMinor) })),
      },
      orderAdjustments: {
        pageInfo: { hasNextPage: false, endCursor: null },
        nodes: refund.adjustments.map((adjustment, position) => ({ id: `gid://shopify/OrderAdjustment/${refund.id * 100 + 80 + position}`, amountSet: this.money(order, adjustment.amountMinor), taxAmountSet: this.money(order, adjustment.taxMinor), reason: 'REFUND_DISCREPANCY' })),
      },
    };
  }

  /** The GraphQL `Order` node (https://shopify.dev/docs/api/admin-graphql/2026-01/objects/Order), with its first `lines` lines and `refunds` refunds. */
  graphqlOrder(index: number, sizes: { lines?: number; refunds?: number } = {}): Record<string, unknown> {
    const order = this.order(index);
    const totals = this.totalsOf(order);
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
      taxesIncluded: this.taxesIncluded,
      sourceName: 'web',
      displayFinancialStatus: order.financialStatus,
      email: order.customer?.email ?? null,
      customer: order.customer
        ? { id: `gid://shopify/Customer/${order.customer.id}`, firstName: order.customer.firstName, lastName: order.customer.lastName, defaultEmailAddress: { emailAddress: order.customer.email } }
        : null,
      subtotalPriceSet: this.money(order, totals.subtotalMinor),
      totalDiscountsSet: this.money(order, totals.discountsMinor),
      totalTaxSet: this.money(order, totals.taxMinor),
      shippingLine: order.shippingMinor ? { discountedPriceSet: this.money(order, order.shippingMinor), taxLines: totals.shippingTaxMinor ? [{ title: 'Tax', priceSet: this.money(order, totals.shippingTaxMinor) }] : [] } : null,
      customerJourneySummary: visit ? { ready: true, firstVisit: visit, lastVisit: null } : null,
      lineItems: this.linesPage(order, sizes.lines ?? 250, null),
      refunds: order.refunds.slice(0, sizes.refunds ?? 250).map((refund) => this.refundNode(order, refund, 250, null)),
    };
  }

  /** Products all last changed at `productsUpdatedAt` (default `from`); unitCost needs read_inventory. */
  private productsPage(first: number, after: string | null, search: string | null): { page: { pageInfo: Json; nodes: Json[] }; errors: Json[] } {
    const updated = rangeOf(parseSearch(search), 'updated_at');
    const inWindow = this.productsUpdatedMs >= updated.min && this.productsUpdatedMs < updated.max;
    const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) + 1 : 0;
    const end = inWindow ? Math.min(this.productCount, start + first) : start;
    const costs = this.scopes.includes('read_inventory');
    const nodes: Json[] = [];
    const errors: Json[] = [];
    for (let product = start; product < end; product++) {
      nodes.push({
        id: `gid://shopify/Product/${PRODUCT_ID_BASE + product}`,
        legacyResourceId: String(PRODUCT_ID_BASE + product),
        title: `Product ${product}`,
        status: product % 17 === 16 ? 'ARCHIVED' : 'ACTIVE',
        updatedAt: iso(this.productsUpdatedMs),
        featuredImage: { url: `https://cdn.shopify.example/products/${product}.jpg` },
        variants: {
          nodes: [
            {
              id: `gid://shopify/ProductVariant/${(PRODUCT_ID_BASE + product) * 10}`,
              sku: `SKU-${product}`,
              price: decimal(this.productPriceMinor(product)),
              inventoryItem: { unitCost: costs ? { amount: decimal(this.unitCostMinor(product)), currencyCode: this.currency } : null },
            },
          ],
        },
      });
      if (!costs) {
        errors.push({
          message: 'Access denied for unitCost field. Required access: `read_inventory` access scope.',
          locations: [{ line: 1, column: 1 }],
          path: ['products', 'nodes', nodes.length - 1, 'variants', 'nodes', 0, 'inventoryItem', 'unitCost'],
          extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes', requiredAccess: '`read_inventory` access scope.' },
        });
      }
    }
    const hasNextPage = inWindow && end < this.productCount;
    return { page: { pageInfo: { hasNextPage, endCursor: nodes.length ? Buffer.from(String(end - 1)).toString('base64url') : null }, nodes }, errors };
  }

  unitCostMinor(product: number): number {
    return Math.round(this.productPriceMinor(product) * 0.4);
  }

  /**
   * ShopifyQL `FROM sales SHOW net_sales GROUP BY day SINCE d UNTIL d`: per shop day, the orders'
   * sales net of tax less discounts (test and cancelled orders left out), less returns on the day of
   * the refund. Needs read_reports (https://shopify.dev/docs/api/admin-graphql/2026-01/queries/shopifyqlQuery).
   */
  private shopifyql(text: string): { data: unknown; errors?: Json[]; fraction: number } {
    if (!this.scopes.includes('read_reports')) {
      return {
        data: { shopifyqlQuery: null },
        errors: [{ message: 'Access denied for shopifyqlQuery field. Required access: `read_reports` access scope.', path: ['shopifyqlQuery'], extensions: { code: 'ACCESS_DENIED' } }],
        fraction: 1,
      };
    }
    const match = /FROM sales SHOW net_sales GROUP BY day SINCE (\d{4}-\d{2}-\d{2}) UNTIL (\d{4}-\d{2}-\d{2})/.exec(text);
    if (!match) return { data: { shopifyqlQuery: { tableData: null, parseErrors: [`fake ShopifyQL does not know: ${text}`] } }, fraction: 1 };
    const [, since, until] = match as unknown as [string, string, string];
    return { data: { shopifyqlQuery: { tableData: { columns: [{ name: 'day', dataType: 'DAY_TIMESTAMP' }, { name: 'net_sales', dataType: 'MONEY' }], rows: this.netSalesRows(since, until) }, parseErrors: [] } }, fraction: 1 };
  }

  /** Net sales per shop day in [since, until] (days as YYYY-MM-DD), as Shopify's analytics count them. */
  netSalesRows(since: string, until: string): { day: string; net_sales: string }[] {
    const byDay = new Map<string, number>();
    const add = (ms: number, minor: number) => {
      const day = dayInZone(new Date(ms), this.timezone);
      if (day >= since && day <= until) byDay.set(day, (byDay.get(day) ?? 0) + minor);
    };
    for (let index = 0; index < this.orderCount; index++) {
      const order = this.order(index);
      if (order.test || order.cancelledMs !== null || order.financialStatus === 'VOIDED' || order.financialStatus === 'EXPIRED') continue;
      const totals = this.totalsOf(order);
      add(order.processedMs, totals.subtotalMinor - (this.taxesIncluded ? totals.taxMinor - totals.shippingTaxMinor : 0));
      for (const refund of order.refunds) add(refund.createdMs, -refund.lines.reduce((sum, line) => sum + line.subtotalMinor - (this.taxesIncluded ? line.taxMinor : 0), 0));
    }
    return [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, minor]) => ({ day, net_sales: decimal(minor) }));
  }

  // -------------------------------------------------------------------------------------------
  // Bulk operations (https://shopify.dev/docs/api/usage/bulk-operations/queries)

  /** Bulk queries running at once per shop: five from API 2026-01, one before. */
  private bulkLimit(version: string): number {
    return version >= '2026-01' ? 5 : 1;
  }

  private runBulk(inner: string, version: string): { data: unknown; fraction: number } {
    const running = this.bulkOperations.filter((operation) => operation.status === 'CREATED' || operation.status === 'RUNNING').length;
    if (running >= this.bulkLimit(version)) {
      return {
        data: { bulkOperationRunQuery: { bulkOperation: null, userErrors: [{ field: null, message: 'A bulk query operation for this app and shop is already in progress.', code: 'OPERATION_IN_PROGRESS' }] } },
        fraction: 1,
      };
    }
    let search = '';
    try {
      const document = parse(inner);
      const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
      const root = operation && 'selectionSet' in operation ? operation.selectionSet.selections.find((selection): selection is FieldNode => selection.kind === Kind.FIELD) : undefined;
      if (root?.name.value !== 'orders') throw new Error('the fake exports orders only');
      const argument = root.arguments?.find((entry) => entry.name.value === 'query');
      search = argument?.value.kind === Kind.STRING ? argument.value.value : '';
    } catch (error) {
      return { data: { bulkOperationRunQuery: { bulkOperation: null, userErrors: [{ field: ['query'], message: `Invalid bulk query: ${(error as Error).message}`, code: 'INVALID' }] } }, fraction: 1 };
    }
    const operation: BulkOperation = { id: `gid://shopify/BulkOperation/${this.nextBulkId++}`, search, version, status: 'CREATED', polls: 0, errorCode: null, completedMs: null, objectCount: 0 };
    if (this.bulkFailure) {
      operation.errorCode = this.bulkFailure;
      this.bulkFailure = null;
    }
    this.bulkOperations.push(operation);
    return { data: { bulkOperationRunQuery: { bulkOperation: { id: operation.id, status: operation.status }, userErrors: [] } }, fraction: 1 };
  }

  private bulkStatus(id: string): Json | null {
    const operation = this.bulkOperations.find((entry) => entry.id === id);
    if (!operation) return null;
    if (operation.status === 'CREATED' || operation.status === 'RUNNING') {
      operation.polls++;
      if (operation.errorCode) operation.status = 'FAILED';
      else if (operation.polls > this.options.bulkPollsBeforeComplete) {
        operation.status = 'COMPLETED';
        operation.completedMs = this.now();
        operation.objectCount = this.countMatching(operation.search);
      } else operation.status = 'RUNNING';
    }
    if (operation.status === 'COMPLETED' && this.now() > operation.completedMs! + this.options.bulkUrlLifetimeMs) operation.status = 'EXPIRED';
    const completed = operation.status === 'COMPLETED';
    return {
      id: operation.id,
      status: operation.status,
      errorCode: operation.status === 'FAILED' ? operation.errorCode : null,
      objectCount: String(operation.objectCount),
      // No file when the export found nothing.
      url: completed && operation.objectCount > 0 ? `${this.bulkUrl}/bulk/${encodeURIComponent(operation.id)}.jsonl` : null,
      partialDataUrl: null,
    };
  }

  /** The JSONL lines of an export: each order's line, then its connections' nodes with __parentId. */
  *bulkLines(search: string): Generator<string> {
    const terms = parseSearch(search);
    const updated = rangeOf(terms, 'updated_at');
    const sorted = this.sorted();
    for (let position = this.lowerBound(updated.min); position < sorted.length; position++) {
      const index = sorted[position]!;
      if (this.updatedMsOf(index) >= updated.max) break;
      if (!this.matchesFlags(index, terms)) continue;
      const node = this.graphqlOrder(index);
      const order = this.order(index);
      const { lineItems, refunds, ...own } = node as { lineItems: { nodes: Json[] }; refunds: Json[] } & Json;
      yield JSON.stringify({
        ...own,
        refunds: refunds.map(({ refundLineItems: _lines, refundShippingLines: _shipping, orderAdjustments: _adjustments, ...refund }) => refund),
      });
      for (const line of lineItems.nodes) yield JSON.stringify({ __typename: 'LineItem', ...line, __parentId: node.id });
      for (const refund of order.refunds) {
        const parent = `gid://shopify/Refund/${refund.id}`;
        const full = this.refundNode(order, refund, 250, null) as { refundLineItems: { nodes: Json[] }; refundShippingLines: { nodes: Json[] }; orderAdjustments: { nodes: Json[] } };
        for (const child of full.refundLineItems.nodes) yield JSON.stringify({ __typename: 'RefundLineItem', ...child, __parentId: parent });
        for (const child of full.refundShippingLines.nodes) yield JSON.stringify({ __typename: 'RefundShippingLine', ...child, __parentId: parent });
        for (const child of full.orderAdjustments.nodes) yield JSON.stringify({ __typename: 'OrderAdjustment', ...child, __parentId: parent });
      }
    }
  }

  /** The file's URL works while the operation is COMPLETED and younger than the URL's lifetime; 403 after. */
  private async serveBulkFile(url: string, response: import('node:http').ServerResponse): Promise<void> {
    const id = decodeURIComponent(/^\/bulk\/(.+)\.jsonl$/.exec(url.split('?')[0]!)?.[1] ?? '');
    const operation = this.bulkOperations.find((entry) => entry.id === id);
    if (!operation || operation.status !== 'COMPLETED' || this.now() > operation.completedMs! + this.options.bulkUrlLifetimeMs) {
      response.writeHead(403, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/jsonl' });
    let chunk = '';
    for (const line of this.bulkLines(operation.search)) {
      chunk += `${line}\n`;
      if (chunk.length < 64 * 1024) continue;
      if (!response.write(chunk)) await new Promise<void>((resolve) => response.once('drain', resolve));
      chunk = '';
      if (response.destroyed) return;
    }
    response.end(chunk);
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
      return { access_token: accessToken, scope: this.scopes.join(',') };
    }
    const refreshToken = `shprt_${randomBytes(16).toString('hex')}`;
    this.tokens.set(accessToken, { expiresMs: this.now() + this.options.tokenLifetimeSeconds * 1000 });
    this.refreshTokens.add(refreshToken);
    return {
      access_token: accessToken,
      scope: this.scopes.join(','),
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
