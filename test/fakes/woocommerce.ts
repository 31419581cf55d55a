import { createHmac } from 'node:crypto';
import { seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';
import { decimal, StoreFake } from './store-common.ts';

// A WooCommerce store on 127.0.0.1 (docs/platform-notes.md "WooCommerce" lists every rule with its
// source). It speaks:
// - REST API v3: /orders (status lists, status=any without trash, modified_after/before and
//   after/before read as site-local times unless dates_are_gmt, orderby, page/per_page <= 100/offset,
//   X-WP-Total, X-WP-TotalPages, Link), /orders/{id} (trashed ones too), /orders/{id}/refunds
//   (paginated), /products (own modification dates), /products/{id}/variations,
//   /settings/general/woocommerce_currency, /data/currencies/current; Basic or query-string keys;
// - WordPress's REST index GET /wp-json/ (timezone_string, or only gmt_offset);
// - WooCommerce Analytics GET /wp-json/wc-analytics/reports/revenue/stats, computed from
//   wc_order_stats rows the way WooCommerce writes and sums them;
// - signed webhook deliveries, with WooCommerce's per-second delivery id.
// Orders are built from (seed, index) on demand; tests add hand-computed orders with createOrder.

// Sources (the rules below name the one they follow):
const DOCS = {
  orders: 'https://woocommerce.github.io/woocommerce-rest-api-docs/#list-all-orders',
  refunds: 'https://developer.woocommerce.com/docs/apis/rest-api/v3/order-refunds/',
  pagination: 'https://developer.wordpress.org/rest-api/using-the-rest-api/pagination/',
  postStatusAny: 'https://developer.wordpress.org/reference/classes/wp_query/#status-parameters',
  restQuery: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/rest-api/Controllers/Version3/class-wc-rest-crud-controller.php',
  index: 'https://github.com/WordPress/wordpress-develop/blob/trunk/src/wp-includes/rest-api/class-wp-rest-server.php (get_index)',
  appPasswords: 'https://github.com/WordPress/wordpress-develop/blob/trunk/src/wp-includes/rest-api.php (rest_application_password_check_errors)',
  settings: 'https://woocommerce.github.io/woocommerce-rest-api-docs/#retrieve-a-setting-option',
  variations: 'https://woocommerce.github.io/woocommerce-rest-api-docs/#list-all-product-variations',
  cogs: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/src/Internal/CostOfGoodsSold/CogsAwareRestControllerTrait.php',
  cartTotals: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/class-wc-cart-totals.php (calculate_item_subtotals)',
  fullyRefunded: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/wc-order-functions.php (wc_order_fully_refunded, wc_create_refund)',
  orderStats: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/src/Admin/API/Reports/Orders/Stats/DataStore.php',
  reportsDataStore: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/src/Admin/API/Reports/DataStore.php',
  revenueStats: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/src/Admin/API/Reports/Revenue/Stats/Controller.php',
  webhook: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/class-wc-webhook.php',
} as const;

export type SiteTimezone = { timezoneString: string } | { gmtOffset: number };
export type AnalyticsDateType = 'date_created' | 'date_paid' | 'date_completed';

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
  /**
   * Settings > General > Timezone: a city (the index's timezone_string) or a bare UTC offset in hours
   * (timezone_string empty, gmt_offset set). Default America/New_York: not London, with DST.
   */
  timezone?: SiteTimezone;
  /** Settings > Tax: prices entered with tax (a UK VAT shop) or without (US sales tax). Default false. */
  pricesIncludeTax?: boolean;
  /** The one tax rate of the shop, in basis points (2000 = 20 %). Default 1900. */
  taxRateBp?: number;
  /** Analytics > Settings > Date type (woocommerce_date_type); WooCommerce's default is date_paid. */
  analyticsDateType?: AnalyticsDateType;
  /** WooCommerce's Cost of Goods Sold feature is on: products carry cost_of_goods_sold. */
  cogs?: boolean;
  now?: () => number;
}

/** An order line as WooCommerce stores it: every amount without tax, the tax beside it ({@link DOCS.cartTotals}). */
export interface FakeLine {
  id: number;
  productId: number;
  variationId: number;
  name: string;
  sku: string;
  quantity: number;
  /** Before discounts, without tax. */
  subtotal: number;
  subtotalTax: number;
  /** After discounts, without tax. */
  total: number;
  totalTax: number;
}

export interface FakeFee {
  id: number;
  name: string;
  /** Without tax; negative for a discount given as a fee. */
  total: number;
  tax: number;
}

export interface FakeShipping {
  id: number;
  total: number;
  tax: number;
}

/** What a refund gives back per item, as positive amounts (WooCommerce stores them negative). */
interface FakeRefund {
  id: number;
  createdMs: number;
  amount: number;
  reason: string;
  lines: { lineId: number; quantity: number; total: number; tax: number }[];
  shipping: { total: number; tax: number } | null;
  fees: { feeId: number; total: number; tax: number }[];
  /** Created by setting the order to Refunded (wc_order_fully_refunded): meta _refund_type = full. */
  full: boolean;
}

interface FakeOrder {
  id: number;
  status: string;
  createdMs: number;
  modifiedMs: number;
  paidMs: number | null;
  completedMs: number | null;
  customerId: number;
  email: string;
  pricesIncludeTax: boolean;
  lines: FakeLine[];
  shipping: FakeShipping | null;
  fees: FakeFee[];
  refunds: FakeRefund[];
  attribution: Record<string, string> | null;
  /** The status before it was trashed (WordPress's _wp_trash_meta_status). */
  trashedFrom: string | null;
}

interface OrderChanges {
  modifiedMs: number;
  status?: string;
  paidMs?: number | null;
  trashedFrom?: string | null;
  refunds: FakeRefund[];
}

interface FakeProduct {
  id: number;
  index: number;
  name: string;
  sku: string;
  status: string;
  modifiedMs: number;
  variations: { id: number; option: string; priceMinor: number; sku: string }[];
}

export interface CreateOrderSpec {
  status?: string;
  createdAt: Date;
  modifiedAt?: Date;
  paidAt?: Date | null;
  customerId?: number;
  pricesIncludeTax?: boolean;
  lines: (Omit<FakeLine, 'id' | 'productId' | 'variationId' | 'sku' | 'name'> & Partial<Pick<FakeLine, 'productId' | 'variationId' | 'sku' | 'name'>>)[];
  shipping?: { total: number; tax: number };
  fees?: { name: string; total: number; tax: number }[];
}

export interface AddRefundSpec {
  at?: Date;
  reason?: string;
  /** Lines refunded by position; their amounts default to the quantity's share of the line. */
  lines?: { line: number; quantity: number; total?: number; tax?: number }[];
  /** The whole shipping (and its tax). */
  shipping?: boolean;
  /** Fees refunded, by position, whole. */
  fees?: number[];
  /**
   * The refund's amount: alone, an amount-only refund without lines; with items, it takes precedence
   * over their sum, as WooCommerce documents ({@link DOCS.refunds}).
   */
  amountMinor?: number;
}

const ORDER_ID_BASE = 1000;
const PRODUCT_ID_BASE = 90;
const VARIATION_ID_BASE = 5000;
const REFUND_ID_BASE = 500_000;
const WEBHOOK_ID = '12';
const DAY_MS = 86_400_000;

/**
 * Statuses WooCommerce registers (wc_get_order_statuses) plus the block checkout's draft; `any` and
 * `trash` are the listing's own values ({@link DOCS.orders}).
 */
const ORDER_STATUSES = ['pending', 'processing', 'on-hold', 'completed', 'cancelled', 'refunded', 'failed', 'checkout-draft'];
const GENERATED_STATUSES: [string, number][] = [
  ['completed', 0.58],
  ['processing', 0.2],
  ['on-hold', 0.04],
  ['pending', 0.05],
  ['cancelled', 0.04],
  ['failed', 0.03],
  ['checkout-draft', 0.01],
  ['refunded', 0.05],
];
/** Analytics' default excluded statuses: the option's pending/failed/cancelled, trash, auto-draft, the block checkout's draft ({@link DOCS.reportsDataStore}). */
const ANALYTICS_EXCLUDED = ['pending', 'failed', 'cancelled', 'trash', 'auto-draft', 'checkout-draft'];
const PAID_STATUSES = ['processing', 'completed', 'refunded'];

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

function secondOf(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** Amount x rate, rounded like WooCommerce's line taxes. */
function taxOn(amount: number, rateBp: number): number {
  return Math.round((amount * rateBp) / 10_000);
}

/** The part of a tax-inclusive amount that is not tax. */
function exTax(inclusive: number, rateBp: number): number {
  return Math.round((inclusive * 10_000) / (10_000 + rateBp));
}

function restError(status: number, code: string, message: string, extra: Record<string, unknown> = {}): FakeResponse {
  return { status, body: { code, message, data: { status, ...extra } } };
}

export class WooCommerceFake extends StoreFake<FakeOrder, OrderChanges> {
  readonly currency: string;
  readonly consumerKey: string;
  readonly consumerSecret: string;
  readonly webhookSecret: string;
  readonly orderCount: number;
  readonly productCount: number;
  readonly timezone: SiteTimezone;
  readonly pricesIncludeTax: boolean;
  readonly taxRateBp: number;
  readonly analyticsDateType: AnalyticsDateType;
  readonly now: () => number;

  private readonly seed: number;
  private readonly fromMs: number;
  private readonly spanMs: number;
  private readonly cogs: boolean;
  private keyRevoked = false;
  private readonly baseModified: Float64Array;
  private readonly baseStatus: Uint8Array;
  private readonly custom: FakeOrder[] = [];
  private readonly productModified = new Map<number, number>();
  private nextRefundId = 600_000;
  private localFormat: Intl.DateTimeFormat | undefined;

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
    this.timezone = options.timezone ?? { timezoneString: 'America/New_York' };
    this.pricesIncludeTax = options.pricesIncludeTax ?? false;
    this.taxRateBp = options.taxRateBp ?? 1900;
    this.analyticsDateType = options.analyticsDateType ?? 'date_paid';
    this.cogs = options.cogs ?? false;
    this.now = options.now ?? Date.now;
    this.baseModified = new Float64Array(this.orderCount);
    this.baseStatus = new Uint8Array(this.orderCount);
    for (let index = 0; index < this.orderCount; index++) {
      const order = this.generate(index);
      this.baseModified[index] = order.modifiedMs;
      this.baseStatus[index] = GENERATED_STATUSES.findIndex(([status]) => status === order.status);
    }

    const api = '/wp-json/wc/v3';
    this.route('GET', '/wp-json/', (request) => this.index(request));
    this.route('GET', `${api}/orders`, (request) => this.guarded(request, () => this.listOrders(request)));
    this.route('GET', `${api}/orders/:id`, (request) => this.guarded(request, () => this.getOrder(request.params.id!)));
    this.route('GET', `${api}/orders/:id/refunds`, (request) => this.guarded(request, () => this.listRefunds(request)));
    this.route('GET', `${api}/products`, (request) => this.guarded(request, () => this.listProducts(request)));
    this.route('GET', `${api}/products/:id/variations`, (request) => this.guarded(request, () => this.listVariations(request)));
    this.route('GET', `${api}/settings/general/woocommerce_currency`, (request) => this.guarded(request, () => ({ body: this.currencySetting() })));
    this.route('GET', `${api}/data/currencies/current`, (request) => this.guarded(request, () => ({ body: { code: this.currency, name: this.currency, symbol: this.currency } })));
    // WooCommerce's key authentication covers every route under /wp-json/wc- too (is_request_to_rest_api).
    this.route('GET', '/wp-json/wc-analytics/reports/revenue/stats', (request) => this.guarded(request, () => this.revenueStats(request)));
  }

  // -------------------------------------------------------------------------------------------
  // Site time: WordPress keeps date_* in the site's zone and *_gmt in UTC, to the second.

  /** The site-local wall time of an instant ("2026-01-22T14:28:02"). */
  local(ms: number): string {
    if ('gmtOffset' in this.timezone) return gmt(ms + this.timezone.gmtOffset * 3_600_000);
    // Swedish dates read "2026-01-22 14:28:02": ISO order, 24-hour clock.
    this.localFormat ??= new Intl.DateTimeFormat('sv-SE', { timeZone: this.timezone.timezoneString, dateStyle: 'short', timeStyle: 'medium', hourCycle: 'h23' });
    return this.localFormat.format(new Date(ms)).replace(' ', 'T');
  }

  /** The instant a site-local wall time names (the later one in a DST fold; as PHP's DateTime does for a gap, moved forward). */
  fromLocal(wall: string): number {
    const asUtc = Date.parse(`${wall.replace(' ', 'T')}Z`);
    if ('gmtOffset' in this.timezone) return asUtc - this.timezone.gmtOffset * 3_600_000;
    let guess = asUtc;
    for (let step = 0; step < 3; step++) guess = asUtc - (Date.parse(`${this.local(guess)}Z`) - guess);
    return guess;
  }

  /**
   * A date query parameter: with an offset or Z as it says, else UTC under dates_are_gmt, else the
   * site's local time ({@link DOCS.restQuery}: without dates_are_gmt the post_date columns are local).
   */
  private queryDate(value: string | null, datesAreGmt: boolean): number | null {
    if (!value) return null;
    if (/[zZ]|[+-]\d\d:\d\d$/.test(value)) return Date.parse(value);
    return datesAreGmt ? Date.parse(`${value}Z`) : this.fromLocal(value);
  }

  // -------------------------------------------------------------------------------------------
  // The data set

  private productPriceMinor(product: number): number {
    return 1200 + Math.floor(seededRandom(this.seed * 17 + product)() * 60) * 50;
  }

  /** Products: every fourth is variable with three variations; most were last edited before the orders' span. */
  product(index: number): FakeProduct {
    const id = PRODUCT_ID_BASE + index;
    const random = seededRandom(this.seed * 31 + index);
    const edited = index % 5 === 1 ? this.fromMs + Math.floor(random() * this.spanMs) : this.fromMs - (index + 1) * 3 * DAY_MS;
    const variable = index % 4 === 3;
    return {
      id,
      index,
      name: `Woo Product ${index}`,
      sku: index % 5 === 0 ? '' : `WOO-${index}`,
      status: index % 11 === 10 ? 'draft' : 'publish',
      modifiedMs: this.productModified.get(id) ?? secondOf(edited),
      variations: variable
        ? ['Small', 'Medium', 'Large'].map((option, position) => ({
            id: VARIATION_ID_BASE + index * 10 + position,
            option,
            priceMinor: this.productPriceMinor(index) + position * 100,
            sku: `WOO-${index}-${option[0]}`,
          }))
        : [],
    };
  }

  /** A line of `quantity` at the display price (with tax when prices include it), 20 % off when couponed. */
  private line(id: number, productIndex: number, variation: number | null, quantity: number, couponed: boolean, pricesIncludeTax: boolean): FakeLine {
    const product = this.product(productIndex);
    const chosen = variation === null ? null : product.variations[variation]!;
    const display = (chosen?.priceMinor ?? this.productPriceMinor(productIndex)) * quantity;
    const discountDisplay = couponed ? Math.round(display / 5) : 0;
    const rate = this.taxRateBp;
    // Prices with tax: WooCommerce works backwards from the inclusive price and stores the line without tax.
    const subtotal = pricesIncludeTax ? exTax(display, rate) : display;
    const subtotalTax = pricesIncludeTax ? display - subtotal : taxOn(subtotal, rate);
    const total = pricesIncludeTax ? exTax(display - discountDisplay, rate) : subtotal - discountDisplay;
    const totalTax = pricesIncludeTax ? display - discountDisplay - total : taxOn(total, rate);
    return {
      id,
      productId: product.id,
      variationId: chosen?.id ?? 0,
      name: chosen ? `${product.name} - ${chosen.option}` : product.name,
      sku: chosen?.sku ?? product.sku,
      quantity,
      subtotal,
      subtotalTax,
      total,
      totalTax,
    };
  }

  protected generate(index: number): FakeOrder {
    if (index >= this.orderCount) return this.custom[index - this.orderCount]!;
    const random = seededRandom(this.seed * 999_983 + index * 104_729);
    const createdMs = secondOf(this.fromMs + ((index + random()) * this.spanMs) / this.orderCount);
    let roll = random();
    let status = 'completed';
    for (const [candidate, share] of GENERATED_STATUSES) {
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
    const id = ORDER_ID_BASE + index;
    const lines: FakeLine[] = [];
    for (let position = 0; position < lineCount; position++) {
      const productIndex = Math.floor(random() * this.productCount);
      const variation = this.product(productIndex).variations.length ? Math.floor(random() * 3) : null;
      lines.push(this.line(id * 10 + position, productIndex, variation, 1 + Math.floor(random() * 2), couponed, this.pricesIncludeTax));
    }
    const shipping = random() < 0.6 ? { id: id * 10 + 7, total: 490, tax: taxOn(490, this.taxRateBp) } : null;
    const feeRoll = random();
    const fees: FakeFee[] =
      feeRoll < 0.1
        ? [{ id: id * 10 + 8, name: 'Gift wrapping', total: 300, tax: taxOn(300, this.taxRateBp) }]
        : feeRoll < 0.18
          ? [{ id: id * 10 + 8, name: 'Loyalty discount', total: -200, tax: -taxOn(200, this.taxRateBp) }]
          : [];
    const attribution = ATTRIBUTIONS[Math.floor(random() * ATTRIBUTIONS.length)] ?? null;
    // Nothing happens after the end of the span (`to`, often "now"): a shop has no future edits, so
    // an order refunded "later" than that is still processing.
    const endMs = secondOf(this.fromMs + this.spanMs);
    let modifiedMs = Math.min(endMs, createdMs + secondOf(random() * 3 * 3_600_000));
    const refundRoll = random();
    const order: FakeOrder = {
      id,
      status,
      createdMs,
      modifiedMs,
      paidMs: null,
      completedMs: null,
      customerId,
      email: guest ? `guest${index}@example.com` : `customer${customerId}@example.com`,
      pricesIncludeTax: this.pricesIncludeTax,
      lines,
      shipping,
      fees,
      refunds: [],
      attribution,
      trashedFrom: null,
    };
    const refundMs = createdMs + 3 * DAY_MS;
    if (status === 'refunded' && refundMs > endMs) order.status = 'processing';
    if (order.status === 'refunded') {
      // The merchant set the order to Refunded: WooCommerce refunds the rest, without lines.
      order.refunds.push(this.fullRefund(order, REFUND_ID_BASE + index, refundMs));
      modifiedMs = refundMs;
    } else if (['completed', 'processing'].includes(order.status) && refundMs <= endMs && refundRoll < 0.08) {
      // One unit of the first line back, with its tax.
      const first = lines[0]!;
      const total = Math.round(first.total / first.quantity);
      const tax = Math.round(first.totalTax / first.quantity);
      order.refunds.push({ id: REFUND_ID_BASE + index, createdMs: refundMs, amount: total + tax, reason: 'Returned', lines: [{ lineId: first.id, quantity: 1, total, tax }], shipping: null, fees: [], full: false });
      modifiedMs = refundMs;
    }
    order.modifiedMs = modifiedMs;
    order.paidMs = PAID_STATUSES.includes(order.status) ? createdMs + 5000 : null;
    order.completedMs = order.status === 'completed' ? Math.min(endMs, createdMs + DAY_MS) : null;
    return order;
  }

  /** The refund wc_order_fully_refunded creates: the order's remaining total, no lines ({@link DOCS.fullyRefunded}). */
  private fullRefund(order: FakeOrder, id: number, atMs: number): FakeRefund {
    const remaining = this.totals(order).total - order.refunds.reduce((sum, refund) => sum + refund.amount, 0);
    return { id, createdMs: atMs, amount: remaining, reason: 'Order fully refunded.', lines: [], shipping: null, fees: [], full: true };
  }

  protected withChange(order: FakeOrder, change: OrderChanges): FakeOrder {
    return {
      ...order,
      modifiedMs: change.modifiedMs,
      status: change.status ?? order.status,
      paidMs: change.paidMs !== undefined ? change.paidMs : order.paidMs,
      trashedFrom: change.trashedFrom !== undefined ? change.trashedFrom : order.trashedFrom,
      refunds: [...order.refunds, ...change.refunds],
    };
  }

  /** An order's totals as WooCommerce computes them: total includes tax, shipping and fees. */
  totals(order: FakeOrder) {
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const lineTotal = sum(order.lines.map((line) => line.total));
    const lineTax = sum(order.lines.map((line) => line.totalTax));
    const feeTotal = sum(order.fees.map((fee) => fee.total));
    const feeTax = sum(order.fees.map((fee) => fee.tax));
    const shipping = order.shipping?.total ?? 0;
    const shippingTax = order.shipping?.tax ?? 0;
    return {
      subtotal: sum(order.lines.map((line) => line.subtotal)),
      discountTotal: sum(order.lines.map((line) => line.subtotal - line.total)),
      discountTax: sum(order.lines.map((line) => line.subtotalTax - line.totalTax)),
      cartTax: lineTax + feeTax,
      shipping,
      shippingTax,
      totalTax: lineTax + feeTax + shippingTax,
      total: lineTotal + lineTax + feeTotal + feeTax + shipping + shippingTax,
    };
  }

  get totalOrders(): number {
    return this.orderCount + this.custom.length;
  }

  indexOfOrder(id: number | string): number {
    const index = Number(id) - ORDER_ID_BASE;
    if (!Number.isInteger(index) || index < 0 || index >= this.totalOrders) throw new Error(`no fake WooCommerce order ${id}`);
    return index;
  }

  orderId(index: number): string {
    return String(ORDER_ID_BASE + index);
  }

  private modifiedMsOf(index: number): number {
    const changed = this.changes.get(index)?.modifiedMs;
    if (changed !== undefined) return changed;
    return index < this.orderCount ? this.baseModified[index]! : this.custom[index - this.orderCount]!.modifiedMs;
  }

  private statusOf(index: number): string {
    const changed = this.changes.get(index)?.status;
    if (changed !== undefined) return changed;
    return index < this.orderCount ? GENERATED_STATUSES[this.baseStatus[index]!]![0] : this.custom[index - this.orderCount]!.status;
  }

  private createdMsOf(index: number): number {
    if (index >= this.orderCount) return this.custom[index - this.orderCount]!.createdMs;
    return secondOf(this.fromMs + ((index + seededRandom(this.seed * 999_983 + index * 104_729)()) * this.spanMs) / this.orderCount);
  }

  // -------------------------------------------------------------------------------------------
  // Test helpers

  /** An order with figures the test computed by hand; returns its id. */
  createOrder(spec: CreateOrderSpec): string {
    const index = this.totalOrders;
    const id = ORDER_ID_BASE + index;
    const createdMs = secondOf(spec.createdAt.getTime());
    const status = spec.status ?? 'processing';
    this.custom.push({
      id,
      status,
      createdMs,
      modifiedMs: secondOf((spec.modifiedAt ?? spec.createdAt).getTime()),
      paidMs: spec.paidAt === undefined ? (PAID_STATUSES.includes(status) ? createdMs : null) : spec.paidAt && secondOf(spec.paidAt.getTime()),
      completedMs: status === 'completed' ? createdMs : null,
      customerId: spec.customerId ?? 0,
      email: `fixture${index}@example.com`,
      pricesIncludeTax: spec.pricesIncludeTax ?? this.pricesIncludeTax,
      lines: spec.lines.map((line, position) => ({
        productId: PRODUCT_ID_BASE,
        variationId: 0,
        sku: '',
        name: `Fixture line ${position + 1}`,
        ...line,
        id: id * 10 + position,
      })),
      shipping: spec.shipping ? { id: id * 10 + 7, ...spec.shipping } : null,
      fees: (spec.fees ?? []).map((fee, position) => ({ id: id * 10 + 8 + position * 100, ...fee })),
      refunds: [],
      attribution: null,
      trashedFrom: null,
    });
    return String(id);
  }

  private change(index: number, atMs: number): OrderChanges {
    const change = this.changes.get(index) ?? { modifiedMs: 0, refunds: [] };
    change.modifiedMs = secondOf(atMs);
    this.changes.set(index, change);
    return change;
  }

  /** A status change (or only an edit). Setting Refunded refunds what is left, as WooCommerce does. */
  updateOrder(id: number | string, changes: { status?: string; at?: Date } = {}): void {
    const index = this.indexOfOrder(id);
    const atMs = (changes.at ?? new Date(this.now())).getTime();
    const change = this.change(index, atMs);
    if (!changes.status) return;
    change.status = changes.status;
    if (PAID_STATUSES.includes(changes.status) && this.order(index).paidMs === null) change.paidMs = secondOf(atMs);
    if (changes.status === 'refunded') {
      const order = this.order(index);
      const refund = this.fullRefund(order, this.nextRefundId++, secondOf(atMs));
      if (refund.amount > 0) change.refunds.push(refund);
    }
  }

  /** The merchant moves the order to the trash: status "trash", modified now (wp_trash_post updates the post). */
  trashOrder(id: number | string, at?: Date): void {
    const index = this.indexOfOrder(id);
    const previous = this.order(index).status;
    const change = this.change(index, (at ?? new Date(this.now())).getTime());
    change.trashedFrom = previous;
    change.status = 'trash';
  }

  /** Restored from the trash to its status before. */
  restoreOrder(id: number | string, at?: Date): void {
    const index = this.indexOfOrder(id);
    const previous = this.order(index).trashedFrom ?? 'pending';
    const change = this.change(index, (at ?? new Date(this.now())).getTime());
    change.status = previous;
    change.trashedFrom = null;
  }

  /** A refund; returns its id. See AddRefundSpec. */
  addRefund(orderId: number | string, spec: AddRefundSpec): string {
    const index = this.indexOfOrder(orderId);
    const order = this.order(index);
    const atMs = secondOf((spec.at ?? new Date(this.now())).getTime());
    const lines = (spec.lines ?? []).map(({ line, quantity, total, tax }) => {
      const source = order.lines[line]!;
      return {
        lineId: source.id,
        quantity,
        total: total ?? Math.round((source.total * quantity) / source.quantity),
        tax: tax ?? Math.round((source.totalTax * quantity) / source.quantity),
      };
    });
    const shipping = spec.shipping && order.shipping ? { total: order.shipping.total, tax: order.shipping.tax } : null;
    const fees = (spec.fees ?? []).map((position) => ({ feeId: order.fees[position]!.id, total: order.fees[position]!.total, tax: order.fees[position]!.tax }));
    const itemsSum = lines.reduce((sum, line) => sum + line.total + line.tax, 0) + (shipping ? shipping.total + shipping.tax : 0) + fees.reduce((sum, fee) => sum + fee.total + fee.tax, 0);
    const amount = spec.amountMinor ?? itemsSum;
    const remaining = this.totals(order).total - order.refunds.reduce((sum, refund) => sum + refund.amount, 0);
    // wc_create_refund: "Invalid refund amount" above what is left ({@link DOCS.fullyRefunded}).
    if (amount <= 0 || amount > remaining) throw new Error(`fake WooCommerce: invalid refund amount ${amount} (remaining ${remaining})`);
    const refund: FakeRefund = { id: this.nextRefundId++, createdMs: atMs, amount, reason: spec.reason ?? '', lines, shipping, fees, full: false };
    this.change(index, atMs).refunds.push(refund);
    return String(refund.id);
  }

  /** The merchant edits a product (its date_modified moves). */
  touchProduct(index: number, at: Date): void {
    this.productModified.set(PRODUCT_ID_BASE + index, secondOf(at.getTime()));
  }

  productId(index: number): string {
    return String(PRODUCT_ID_BASE + index);
  }

  /** The merchant deletes the API key. */
  revokeKey(): void {
    this.keyRevoked = true;
  }

  /** Orders (trashed ones too) modified in [since, until): what a window must store. */
  ordersModifiedBetween(since: Date, until: Date): number {
    let count = 0;
    for (let index = 0; index < this.totalOrders; index++) {
      const ms = this.modifiedMsOf(index);
      if (ms >= since.getTime() && ms < until.getTime()) count++;
    }
    return count;
  }

  /** Every product and variation id of the catalogue. */
  catalogueIds(): string[] {
    const ids: string[] = [];
    for (let index = 0; index < this.productCount; index++) {
      const product = this.product(index);
      ids.push(String(product.id), ...product.variations.map((variation) => String(variation.id)));
    }
    return ids;
  }

  // -------------------------------------------------------------------------------------------
  // Wire format

  /** The order as GET /orders/{id} (and webhooks) return it. */
  restOrder(index: number): Record<string, unknown> {
    const order = this.order(index);
    const totals = this.totals(order);
    const taxLine = (line: { total: number; tax: number }) => [{ id: 1, total: decimal(line.tax), subtotal: decimal(line.tax) }];
    return {
      id: order.id,
      parent_id: 0,
      number: String(order.id),
      order_key: `wc_order_${order.id.toString(16)}`,
      created_via: 'checkout',
      status: order.status,
      currency: this.currency,
      date_created: this.local(order.createdMs),
      date_created_gmt: gmt(order.createdMs),
      date_modified: this.local(order.modifiedMs),
      date_modified_gmt: gmt(order.modifiedMs),
      date_paid: order.paidMs === null ? null : this.local(order.paidMs),
      date_paid_gmt: order.paidMs === null ? null : gmt(order.paidMs),
      date_completed: order.completedMs === null ? null : this.local(order.completedMs),
      date_completed_gmt: order.completedMs === null ? null : gmt(order.completedMs),
      discount_total: decimal(totals.discountTotal),
      discount_tax: decimal(totals.discountTax),
      shipping_total: decimal(totals.shipping),
      shipping_tax: decimal(totals.shippingTax),
      cart_tax: decimal(totals.cartTax),
      total: decimal(totals.total),
      total_tax: decimal(totals.totalTax),
      prices_include_tax: order.pricesIncludeTax,
      customer_id: order.customerId,
      billing: { first_name: 'Fake', last_name: `Buyer ${index}`, email: order.email, country: 'US' },
      payment_method: 'stripe',
      meta_data: Object.entries(order.attribution ?? {}).map(([key, value], position) => ({ id: order.id * 100 + position, key: `_wc_order_attribution_${key}`, value })),
      line_items: order.lines.map((line) => ({
        id: line.id,
        name: line.name,
        product_id: line.productId,
        variation_id: line.variationId,
        quantity: line.quantity,
        tax_class: '',
        subtotal: decimal(line.subtotal),
        subtotal_tax: decimal(line.subtotalTax),
        total: decimal(line.total),
        total_tax: decimal(line.totalTax),
        taxes: [{ id: 1, total: decimal(line.totalTax), subtotal: decimal(line.subtotalTax) }],
        meta_data: [],
        sku: line.sku,
        price: line.total / line.quantity / 100,
      })),
      tax_lines: totals.totalTax ? [{ id: order.id * 10 + 9, rate_code: 'FAKE-TAX-1', rate_id: 1, label: 'Tax', compound: false, tax_total: decimal(totals.cartTax), shipping_tax_total: decimal(totals.shippingTax) }] : [],
      shipping_lines: order.shipping ? [{ id: order.shipping.id, method_title: 'Flat rate', method_id: 'flat_rate', total: decimal(order.shipping.total), total_tax: decimal(order.shipping.tax), taxes: taxLine(order.shipping) }] : [],
      fee_lines: order.fees.map((fee) => ({ id: fee.id, name: fee.name, tax_class: '', tax_status: 'taxable', total: decimal(fee.total), total_tax: decimal(fee.tax), taxes: taxLine(fee) })),
      coupon_lines: [],
      refunds: order.refunds.map((refund) => ({ id: refund.id, reason: refund.reason, total: decimal(-refund.amount) })),
    };
  }

  /** A refund as /orders/{id}/refunds returns it: its items negative, the amount positive ({@link DOCS.refunds}). */
  private restRefund(order: FakeOrder, refund: FakeRefund): Record<string, unknown> {
    const lineTax = refund.lines.reduce((sum, line) => sum + line.tax, 0) + refund.fees.reduce((sum, fee) => sum + fee.tax, 0);
    const shippingTax = refund.shipping?.tax ?? 0;
    return {
      id: refund.id,
      date_created: this.local(refund.createdMs),
      date_created_gmt: gmt(refund.createdMs),
      amount: decimal(refund.amount),
      reason: refund.reason,
      refunded_by: 1,
      refunded_payment: false,
      meta_data: refund.full ? [{ id: refund.id, key: '_refund_type', value: 'full' }] : [],
      line_items: refund.lines.map((refunded) => {
        const line = order.lines.find((candidate) => candidate.id === refunded.lineId)!;
        return {
          id: refund.id * 10 + order.lines.indexOf(line),
          name: line.name,
          product_id: line.productId,
          variation_id: line.variationId,
          quantity: -refunded.quantity,
          subtotal: decimal(-refunded.total),
          subtotal_tax: decimal(-refunded.tax),
          total: decimal(-refunded.total),
          total_tax: decimal(-refunded.tax),
          sku: line.sku,
          meta_data: [{ key: '_refunded_item_id', value: String(line.id) }],
        };
      }),
      shipping_lines: refund.shipping ? [{ id: refund.id * 10 + 7, method_title: 'Flat rate', method_id: 'flat_rate', total: decimal(-refund.shipping.total), total_tax: decimal(-refund.shipping.tax) }] : [],
      fee_lines: refund.fees.map((fee, position) => ({ id: refund.id * 10 + 8 + position, name: order.fees.find((candidate) => candidate.id === fee.feeId)!.name, total: decimal(-fee.total), total_tax: decimal(-fee.tax) })),
      tax_lines: lineTax || shippingTax ? [{ id: refund.id * 10 + 9, rate_code: 'FAKE-TAX-1', rate_id: 1, label: 'Tax', compound: false, tax_total: decimal(-lineTax), shipping_tax_total: decimal(-shippingTax) }] : [],
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
      return restError(401, 'woocommerce_rest_authentication_error', 'Consumer key is invalid.');
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

  /** per_page 1..100, default 10 ({@link DOCS.pagination}); `offset` wins over `page`. */
  private pageParams(request: FakeRequest): { perPage: number; start: number; page: number } | FakeResponse {
    const perPage = Number(request.query.get('per_page') ?? 10);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
      return restError(400, 'rest_invalid_param', 'Invalid parameter(s): per_page', { params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' } });
    }
    const page = Number(request.query.get('page') ?? 1);
    if (!Number.isInteger(page) || page < 1) return restError(400, 'rest_invalid_param', 'Invalid parameter(s): page');
    const offset = request.query.get('offset');
    return { perPage, page, start: offset !== null ? Number(offset) : (page - 1) * perPage };
  }

  /**
   * Which statuses a listing reads: `any` (the default) is WordPress's post_status=any, every
   * status but trash ({@link DOCS.postStatusAny}); `trash` only the trash; else a comma list of
   * registered statuses (anything else is rest_invalid_param).
   */
  private statusFilter(request: FakeRequest): ((status: string) => boolean) | FakeResponse {
    const values = (request.query.get('status') ?? 'any').split(',').map((value) => value.trim());
    for (const value of values) {
      if (value !== 'any' && value !== 'trash' && !ORDER_STATUSES.includes(value)) return restError(400, 'rest_invalid_param', 'Invalid parameter(s): status', { params: { status: `status[0] is not one of any, trash, ${ORDER_STATUSES.join(', ')}.` } });
    }
    return (status) => values.some((value) => (value === 'any' ? status !== 'trash' : value === status));
  }

  private listOrders(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    const statusAllowed = this.statusFilter(request);
    if (typeof statusAllowed !== 'function') return statusAllowed;
    const query = request.query;
    const orderby = query.get('orderby') ?? 'date';
    if (!['date', 'id', 'include', 'title', 'slug', 'modified'].includes(orderby)) return restError(400, 'rest_invalid_param', 'Invalid parameter(s): orderby');
    const datesAreGmt = query.get('dates_are_gmt') === 'true' || query.get('dates_are_gmt') === '1';
    const modifiedAfter = this.queryDate(query.get('modified_after'), datesAreGmt);
    const modifiedBefore = this.queryDate(query.get('modified_before'), datesAreGmt);
    const after = this.queryDate(query.get('after'), datesAreGmt);
    const before = this.queryDate(query.get('before'), datesAreGmt);
    const matching: number[] = [];
    for (let index = 0; index < this.totalOrders; index++) {
      const modified = this.modifiedMsOf(index);
      // WordPress's date_query bounds are exclusive ({@link DOCS.restQuery}).
      if (modifiedAfter !== null && !(modified > modifiedAfter)) continue;
      if (modifiedBefore !== null && !(modified < modifiedBefore)) continue;
      if (after !== null || before !== null) {
        const created = this.createdMsOf(index);
        if ((after !== null && !(created > after)) || (before !== null && !(created < before))) continue;
      }
      if (!statusAllowed(this.statusOf(index))) continue;
      matching.push(index);
    }
    const key = (index: number) => (orderby === 'date' ? this.createdMsOf(index) : orderby === 'modified' ? this.modifiedMsOf(index) : index);
    matching.sort((a, b) => key(a) - key(b) || a - b);
    if ((query.get('order') ?? 'desc') !== 'asc') matching.reverse();
    const rows = matching.slice(params.start, params.start + params.perPage).map((index) => this.restOrder(index));
    return this.paged(request, matching.length, rows, params.perPage, params.page);
  }

  private getOrder(id: string): FakeResponse {
    try {
      return { body: this.restOrder(this.indexOfOrder(id)) };
    } catch {
      return restError(404, 'woocommerce_rest_shop_order_invalid_id', 'Invalid ID.');
    }
  }

  /** An order's refunds, newest first, paginated like every collection ({@link DOCS.refunds}). */
  private listRefunds(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    let index: number;
    try {
      index = this.indexOfOrder(request.params.id!);
    } catch {
      return restError(404, 'woocommerce_rest_shop_order_invalid_id', 'Invalid ID.');
    }
    const order = this.order(index);
    const refunds = [...order.refunds].sort((a, b) => b.createdMs - a.createdMs || b.id - a.id);
    const rows = refunds.slice(params.start, params.start + params.perPage).map((refund) => this.restRefund(order, refund));
    return this.paged(request, refunds.length, rows, params.perPage, params.page);
  }

  private restProduct(product: FakeProduct): Record<string, unknown> {
    const priceMinor = product.variations.length ? Math.min(...product.variations.map((variation) => variation.priceMinor)) : this.productPriceMinor(product.index);
    return {
      id: product.id,
      name: product.name,
      type: product.variations.length ? 'variable' : 'simple',
      status: product.status,
      sku: product.sku,
      price: decimal(priceMinor),
      regular_price: product.variations.length ? '' : decimal(priceMinor),
      date_modified: this.local(product.modifiedMs),
      date_modified_gmt: gmt(product.modifiedMs),
      images: [{ id: product.index, src: `https://store.example/wp-content/uploads/product-${product.index}.jpg` }],
      variations: product.variations.map((variation) => variation.id),
      ...(this.cogs ? { cost_of_goods_sold: this.cogsOf(product.variations.length ? 0 : Math.round(priceMinor * 0.4)) } : {}),
    };
  }

  /** Cost of Goods Sold: numbers, only when the feature is on ({@link DOCS.cogs}). */
  private cogsOf(costMinor: number): Record<string, unknown> {
    const value = costMinor / 100;
    return { values: [{ defined_value: costMinor ? value : null, effective_value: value }], total_value: value };
  }

  /** Products, each with its own date_modified: a window only lists the ones edited in it. */
  private listProducts(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    const datesAreGmt = request.query.get('dates_are_gmt') === 'true';
    const modifiedAfter = this.queryDate(request.query.get('modified_after'), datesAreGmt);
    const modifiedBefore = this.queryDate(request.query.get('modified_before'), datesAreGmt);
    const matching: FakeProduct[] = [];
    for (let index = 0; index < this.productCount; index++) {
      const product = this.product(index);
      if (modifiedAfter !== null && !(product.modifiedMs > modifiedAfter)) continue;
      if (modifiedBefore !== null && !(product.modifiedMs < modifiedBefore)) continue;
      matching.push(product);
    }
    if ((request.query.get('order') ?? 'desc') !== 'asc') matching.reverse();
    const rows = matching.slice(params.start, params.start + params.perPage).map((product) => this.restProduct(product));
    return this.paged(request, matching.length, rows, params.perPage, params.page);
  }

  /** A variable product's variations, with their own prices, SKUs and costs ({@link DOCS.variations}). */
  private listVariations(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    const index = Number(request.params.id) - PRODUCT_ID_BASE;
    if (!Number.isInteger(index) || index < 0 || index >= this.productCount) return restError(404, 'woocommerce_rest_product_invalid_id', 'Invalid ID.');
    const product = this.product(index);
    const rows = product.variations.slice(params.start, params.start + params.perPage).map((variation) => ({
      id: variation.id,
      sku: variation.sku,
      price: decimal(variation.priceMinor),
      regular_price: decimal(variation.priceMinor),
      status: 'publish',
      attributes: [{ id: 1, name: 'Size', option: variation.option }],
      image: { id: variation.id, src: `https://store.example/wp-content/uploads/variation-${variation.id}.jpg` },
      ...(this.cogs ? { cost_of_goods_sold: this.cogsOf(Math.round(variation.priceMinor * 0.4)) } : {}),
    }));
    return this.paged(request, product.variations.length, rows, params.perPage, params.page);
  }

  private currencySetting(): Record<string, unknown> {
    return { id: 'woocommerce_currency', label: 'Currency', description: 'This controls what currency prices are listed at in the catalog and which currency gateways will take payments in.', type: 'select', default: 'USD', tip: '', value: this.currency };
  }

  /**
   * WordPress's REST index: public (no key needed), with the site's time zone options as get_option
   * returns them, `_fields` keeping only the fields asked for ({@link DOCS.index}).
   */
  private index(request: FakeRequest): FakeResponse {
    // Outside wc/ and wc- routes WordPress reads Basic credentials as an application password
    // (wp_authenticate_application_password): a consumer key is no user, so a site with application
    // passwords in use answers 401 (rest_application_password_check_errors, {@link DOCS.appPasswords}).
    if (typeof request.headers.authorization === 'string' && request.headers.authorization.startsWith('Basic ')) {
      return restError(401, 'invalid_username', 'Unknown username. Check again or try your email address.');
    }
    const fields = (request.query.get('_fields') ?? '').split(',').filter(Boolean);
    const named = 'timezoneString' in this.timezone ? this.timezone.timezoneString : '';
    const offsetHours = 'gmtOffset' in this.timezone ? this.timezone.gmtOffset : (Date.parse(`${this.local(this.now())}Z`) - secondOf(this.now())) / 3_600_000;
    const index: Record<string, unknown> = {
      name: 'Fake Woo Store',
      description: 'Just another WooCommerce store',
      url: 'https://store.example',
      home: 'https://store.example',
      gmt_offset: String(offsetHours),
      timezone_string: named,
      namespaces: ['oembed/1.0', 'wc/v3', 'wc-analytics', 'wp/v2'],
      authentication: [],
      routes: { '/wc/v3/orders': { namespace: 'wc/v3', methods: ['GET', 'POST'] } },
    };
    return { body: fields.length ? Object.fromEntries(Object.entries(index).filter(([key]) => fields.includes(key))) : index };
  }

  // -------------------------------------------------------------------------------------------
  // WooCommerce Analytics

  /**
   * wc_order_stats as WooCommerce writes it ({@link DOCS.orderStats}): one row per order and one
   * per refund (parent_id = the order, the refund's own date in every date column, the order's
   * status). net_total = total - total_tax - shipping_total, for refunds with their negative items;
   * a full refund (_refund_type full, WooCommerce >= 10.2) takes what earlier refunds left of the
   * order's net. Dates are site-local wall times, as the table keeps them.
   */
  private orderStatsRows(): { dates: Record<AnalyticsDateType, string | null>; parentId: number; netMinor: number; status: string }[] {
    const rows: { dates: Record<AnalyticsDateType, string | null>; parentId: number; netMinor: number; status: string }[] = [];
    const localOrNull = (ms: number | null) => (ms === null ? null : this.local(ms));
    for (let index = 0; index < this.totalOrders; index++) {
      const order = this.order(index);
      const totals = this.totals(order);
      const orderNet = totals.total - totals.totalTax - totals.shipping;
      rows.push({ dates: { date_created: this.local(order.createdMs), date_paid: localOrNull(order.paidMs), date_completed: localOrNull(order.completedMs) }, parentId: 0, netMinor: orderNet, status: order.status });
      let refundedNet = 0;
      for (const refund of [...order.refunds].sort((a, b) => a.createdMs - b.createdMs || a.id - b.id)) {
        const tax = refund.lines.reduce((sum, line) => sum + line.tax, 0) + refund.fees.reduce((sum, fee) => sum + fee.tax, 0) + (refund.shipping?.tax ?? 0);
        const net = refund.full ? orderNet - refundedNet : refund.amount - tax - (refund.shipping?.total ?? 0);
        refundedNet += net;
        const date = this.local(refund.createdMs);
        rows.push({ dates: { date_created: date, date_paid: date, date_completed: date }, parentId: order.id, netMinor: -net, status: order.status });
      }
    }
    return rows;
  }

  /** An analytics date parameter: site-local unless it carries an offset ({@link DOCS.reportsDataStore} normalize_timezones). */
  private analyticsDate(value: string | null): string | null {
    if (!value) return null;
    if (/[zZ]|[+-]\d\d:\d\d$/.test(value)) return this.local(Date.parse(value));
    return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(value) ? value : null;
  }

  /**
   * GET wc-analytics/reports/revenue/stats ({@link DOCS.revenueStats}): day intervals between the
   * site-local `after` and `before` (both inclusive), by `date_type` (default: the store's
   * woocommerce_date_type option, date_paid unless changed; a row without that date is left out),
   * leaving out Analytics' excluded statuses. orders_count counts orders (parent_id 0), net_revenue
   * sums net_total of orders and refunds. Order desc by default, per_page 1..100, X-WP-Total* headers.
   */
  private revenueStats(request: FakeRequest): FakeResponse {
    const params = this.pageParams(request);
    if (!('perPage' in params)) return params;
    const query = request.query;
    const interval = query.get('interval') ?? 'week';
    // The fake keeps to day intervals (WooCommerce also has hour, week, month, quarter and year).
    if (interval !== 'day') return restError(400, 'rest_invalid_param', 'Invalid parameter(s): interval (the fake serves day intervals only)');
    const dateType = (query.get('date_type') ?? this.analyticsDateType) as AnalyticsDateType;
    if (!['date_created', 'date_paid', 'date_completed'].includes(dateType)) return restError(400, 'rest_invalid_param', 'Invalid parameter(s): date_type');
    const after = this.analyticsDate(query.get('after'));
    const before = this.analyticsDate(query.get('before'));
    if (!after || !before) return restError(400, 'rest_invalid_param', 'Invalid parameter(s): after, before');
    const days: string[] = [];
    for (let day = after.slice(0, 10); day <= before.slice(0, 10); day = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)) days.push(day);
    const figures = new Map(days.map((day) => [day, { orders: 0, net: 0 }]));
    const totals = { orders: 0, net: 0 };
    for (const row of this.orderStatsRows()) {
      const date = row.dates[dateType];
      if (date === null || ANALYTICS_EXCLUDED.includes(row.status)) continue;
      if (date < after || date > before) continue;
      const day = figures.get(date.slice(0, 10))!;
      const orders = row.parentId === 0 ? 1 : 0;
      day.orders += orders;
      day.net += row.netMinor;
      totals.orders += orders;
      totals.net += row.netMinor;
    }
    const ordered = (query.get('order') ?? 'desc') === 'asc' ? days : [...days].reverse();
    const toMoney = (minor: number) => Number((minor / 100).toFixed(2));
    const intervals = ordered.slice(params.start, params.start + params.perPage).map((day) => {
      const start = day === after.slice(0, 10) ? after : `${day}T00:00:00`;
      const end = day === before.slice(0, 10) ? before : `${day}T23:59:59`;
      const figure = figures.get(day)!;
      return {
        interval: day,
        date_start: start.replace('T', ' '),
        date_start_gmt: gmt(this.fromLocal(start)).replace('T', ' '),
        date_end: end.replace('T', ' '),
        date_end_gmt: gmt(this.fromLocal(end)).replace('T', ' '),
        subtotals: { orders_count: figure.orders, net_revenue: toMoney(figure.net), segments: [] },
      };
    });
    const totalPages = Math.max(1, Math.ceil(days.length / params.perPage));
    return {
      headers: { 'x-wp-total': String(days.length), 'x-wp-totalpages': String(totalPages) },
      body: { totals: { orders_count: totals.orders, net_revenue: toMoney(totals.net), segments: [] }, intervals },
    };
  }

  /** What WooCommerce Analytics would say for one site-local day, by creation date (for tests). */
  analyticsDay(day: string): { orders: number; netMinor: number } {
    let orders = 0;
    let netMinor = 0;
    for (const row of this.orderStatsRows()) {
      if (ANALYTICS_EXCLUDED.includes(row.status) || row.dates.date_created?.slice(0, 10) !== day) continue;
      if (row.parentId === 0) orders++;
      netMinor += row.netMinor;
    }
    return { orders, netMinor };
  }

  // -------------------------------------------------------------------------------------------
  // Webhooks

  /**
   * The delivery id WooCommerce sends: wp_hash(webhook id . the current second) (WC_Webhook::
   * get_new_delivery_id, {@link DOCS.webhook}), so deliveries within one second share it.
   */
  deliveryIdAt(ms: number): string {
    return createHmac('md5', 'fake-wp-salt').update(`${WEBHOOK_ID}${Math.floor(ms / 1000)}`).digest('hex');
  }

  /**
   * A delivery as WooCommerce would send it ({@link DOCS.webhook}): the order as the REST API returns
   * it, or for order.deleted (fired by trashing) only {"id"}; `secret` other than the webhook's forges it.
   */
  webhookDelivery(
    topic: 'order.created' | 'order.updated' | 'order.deleted' | 'order.restored',
    orderId: number | string,
    options: { secret?: string; deliveryId?: string; at?: Date } = {},
  ): { headers: Record<string, string>; body: string } {
    const body = topic === 'order.deleted' ? JSON.stringify({ id: Number(orderId) }) : JSON.stringify(this.restOrder(this.indexOfOrder(orderId)));
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
        'x-wc-webhook-id': WEBHOOK_ID,
        'x-wc-webhook-delivery-id': options.deliveryId ?? this.deliveryIdAt((options.at ?? new Date(this.now())).getTime()),
      },
    };
  }

  async deliverWebhook(url: string, topic: 'order.created' | 'order.updated' | 'order.deleted' | 'order.restored', orderId: number | string, options: { secret?: string; deliveryId?: string; at?: Date } = {}): Promise<{ status: number; deliveryId: string }> {
    const delivery = this.webhookDelivery(topic, orderId, options);
    return { status: await this.post(url, delivery), deliveryId: delivery.headers['x-wc-webhook-delivery-id']! };
  }

  /** The unsigned ping sent when a webhook is created. */
  async deliverPing(url: string): Promise<number> {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `webhook_id=${WEBHOOK_ID}` });
    await response.text();
    return response.status;
  }
}

export async function startWooCommerceFake(options: WooCommerceFakeOptions = {}): Promise<WooCommerceFake> {
  return new WooCommerceFake(options).start();
}
