import { z } from 'zod';
import { ConnectorAuthError, type ConnectorContext } from '../connector.ts';
import { type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// WooCommerce's REST API v3 wire format (platform-apis.md section 2): consumer key/secret over HTTPS,
// bare JSON arrays with X-WP-Total / X-WP-TotalPages, WordPress-style error bodies.

export const WOOCOMMERCE = 'woocommerce';
/** The REST namespace we speak; a connection can pin another with credentials.apiNamespace. */
export const WOOCOMMERCE_API_NAMESPACE = 'wc/v3';
export const WOOCOMMERCE_MAX_PAGE_SIZE = 100;

// ---------------------------------------------------------------------------------------------
// Response shapes (unknown fields are dropped; the ones we read are checked).

const metaEntry = z.object({ key: z.string(), value: z.unknown() });

export const wooOrder = z.object({
  id: z.number().int(),
  number: z.string().nullish(),
  status: z.string(),
  currency: z.string(),
  date_created_gmt: z.string(),
  date_modified_gmt: z.string().nullish(),
  discount_total: z.string(),
  shipping_total: z.string(),
  total: z.string(),
  total_tax: z.string(),
  customer_id: z.number().int(),
  billing: z.object({ email: z.string().nullish() }).nullish(),
  meta_data: z.array(metaEntry).default([]),
  line_items: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      product_id: z.number().int().nullish(),
      variation_id: z.number().int().nullish(),
      quantity: z.number().int(),
      subtotal: z.string(),
      total: z.string(),
      sku: z.string().nullish(),
    }),
  ),
  refunds: z.array(z.object({ id: z.number().int(), total: z.string() })).default([]),
});
export type WooOrder = z.infer<typeof wooOrder>;

export const wooRefund = z.object({
  id: z.number().int(),
  date_created_gmt: z.string(),
  amount: z.string(),
  reason: z.string().nullish(),
  line_items: z.array(z.object({ total: z.string().nullish(), subtotal: z.string().nullish() })).default([]),
});
export type WooRefund = z.infer<typeof wooRefund>;

export const wooProduct = z.object({
  id: z.number().int(),
  name: z.string(),
  sku: z.string().nullish(),
  price: z.string().nullish(),
  status: z.string().nullish(),
  images: z.array(z.object({ src: z.string() })).default([]),
});
export type WooProduct = z.infer<typeof wooProduct>;

const wooCurrency = z.object({ code: z.string() });

// ---------------------------------------------------------------------------------------------
// Errors

function errorBody(response: PlatformResponse): { code?: string; message?: string } {
  try {
    const body = JSON.parse(response.text) as { code?: unknown; message?: unknown };
    return { code: typeof body.code === 'string' ? body.code : undefined, message: typeof body.message === 'string' ? body.message : undefined };
  } catch {
    return {};
  }
}

/** WooCommerce answers `{"code","message","data":{"status"}}`; the code says whether the key is at fault. */
export function classifyWooCommerce(response: PlatformResponse): Verdict | undefined {
  const { code, message } = response.status >= 400 ? errorBody(response) : {};
  if (response.status === 401) {
    return {
      kind: 'auth',
      reason: `WooCommerce refused the API key${message ? ` ("${message}")` : ''}: it was deleted or revoked, or the secret is wrong. Create a new read key in WooCommerce > Settings > Advanced > REST API and reconnect.`,
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
// The client

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
  const ceilSecond = (date: Date) => Math.ceil(date.getTime() / 1000) * 1000;
  return { after: wooGmt(new Date(ceilSecond(since) - 1000)), before: wooGmt(new Date(ceilSecond(until))) };
}

/** The query of a list of what was modified in the window, oldest id first, from `offset`. */
function modifiedIn(window: { since: Date; until: Date }, offset: number, perPage: number) {
  const bounds = wooBounds(window.since, window.until);
  return { modified_after: bounds.after, modified_before: bounds.before, dates_are_gmt: true, orderby: 'id', order: 'asc', per_page: perPage, offset };
}

/** WooCommerce's *_gmt fields carry no zone ("2026-01-22T19:28:02"); they are UTC. */
export function gmtInstant(value: string): string {
  return /[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

export interface WooPage<T> {
  rows: T[];
  /** X-WP-Total: how many records match, across pages. */
  total: number | null;
}

export class WooCommerceClient {
  private readonly http: PlatformHttp;
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
    this.apiRoot = `${ctx.baseUrl.replace(/\/+$/, '')}/wp-json/${ctx.credentials.apiNamespace || WOOCOMMERCE_API_NAMESPACE}`;
    // Some hosts drop the Authorization header; WooCommerce documents the query string as the fallback.
    if (ctx.credentials.authMode === 'query') {
      this.authHeaders = {};
      this.authQuery = { consumer_key: consumerKey, consumer_secret: consumerSecret };
    } else {
      this.authHeaders = { authorization: `Basic ${Buffer.from(`${consumerKey}:${consumerSecret}`).toString('base64')}` };
      this.authQuery = {};
    }
  }

  private async get<T>(path: string, schema: z.ZodType<T>, query: Record<string, string | number | boolean | undefined> = {}) {
    return this.http.json(`${this.apiRoot}${path}`, schema, { headers: this.authHeaders, query: { ...query, ...this.authQuery } });
  }

  private async list<T>(path: string, item: z.ZodType<T>, query: Record<string, string | number | boolean | undefined>): Promise<WooPage<T>> {
    const { data, response } = await this.get(path, z.array(item), query);
    const total = response.headers.get('x-wp-total');
    return { rows: data, total: total !== null && /^\d+$/.test(total) ? Number(total) : null };
  }

  /** Orders modified in [since, until), oldest id first, from `offset`. */
  orders(window: { since: Date; until: Date }, offset: number, perPage: number): Promise<WooPage<WooOrder>> {
    return this.list('/orders', wooOrder, { ...modifiedIn(window, offset, perPage), status: 'any' });
  }

  async order(id: number | string): Promise<WooOrder> {
    return (await this.get(`/orders/${encodeURIComponent(String(id))}`, wooOrder)).data;
  }

  async refunds(orderId: number): Promise<WooRefund[]> {
    return (await this.list(`/orders/${orderId}/refunds`, wooRefund, { per_page: WOOCOMMERCE_MAX_PAGE_SIZE })).rows;
  }

  products(window: { since: Date; until: Date }, offset: number, perPage: number): Promise<WooPage<WooProduct>> {
    return this.list('/products', wooProduct, modifiedIn(window, offset, perPage));
  }

  /** How many orders with these statuses were created in [after, before) (X-WP-Total of a one-row page). */
  async countCreated(after: Date, before: Date, statuses: readonly string[]): Promise<number> {
    const bounds = wooBounds(after, before);
    const page = await this.list('/orders', wooOrder, { after: bounds.after, before: bounds.before, dates_are_gmt: true, status: statuses.join(','), per_page: 1 });
    return page.total ?? page.rows.length;
  }

  /** Orders with these statuses created in [after, before), oldest first, one page. */
  createdBetween(after: Date, before: Date, statuses: readonly string[], page: number, perPage: number): Promise<WooPage<WooOrder>> {
    const bounds = wooBounds(after, before);
    return this.list('/orders', wooOrder, { after: bounds.after, before: bounds.before, dates_are_gmt: true, status: statuses.join(','), orderby: 'date', order: 'asc', per_page: perPage, page });
  }

  async currency(): Promise<string> {
    return (await this.get('/data/currencies/current', wooCurrency)).data.code;
  }
}
