import { z } from 'zod';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type ConnectorContext } from '../connector.ts';
import { errorSummary, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// WooCommerce's REST API v3 wire format (docs/platform-notes.md "WooCommerce"): consumer key/secret
// over HTTPS, bare JSON arrays with X-WP-Total / X-WP-TotalPages, WordPress-style error bodies; the
// WordPress REST index (GET /wp-json/) for the site's time zone; WooCommerce Analytics'
// /wp-json/wc-analytics/reports/revenue/stats for the shop's own day totals.

export const WOOCOMMERCE = 'woocommerce';
/** The REST namespace we speak; a connection can pin another with credentials.apiNamespace. */
export const WOOCOMMERCE_API_NAMESPACE = 'wc/v3';
/** WordPress caps per_page at 100 on every collection (rest_invalid_param above it). */
export const WOOCOMMERCE_MAX_PAGE_SIZE = 100;

// ---------------------------------------------------------------------------------------------
// Response shapes (unknown fields are dropped; the ones we read are checked). Money is a decimal
// string everywhere in wc/v3; refund lines carry negative amounts.

const metaEntry = z.object({ key: z.string(), value: z.unknown() });
const money = z.string();
const optionalMoney = z.string().nullish();

export const wooOrder = z.object({
  id: z.number().int(),
  number: z.string().nullish(),
  status: z.string(),
  currency: z.string(),
  date_created_gmt: z.string(),
  date_modified_gmt: z.string().nullish(),
  prices_include_tax: z.boolean().nullish(),
  discount_total: money,
  discount_tax: optionalMoney,
  shipping_total: money,
  shipping_tax: optionalMoney,
  total: money,
  total_tax: money,
  customer_id: z.number().int(),
  billing: z.object({ email: z.string().nullish(), first_name: z.string().nullish(), last_name: z.string().nullish() }).nullish(),
  meta_data: z.array(metaEntry).default([]),
  line_items: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      product_id: z.number().int().nullish(),
      variation_id: z.number().int().nullish(),
      quantity: z.number().int(),
      subtotal: money,
      total: money,
      sku: z.string().nullish(),
    }),
  ),
  fee_lines: z.array(z.object({ id: z.number().int(), name: z.string().nullish(), total: money, total_tax: optionalMoney })).default([]),
  refunds: z.array(z.object({ id: z.number().int(), total: z.string() })).default([]),
});
export type WooOrder = z.infer<typeof wooOrder>;

/** A refunded item of any kind: its total (net of tax) and its tax, both negative. */
const refundedItem = z.object({ total: optionalMoney, total_tax: optionalMoney });

export const wooRefund = z.object({
  id: z.number().int(),
  date_created_gmt: z.string(),
  amount: money,
  reason: z.string().nullish(),
  line_items: z.array(refundedItem.extend({ subtotal: optionalMoney })).default([]),
  shipping_lines: z.array(refundedItem).default([]),
  fee_lines: z.array(refundedItem).default([]),
  tax_lines: z.array(z.object({ tax_total: optionalMoney, shipping_tax_total: optionalMoney })).default([]),
});
export type WooRefund = z.infer<typeof wooRefund>;

/** WooCommerce's Cost of Goods Sold (core since 9.5, when the feature is on): numbers, not strings. */
const cogs = z.object({ total_value: z.union([z.number(), z.string()]).nullish() }).nullish();

export const wooProduct = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.string().nullish(),
  sku: z.string().nullish(),
  price: z.string().nullish(),
  status: z.string().nullish(),
  images: z.array(z.object({ src: z.string() })).default([]),
  variations: z.array(z.number().int()).default([]),
  cost_of_goods_sold: cogs,
});
export type WooProduct = z.infer<typeof wooProduct>;

export const wooVariation = z.object({
  id: z.number().int(),
  sku: z.string().nullish(),
  price: z.string().nullish(),
  status: z.string().nullish(),
  attributes: z.array(z.object({ name: z.string().nullish(), option: z.string().nullish() })).default([]),
  image: z.object({ src: z.string() }).nullish(),
  cost_of_goods_sold: cogs,
});
export type WooVariation = z.infer<typeof wooVariation>;

/** GET /wp-json/: WordPress's REST index (public), with the site's time zone settings. */
const wpIndex = z.object({
  name: z.string().nullish(),
  timezone_string: z.string().nullish(),
  gmt_offset: z.union([z.number(), z.string()]).nullish(),
});
export type WordPressIndex = z.infer<typeof wpIndex>;

const wooSetting = z.object({ id: z.string(), value: z.unknown() });

const analyticsAmount = z.union([z.number(), z.string()]);
const revenueFigures = z.object({ orders_count: z.number(), net_revenue: analyticsAmount });
const revenueStats = z.object({
  totals: revenueFigures,
  intervals: z.array(z.object({ interval: z.string(), subtotals: revenueFigures })),
});
export type RevenueStats = z.infer<typeof revenueStats>;

// ---------------------------------------------------------------------------------------------
// Errors

function errorBody(response: PlatformResponse): { code?: string } {
  try {
    const body = JSON.parse(response.text) as { code?: unknown };
    return { code: typeof body.code === 'string' ? body.code : undefined };
  } catch {
    return {};
  }
}

/** WooCommerce answers `{"code","message","data":{"status"}}`; the code says whether the key is at fault. */
export function classifyWooCommerce(response: PlatformResponse): Verdict | undefined {
  const { code } = response.status >= 400 ? errorBody(response) : {};
  if (response.status === 401) {
    // The code, never the message: the text of an answer is not repeated to the user (http.ts errorSummary).
    return {
      kind: 'auth',
      reason: `WooCommerce refused the API key (${errorSummary(response)}): it was deleted or revoked, or the secret is wrong. Create a new read key in WooCommerce > Settings > Advanced > REST API and reconnect.`,
    };
  }
  if (response.status === 403 && code?.startsWith('woocommerce_rest_cannot')) {
    return { kind: 'auth', reason: 'The WooCommerce API key may not read orders: give it Read permission (and a user who can manage the shop) and reconnect.' };
  }
  if (response.status === 404 && code === 'rest_no_route') {
    return { kind: 'fail', reason: 'The WooCommerce REST API was not found at this address: check the store URL and that WordPress permalinks are not "Plain".' };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Time

/** Timestamps for modified_after & co. with dates_are_gmt=true: ISO 8601 without zone or milliseconds. */
export function wooGmt(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/**
 * WordPress compares whole seconds and both its bounds are exclusive. Rounding each window edge up
 * to a whole second and moving the lower one a second earlier reads exactly the records with
 * ceil(since) <= t < ceil(until), so consecutive windows neither overlap nor leave a gap.
 */
function wooBounds(since: Date, until: Date): { after: string; before: string } {
  return { after: wooGmt(new Date(ceilSecond(since) - 1000)), before: wooGmt(new Date(ceilSecond(until))) };
}

function ceilSecond(date: Date): number {
  return Math.ceil(date.getTime() / 1000) * 1000;
}

/** WooCommerce's *_gmt fields carry no zone ("2026-01-22T19:28:02"); they are UTC. */
export function gmtInstant(value: string): string {
  return /[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`;
}

/** Intl formats are slow to build: one per zone. */
const wallTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `instant` in an IANA zone, as WordPress writes site-local times ("2026-01-22T14:28:02"). */
export function wallTime(instant: Date, timeZone: string): string {
  let format = wallTimeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    wallTimeFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(instant);
  const part = (type: string) => parts.find((entry) => entry.type === type)?.value ?? '00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}`;
}

/**
 * Fractional UTC offsets WordPress offers ("UTC+5:30") -> the IANA zone whose standard offset it is.
 * Zones without daylight saving are preferred; St John's, Lord Howe and Chatham have it (their summer
 * offset is 30 to 60 minutes more than the site's fixed one). Offsets no zone has (e.g. UTC+0:30,
 * UTC-4:30 since Venezuela left it in 2016) have none: the store keeps the zone it has.
 */
const FRACTIONAL_OFFSET_ZONES: Readonly<Record<string, string>> = {
  '-9.5': 'Pacific/Marquesas',
  '-3.5': 'America/St_Johns',
  '3.5': 'Asia/Tehran',
  '4.5': 'Asia/Kabul',
  '5.5': 'Asia/Kolkata',
  '5.75': 'Asia/Kathmandu',
  '6.5': 'Asia/Yangon',
  '8.75': 'Australia/Eucla',
  '9.5': 'Australia/Darwin',
  '10.5': 'Australia/Lord_Howe',
  '12.75': 'Pacific/Chatham',
};

function isIanaZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The site's time zone as an IANA name: Settings > General's city (`timezone_string`), or, when the
 * merchant picked a bare UTC offset (`timezone_string` empty), the offset in hours (`gmt_offset`,
 * possibly fractional): a whole hour is Etc/GMT with the sign reversed (POSIX: UTC+3 is Etc/GMT-3),
 * a fraction the zone with that standard offset. Undefined when neither names a zone.
 */
export function siteTimezone(index: WordPressIndex): string | undefined {
  const named = index.timezone_string?.trim();
  if (named && isIanaZone(named)) return named;
  const raw = typeof index.gmt_offset === 'string' ? index.gmt_offset.trim() : index.gmt_offset;
  if (raw === null || raw === undefined || raw === '') return undefined;
  const offset = Number(raw);
  if (!Number.isFinite(offset) || offset < -12 || offset > 14) return undefined;
  if (Number.isInteger(offset)) return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  return FRACTIONAL_OFFSET_ZONES[String(offset)];
}

// ---------------------------------------------------------------------------------------------
// The client

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

export interface WooPage<T> {
  rows: T[];
  /** X-WP-Total: how many records match, across pages. */
  total: number | null;
  /** X-WP-TotalPages. */
  totalPages: number | null;
}

type Query = Record<string, string | number | boolean | undefined>;

function headerNumber(response: PlatformResponse, name: string): number | null {
  const value = response.headers.get(name);
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/** Which orders a listing reads: `any` is every status but trash (WordPress's post_status=any). */
export type WooOrderListing = 'any' | 'trash';

export class WooCommerceClient {
  private readonly http: PlatformHttp;
  private readonly siteRoot: string;
  private readonly apiRoot: string;
  private readonly authHeaders: Record<string, string>;
  private readonly authQuery: Record<string, string>;

  constructor(ctx: ConnectorContext) {
    const { consumerKey, consumerSecret } = ctx.credentials;
    if (!consumerKey || !consumerSecret) throw new ConnectorAuthError(WOOCOMMERCE, 'The WooCommerce connection has no API key. Enter the consumer key and secret again.');
    const base = new URL(ctx.baseUrl);
    // Key and secret travel in clear text over HTTP; WooCommerce itself refuses Basic auth there.
    if (base.protocol !== 'https:' && !isLoopback(base.hostname)) {
      throw new ConnectorAuthError(WOOCOMMERCE, 'The store address must start with https:// (WooCommerce only accepts API keys over HTTPS).');
    }
    this.http = ctx.http.with({ classify: classifyWooCommerce });
    this.siteRoot = `${ctx.baseUrl.replace(/\/+$/, '')}/wp-json`;
    this.apiRoot = `${this.siteRoot}/${ctx.credentials.apiNamespace || WOOCOMMERCE_API_NAMESPACE}`;
    // Some hosts drop the Authorization header; WooCommerce documents the query string as the fallback.
    if (ctx.credentials.authMode === 'query') {
      this.authHeaders = {};
      this.authQuery = { consumer_key: consumerKey, consumer_secret: consumerSecret };
    } else {
      this.authHeaders = { authorization: `Basic ${Buffer.from(`${consumerKey}:${consumerSecret}`).toString('base64')}` };
      this.authQuery = {};
    }
  }

  private async get<T>(url: string, schema: z.ZodType<T>, query: Query = {}) {
    return this.http.json(url, schema, { headers: this.authHeaders, query: { ...query, ...this.authQuery } });
  }

  private async list<T>(path: string, item: z.ZodType<T>, query: Query): Promise<WooPage<T>> {
    const { data, response } = await this.get(`${this.apiRoot}${path}`, z.array(item), query);
    return { rows: data, total: headerNumber(response, 'x-wp-total'), totalPages: headerNumber(response, 'x-wp-totalpages') };
  }

  /** Every page of a collection, 100 at a time (X-WP-TotalPages says when to stop). */
  private async all<T>(path: string, item: z.ZodType<T>, query: Query): Promise<T[]> {
    const rows: T[] = [];
    for (let page = 1; ; page++) {
      const read = await this.list(path, item, { ...query, per_page: WOOCOMMERCE_MAX_PAGE_SIZE, page });
      rows.push(...read.rows);
      const last = read.totalPages !== null ? page >= read.totalPages : read.rows.length < WOOCOMMERCE_MAX_PAGE_SIZE;
      if (last || read.rows.length === 0) return rows;
    }
  }

  /** Orders modified in [since, until), oldest id first, from `offset`: every status but trash, or the trash. */
  orders(window: { since: Date; until: Date }, offset: number, perPage: number, listing: WooOrderListing = 'any'): Promise<WooPage<WooOrder>> {
    const bounds = wooBounds(window.since, window.until);
    return this.list('/orders', wooOrder, {
      modified_after: bounds.after,
      modified_before: bounds.before,
      dates_are_gmt: true,
      status: listing,
      orderby: 'id',
      order: 'asc',
      per_page: perPage,
      offset,
    });
  }

  /** One order (a trashed one too, with status "trash"); null when WooCommerce has no such order. */
  async order(id: number | string): Promise<WooOrder | null> {
    try {
      return (await this.get(`${this.apiRoot}/orders/${encodeURIComponent(String(id))}`, wooOrder)).data;
    } catch (error) {
      if (error instanceof ConnectorRequestError && error.status === 404) return null;
      throw error;
    }
  }

  /** Every refund of the order (an order can have more than the 100 of one page). */
  refunds(orderId: number): Promise<WooRefund[]> {
    return this.all(`/orders/${orderId}/refunds`, wooRefund, {});
  }

  /** Products oldest id first from `offset`: the whole catalogue, or those modified in the window. */
  products(window: { since: Date; until: Date } | null, offset: number, perPage: number): Promise<WooPage<WooProduct>> {
    const bounds = window ? wooBounds(window.since, window.until) : null;
    return this.list('/products', wooProduct, {
      ...(bounds ? { modified_after: bounds.after, modified_before: bounds.before, dates_are_gmt: true } : {}),
      orderby: 'id',
      order: 'asc',
      per_page: perPage,
      offset,
    });
  }

  /** Every variation of a variable product. */
  variations(productId: number): Promise<WooVariation[]> {
    return this.all(`/products/${productId}/variations`, wooVariation, { orderby: 'id', order: 'asc' });
  }

  /** Orders (every status but trash) created in [after, before), oldest first, one page. */
  createdBetween(after: Date, before: Date, page: number, perPage: number): Promise<WooPage<WooOrder>> {
    const bounds = wooBounds(after, before);
    return this.list('/orders', wooOrder, { after: bounds.after, before: bounds.before, dates_are_gmt: true, status: 'any', orderby: 'date', order: 'asc', per_page: perPage, page });
  }

  /** The shop's currency as its settings hold it (Settings > General > Currency). */
  async currency(): Promise<string> {
    const { data } = await this.get(`${this.apiRoot}/settings/general/woocommerce_currency`, wooSetting);
    if (typeof data.value !== 'string' || !/^[A-Z]{3}$/.test(data.value)) throw new MalformedResponseError(WOOCOMMERCE, `woocommerce_currency is not a currency code: ${JSON.stringify(data.value)}`);
    return data.value;
  }

  /**
   * WordPress's REST index: the site's name and time zone settings. It is public and asked without the
   * key (WooCommerce authenticates only wc/ and wc- routes; elsewhere WordPress would take Basic
   * credentials for an application password and refuse them), and only for these fields (the whole
   * index lists every route of the site).
   */
  async site(): Promise<WordPressIndex> {
    return (await this.http.json(`${this.siteRoot}/`, wpIndex, { query: { _fields: 'name,timezone_string,gmt_offset' } })).data;
  }

  /**
   * WooCommerce Analytics' revenue per site-local day between two site-local wall times (both
   * inclusive, to the second), by the orders' creation dates, one page of up to 100 days.
   */
  async revenueStats(afterLocal: string, beforeLocal: string, page: number): Promise<{ stats: RevenueStats; totalPages: number | null }> {
    const { data, response } = await this.get(`${this.siteRoot}/wc-analytics/reports/revenue/stats`, revenueStats, {
      interval: 'day',
      after: afterLocal,
      before: beforeLocal,
      date_type: 'date_created',
      orderby: 'date',
      order: 'asc',
      per_page: WOOCOMMERCE_MAX_PAGE_SIZE,
      page,
      force_cache_refresh: true,
    });
    return { stats: data, totalPages: headerNumber(response, 'x-wp-totalpages') };
  }
}
