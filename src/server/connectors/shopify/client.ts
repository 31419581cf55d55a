import { z } from 'zod';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type ConnectorContext, type ConnectorCredentials, type OAuthSettings } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// Shopify's wire format: the Admin GraphQL API (orders, products, ordersCount, shop), its cost-based
// throttling (HTTP 200 with THROTTLED) and the OAuth token endpoint. See platform-apis.md section 1.

export const SHOPIFY = 'shopify';
/** The Admin API version we speak; a connection can pin another with credentials.apiVersion. */
export const SHOPIFY_API_VERSION = '2026-01';
/** Shopify's own maximum for `first` on a connection. */
export const SHOPIFY_MAX_PAGE_SIZE = 250;
export const SHOPIFY_DEFAULT_SCOPES = ['read_orders', 'read_all_orders', 'read_products', 'read_customers', 'read_inventory'];

export function apiVersionOf(credentials: ConnectorCredentials): string {
  return credentials.apiVersion || SHOPIFY_API_VERSION;
}

/** "my-shop", "my-shop.myshopify.com" or "https://my-shop.myshopify.com/" -> "my-shop.myshopify.com". */
export function normalizeShopDomain(input: string): string {
  const host = input
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\/.*$/, '');
  const domain = host.includes('.') ? host : `${host}.myshopify.com`;
  if (!/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/.test(domain)) {
    throw new ConnectorAuthError(SHOPIFY, `"${input}" is not a Shopify store address; use the store's .myshopify.com domain.`);
  }
  return domain;
}

// ---------------------------------------------------------------------------------------------
// Response shapes (extra fields are allowed: zod objects strip unknown keys).

const shopMoney = z.object({ shopMoney: z.object({ amount: z.string(), currencyCode: z.string() }) });
export type ShopifyMoneyBag = z.infer<typeof shopMoney>;

const visit = z
  .object({
    occurredAt: z.string().nullish(),
    landingPage: z.string().nullish(),
    referrerUrl: z.string().nullish(),
    source: z.string().nullish(),
    sourceType: z.string().nullish(),
    utmParameters: z
      .object({ source: z.string().nullish(), medium: z.string().nullish(), campaign: z.string().nullish(), content: z.string().nullish(), term: z.string().nullish() })
      .nullish(),
  })
  .nullish();

export const shopifyOrderNode = z.object({
  id: z.string(),
  legacyResourceId: z.string(),
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  processedAt: z.string().nullish(),
  cancelledAt: z.string().nullish(),
  test: z.boolean(),
  currencyCode: z.string(),
  presentmentCurrencyCode: z.string().nullish(),
  sourceName: z.string().nullish(),
  displayFinancialStatus: z.string().nullish(),
  email: z.string().nullish(),
  customer: z.object({ id: z.string(), defaultEmailAddress: z.object({ emailAddress: z.string().nullish() }).nullish() }).nullish(),
  subtotalPriceSet: shopMoney.nullish(),
  totalDiscountsSet: shopMoney.nullish(),
  totalShippingPriceSet: shopMoney.nullish(),
  totalTaxSet: shopMoney.nullish(),
  totalRefundedSet: shopMoney.nullish(),
  customerJourneySummary: z.object({ ready: z.boolean().nullish(), firstVisit: visit, lastVisit: visit }).nullish(),
  lineItems: z.object({
    pageInfo: z.object({ hasNextPage: z.boolean() }).nullish(),
    nodes: z.array(
      z.object({
        id: z.string(),
        title: z.string().nullish(),
        sku: z.string().nullish(),
        quantity: z.number().int(),
        product: z.object({ id: z.string() }).nullish(),
        variant: z.object({ id: z.string() }).nullish(),
        originalUnitPriceSet: shopMoney,
        discountedTotalSet: shopMoney.nullish(),
      }),
    ),
  }),
  refunds: z.array(
    z.object({
      id: z.string(),
      createdAt: z.string(),
      note: z.string().nullish(),
      totalRefundedSet: shopMoney,
      refundLineItems: z.object({ nodes: z.array(z.object({ subtotalSet: shopMoney.nullish() })) }).nullish(),
    }),
  ),
});
export type ShopifyOrderNode = z.infer<typeof shopifyOrderNode>;

export const shopifyProductNode = z.object({
  id: z.string(),
  legacyResourceId: z.string().nullish(),
  title: z.string(),
  status: z.string().nullish(),
  updatedAt: z.string().nullish(),
  featuredImage: z.object({ url: z.string() }).nullish(),
  variants: z.object({
    nodes: z.array(
      z.object({
        id: z.string(),
        sku: z.string().nullish(),
        price: z.string(),
        inventoryItem: z.object({ unitCost: z.object({ amount: z.string(), currencyCode: z.string() }).nullish() }).nullish(),
      }),
    ),
  }),
});
export type ShopifyProductNode = z.infer<typeof shopifyProductNode>;

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullish() });
const ordersData = z.object({ orders: z.object({ pageInfo, nodes: z.array(shopifyOrderNode) }) });
const productsData = z.object({ products: z.object({ pageInfo, nodes: z.array(shopifyProductNode) }) });
const dayOrdersData = z.object({
  orders: z.object({ pageInfo, nodes: z.array(z.object({ legacyResourceId: z.string(), name: z.string().nullish(), updatedAt: z.string() })) }),
});
const countData = z.record(z.string(), z.object({ count: z.number().int(), precision: z.string() }));
const shopData = z.object({
  shop: z.object({ name: z.string(), myshopifyDomain: z.string().nullish(), currencyCode: z.string(), ianaTimezone: z.string().nullish() }),
});

const throttleStatus = z.object({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number() });
const envelope = z.object({
  data: z.unknown().optional(),
  errors: z.array(z.object({ message: z.string().optional(), extensions: z.object({ code: z.string().optional() }).loose().optional() }).loose()).optional(),
  extensions: z
    .object({ cost: z.object({ requestedQueryCost: z.number().nullish(), actualQueryCost: z.number().nullish(), throttleStatus: throttleStatus.nullish() }).loose().optional() })
    .loose()
    .optional(),
});

// ---------------------------------------------------------------------------------------------
// Queries

const MONEY = '{shopMoney{amount currencyCode}}';
const VISIT = '{occurredAt landingPage referrerUrl source sourceType utmParameters{source medium campaign content term}}';

/** Lines per order fetched with it; an order with more is flagged by lineItems.pageInfo.hasNextPage. */
export const SHOPIFY_LINES_PER_ORDER = 50;

export const ORDERS_QUERY = `query Orders($first:Int!,$after:String,$q:String){orders(first:$first,after:$after,query:$q,sortKey:UPDATED_AT){pageInfo{hasNextPage endCursor} nodes{id legacyResourceId name createdAt updatedAt processedAt cancelledAt test currencyCode presentmentCurrencyCode sourceName displayFinancialStatus email customer{id defaultEmailAddress{emailAddress}} subtotalPriceSet${MONEY} totalDiscountsSet${MONEY} totalShippingPriceSet${MONEY} totalTaxSet${MONEY} totalRefundedSet${MONEY} customerJourneySummary{ready firstVisit${VISIT} lastVisit${VISIT}} lineItems(first:${SHOPIFY_LINES_PER_ORDER}){pageInfo{hasNextPage} nodes{id title sku quantity product{id} variant{id} originalUnitPriceSet${MONEY} discountedTotalSet${MONEY}}} refunds{id createdAt note totalRefundedSet${MONEY} refundLineItems(first:${SHOPIFY_LINES_PER_ORDER}){nodes{subtotalSet${MONEY}}}}}}}`;

export const PRODUCTS_QUERY = `query Products($first:Int!,$after:String,$q:String){products(first:$first,after:$after,query:$q,sortKey:UPDATED_AT){pageInfo{hasNextPage endCursor} nodes{id legacyResourceId title status updatedAt featuredImage{url} variants(first:1){nodes{id sku price inventoryItem{unitCost{amount currencyCode}}}}}}}`;

export const SHOP_QUERY = 'query Shop{shop{name myshopifyDomain currencyCode ianaTimezone}}';

/** Just enough of each order to reconcile a day: which orders, and when each last changed. */
export const DAY_ORDERS_QUERY = 'query DayOrders($first:Int!,$q:String){orders(first:$first,query:$q,sortKey:PROCESSED_AT){pageInfo{hasNextPage endCursor} nodes{legacyResourceId name updatedAt}}}';

/**
 * The orders our reports count, in Shopify search syntax: no test orders, none cancelled, and none
 * whose payment was voided or expired (we map those to cancelled too). Every count we compare with
 * ours uses it, so both sides count the same population.
 */
export const SHOPIFY_COUNTED_ORDERS = 'test:false -status:cancelled -financial_status:voided -financial_status:expired';

/** Several ordersCount in one request, aliased c0, c1, ... with their search strings as variables q0, q1, ... */
export function countsQuery(size: number): string {
  const indexes = Array.from({ length: size }, (_, index) => index);
  return `query OrderCounts(${indexes.map((index) => `$q${index}:String`).join(',')}){${indexes.map((index) => `c${index}:ordersCount(query:$q${index},limit:null){count precision}`).join(' ')}}`;
}

/** Shopify search syntax quotes timestamps; a window is [since, until). */
export function searchRange(field: string, since: Date, until: Date): string {
  return `${field}:>='${since.toISOString()}' ${field}:<'${until.toISOString()}'`;
}

// ---------------------------------------------------------------------------------------------
// Throttling and errors

/** How long until the bucket holds the requested cost again: (requested - available) / restoreRate seconds. */
export function throttleWaitMs(cost: { requestedQueryCost?: number | null; throttleStatus?: z.infer<typeof throttleStatus> | null } | undefined): number | undefined {
  const status = cost?.throttleStatus;
  if (!status || !cost?.requestedQueryCost || status.restoreRate <= 0) return undefined;
  const missing = Math.max(0, cost.requestedQueryCost - status.currentlyAvailable);
  return Math.max(1000, Math.ceil((missing / status.restoreRate) * 1000));
}

function parsedEnvelope(response: PlatformResponse): z.infer<typeof envelope> | null {
  try {
    const parsed = envelope.safeParse(JSON.parse(response.text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Shopify's signals on top of the status codes: THROTTLED (HTTP 200), ACCESS_DENIED, 401 for a revoked app. */
export function classifyShopify(response: PlatformResponse): Verdict | undefined {
  if (response.status === 401) {
    return { kind: 'auth', reason: 'Shopify no longer accepts our access token: the app was uninstalled from the store or its access was revoked. Reconnect the store.' };
  }
  if (response.status === 402) return { kind: 'fail', reason: 'The Shopify store is frozen (its plan is unpaid), so its data cannot be read (402).' };
  if (response.status === 403) return { kind: 'auth', reason: 'Shopify denied access (403): the app is missing a permission. Reconnect the store and approve all requested permissions.' };
  if (response.status === 404) return { kind: 'fail', reason: 'Shopify does not know this store or API version (404).' };
  if (response.status === 423) return { kind: 'fail', reason: 'The Shopify store is locked (423).' };
  // Pages are large: only answers that can carry one of the error codes below are parsed here.
  if (response.status !== 200 || !/THROTTLED|ACCESS_DENIED|INTERNAL_SERVER_ERROR/.test(response.text)) return undefined;
  const body = parsedEnvelope(response);
  const codes = body?.errors?.map((error) => error.extensions?.code) ?? [];
  if (codes.includes('THROTTLED')) {
    return { kind: 'retry', reason: 'Shopify query cost limit reached (THROTTLED)', afterMs: throttleWaitMs(body?.extensions?.cost) };
  }
  if (codes.includes('ACCESS_DENIED')) {
    const message = body?.errors?.find((error) => error.extensions?.code === 'ACCESS_DENIED')?.message ?? '';
    return { kind: 'auth', reason: `Shopify denied access to part of the data: ${message} Reconnect the store and approve all requested permissions.` };
  }
  if (codes.includes('INTERNAL_SERVER_ERROR')) return { kind: 'retry', reason: 'Shopify internal error' };
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The client

export interface ShopifyPage<T> {
  nodes: T[];
  hasNextPage: boolean;
  endCursor: string | null;
}

export class ShopifyClient {
  private readonly http: PlatformHttp;
  private readonly graphqlUrl: string;
  private readonly accessToken: string;

  constructor(ctx: ConnectorContext) {
    const token = ctx.credentials.accessToken;
    if (!token) throw new ConnectorAuthError(SHOPIFY, 'The Shopify connection has no access token. Reconnect the store.');
    this.accessToken = token;
    this.http = ctx.http.with({ classify: classifyShopify });
    this.graphqlUrl = `${ctx.baseUrl.replace(/\/+$/, '')}/admin/api/${apiVersionOf(ctx.credentials)}/graphql.json`;
  }

  /** One GraphQL call; `data` checked against `schema`. Errors other than throttling fail the request. */
  async graphql<T>(query: string, variables: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> {
    const { data: body, response } = await this.http.json(this.graphqlUrl, envelope, {
      method: 'POST',
      headers: { 'x-shopify-access-token': this.accessToken },
      json: { query, variables },
    });
    if (body.errors?.length && body.data == null) {
      const messages = body.errors.map((error) => error.message ?? error.extensions?.code ?? 'error').join('; ');
      throw new ConnectorRequestError(SHOPIFY, response.status, `GraphQL errors: ${messages}`);
    }
    const parsed = schema.safeParse(body.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MalformedResponseError(SHOPIFY, `data.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'unexpected shape'}`);
    }
    return parsed.data;
  }

  async orders(first: number, after: string | null, search: string): Promise<ShopifyPage<ShopifyOrderNode>> {
    const { orders } = await this.graphql(ORDERS_QUERY, { first, after, q: search }, ordersData);
    return { nodes: orders.nodes, hasNextPage: orders.pageInfo.hasNextPage, endCursor: orders.pageInfo.endCursor ?? null };
  }

  async products(first: number, after: string | null, search: string): Promise<ShopifyPage<ShopifyProductNode>> {
    const { products } = await this.graphql(PRODUCTS_QUERY, { first, after, q: search }, productsData);
    return { nodes: products.nodes, hasNextPage: products.pageInfo.hasNextPage, endCursor: products.pageInfo.endCursor ?? null };
  }

  /** The first `first` orders matching `search` by processing time, with their last change. */
  async dayOrders(first: number, search: string): Promise<{ nodes: z.infer<typeof dayOrdersData>['orders']['nodes']; hasNextPage: boolean }> {
    const { orders } = await this.graphql(DAY_ORDERS_QUERY, { first, q: search }, dayOrdersData);
    return { nodes: orders.nodes, hasNextPage: orders.pageInfo.hasNextPage };
  }

  /** ordersCount for each search string, in the same order (batched, 25 per request). */
  async orderCounts(searches: string[]): Promise<number[]> {
    const counts: number[] = [];
    for (let start = 0; start < searches.length; start += 25) {
      const chunk = searches.slice(start, start + 25);
      const data = await this.graphql(countsQuery(chunk.length), Object.fromEntries(chunk.map((search, index) => [`q${index}`, search])), countData);
      chunk.forEach((_, index) => {
        const entry = data[`c${index}`];
        if (!entry) throw new MalformedResponseError(SHOPIFY, `data.c${index}: missing count`);
        counts.push(entry.count);
      });
    }
    return counts;
  }

  async shop(): Promise<z.infer<typeof shopData>['shop']> {
    return (await this.graphql(SHOP_QUERY, {}, shopData)).shop;
  }
}

// ---------------------------------------------------------------------------------------------
// OAuth (authorization-code grant per shop; expiring offline tokens with a refresh token)

const tokenResponse = z.object({
  access_token: z.string(),
  scope: z.string().nullish(),
  expires_in: z.number().nullish(),
  refresh_token: z.string().nullish(),
  refresh_token_expires_in: z.number().nullish(),
});

/** Token endpoint errors are 400/401 with {"error","error_description"}: the code or refresh token is no good. */
function classifyTokenEndpoint(response: PlatformResponse): Verdict | undefined {
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    let description = '';
    try {
      const body = JSON.parse(response.text) as { error_description?: string; error?: string; errors?: string };
      description = body.error_description ?? body.errors ?? body.error ?? '';
    } catch {
      description = response.text.slice(0, 200);
    }
    return { kind: 'auth', reason: `Shopify refused the authorization${description ? `: ${description}` : ''}. Connect the store again.` };
  }
  return defaultVerdict(response);
}

function credentialsFromTokens(shop: string, tokens: z.infer<typeof tokenResponse>, now: number, previous: ConnectorCredentials = {}): ConnectorCredentials {
  const credentials: ConnectorCredentials = { ...previous, shop, accessToken: tokens.access_token };
  if (tokens.scope) credentials.scope = tokens.scope;
  if (tokens.refresh_token) credentials.refreshToken = tokens.refresh_token;
  if (tokens.expires_in) credentials.expiresAt = new Date(now + tokens.expires_in * 1000).toISOString();
  else delete credentials.expiresAt;
  if (tokens.refresh_token_expires_in) credentials.refreshTokenExpiresAt = new Date(now + tokens.refresh_token_expires_in * 1000).toISOString();
  return credentials;
}

function tokenUrl(ctx: ConnectorContext): string {
  return `${ctx.baseUrl.replace(/\/+$/, '')}/admin/oauth/access_token`;
}

export async function exchangeAuthorizationCode(ctx: ConnectorContext, settings: OAuthSettings, shop: string, code: string): Promise<ConnectorCredentials> {
  const { data } = await ctx.http.with({ classify: classifyTokenEndpoint }).json(tokenUrl(ctx), tokenResponse, {
    method: 'POST',
    // `expiring: 1` asks for an expiring offline token with a refresh token (required for public apps from 2027).
    json: { client_id: settings.clientId, client_secret: settings.clientSecret, code, expiring: 1 },
  });
  return credentialsFromTokens(shop, data, Date.now());
}

export async function refreshAccessToken(ctx: ConnectorContext, settings: OAuthSettings): Promise<ConnectorCredentials> {
  const { refreshToken, shop } = ctx.credentials;
  if (!refreshToken || !shop) {
    throw new ConnectorAuthError(SHOPIFY, 'The Shopify access token cannot be renewed (no refresh token). Reconnect the store.');
  }
  const { data } = await ctx.http.with({ classify: classifyTokenEndpoint }).json(tokenUrl(ctx), tokenResponse, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: settings.clientId, client_secret: settings.clientSecret, refresh_token: refreshToken }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return credentialsFromTokens(shop, data, Date.now(), ctx.credentials);
}
