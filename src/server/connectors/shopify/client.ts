import { z } from 'zod';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type ConnectorContext, type ConnectorCredentials, type OAuthSettings } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';
import { SHOPIFY_MAX_QUERY_COST, largestFirstWithin, requestedQueryCost } from './cost.ts';

// Shopify's wire format: the Admin GraphQL API (orders, products, ordersCount, shop), its cost-based
// throttling (HTTP 200 with THROTTLED) and the OAuth token endpoint. See platform-apis.md section 1.

export const SHOPIFY = 'shopify';
/** The Admin API version we speak; a connection can pin another with credentials.apiVersion. */
export const SHOPIFY_API_VERSION = '2026-01';
/** Shopify's own maximum for `first` on a connection. */
export const SHOPIFY_MAX_PAGE_SIZE = 250;
/** read_reports: Shopify's own net sales per day (ShopifyQL), compared with ours after each sync. */
export const SHOPIFY_DEFAULT_SCOPES = ['read_orders', 'read_all_orders', 'read_products', 'read_customers', 'read_inventory', 'read_reports'];

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
const taxLines = z.array(z.object({ priceSet: shopMoney }));

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

const pageFlags = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullish() });

export const shopifyLineNode = z.object({
  id: z.string(),
  title: z.string().nullish(),
  sku: z.string().nullish(),
  quantity: z.number().int(),
  product: z.object({ id: z.string() }).nullish(),
  variant: z.object({ id: z.string() }).nullish(),
  originalUnitPriceSet: shopMoney,
  discountedTotalSet: shopMoney.nullish(),
  taxLines: taxLines.nullish(),
});
export type ShopifyLineNode = z.infer<typeof shopifyLineNode>;

const refundLineNode = z.object({ quantity: z.number().int().nullish(), lineItem: z.object({ id: z.string() }).nullish(), subtotalSet: shopMoney, totalTaxSet: shopMoney.nullish() });

/**
 * A Refund (https://shopify.dev/docs/api/admin-graphql/2026-01/objects/Refund): the refunded lines
 * (subtotal and tax), the refunded shipping (refundShippingLines) and the order adjustments apart.
 * A page of orders carries only each refund's id; the connector reads the rest (refundsById).
 */
export const shopifyRefundNode = z.object({
  id: z.string(),
  createdAt: z.string().nullish(),
  note: z.string().nullish(),
  totalRefundedSet: shopMoney.nullish(),
  refundLineItems: z.object({ pageInfo: pageFlags.nullish(), nodes: z.array(refundLineNode) }).nullish(),
  refundShippingLines: z.object({ pageInfo: pageFlags.nullish(), nodes: z.array(z.object({ subtotalAmountSet: shopMoney, taxAmountSet: shopMoney.nullish() })) }).nullish(),
  orderAdjustments: z.object({ pageInfo: pageFlags.nullish(), nodes: z.array(z.object({ amountSet: shopMoney, taxAmountSet: shopMoney.nullish() })) }).nullish(),
});
export type ShopifyRefundNode = z.infer<typeof shopifyRefundNode>;

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
  taxesIncluded: z.boolean().nullish(),
  sourceName: z.string().nullish(),
  displayFinancialStatus: z.string().nullish(),
  email: z.string().nullish(),
  customer: z.object({
    id: z.string(), firstName: z.string().nullish(), lastName: z.string().nullish(),
    defaultEmailAddress: z.object({ emailAddress: z.string().nullish() }).nullish(),
  }).nullish(),
  subtotalPriceSet: shopMoney.nullish(),
  totalDiscountsSet: shopMoney.nullish(),
  totalTaxSet: shopMoney.nullish(),
  shippingLine: z.object({ discountedPriceSet: shopMoney, taxLines: taxLines.nullish() }).nullish(),
  customerJourneySummary: z.object({ ready: z.boolean().nullish(), firstVisit: visit, lastVisit: visit }).nullish(),
  lineItems: z.object({ pageInfo: pageFlags.nullish(), nodes: z.array(shopifyLineNode) }),
  refunds: z.array(shopifyRefundNode),
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
        // null when the app may not read inventory (ACCESS_DENIED on the field, see classifyShopify).
        inventoryItem: z.object({ unitCost: z.object({ amount: z.string(), currencyCode: z.string() }).nullish() }).nullish(),
      }),
    ),
  }),
});
export type ShopifyProductNode = z.infer<typeof shopifyProductNode>;

const pageInfo = pageFlags;
const ordersData = z.object({ orders: z.object({ pageInfo, nodes: z.array(shopifyOrderNode) }) });
const productsData = z.object({ products: z.object({ pageInfo, nodes: z.array(shopifyProductNode) }) });
const orderLinesData = z.object({ order: z.object({ lineItems: z.object({ pageInfo, nodes: z.array(shopifyLineNode) }) }).nullable() });
const orderRefundIdsData = z.object({ order: z.object({ refunds: z.array(z.object({ id: z.string() })) }).nullable() });
const refundLinesData = z.object({ refund: z.object({ refundLineItems: z.object({ pageInfo, nodes: z.array(refundLineNode) }) }).nullable() });
const dayOrdersData = z.object({
  orders: z.object({ pageInfo, nodes: z.array(z.object({ legacyResourceId: z.string(), name: z.string().nullish(), updatedAt: z.string() })) }),
});
const countData = z.record(z.string(), z.object({ count: z.number().int(), precision: z.string() }));
const shopData = z.object({
  shop: z.object({ name: z.string(), myshopifyDomain: z.string().nullish(), currencyCode: z.string(), ianaTimezone: z.string().nullish() }),
});
const shopifyqlData = z.object({
  shopifyqlQuery: z
    .object({
      tableData: z.object({ columns: z.array(z.object({ name: z.string(), dataType: z.string().nullish() })), rows: z.unknown() }).nullish(),
      parseErrors: z.array(z.unknown()).nullish(),
    })
    .nullable(),
});
export const bulkOperationShape = z.object({
  id: z.string(),
  status: z.string(),
  errorCode: z.string().nullish(),
  objectCount: z.union([z.string(), z.number()]).nullish(),
  url: z.string().nullish(),
  partialDataUrl: z.string().nullish(),
});
export type ShopifyBulkOperation = z.infer<typeof bulkOperationShape>;
const bulkRunData = z.object({
  bulkOperationRunQuery: z.object({
    bulkOperation: bulkOperationShape.pick({ id: true, status: true }).nullish(),
    userErrors: z.array(z.object({ message: z.string(), code: z.string().nullish(), field: z.array(z.string()).nullish() })),
  }),
});
const bulkStatusData = z.object({ bulkOperation: bulkOperationShape.nullable() });

const throttleStatus = z.object({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number() });
export type ShopifyThrottleStatus = z.infer<typeof throttleStatus>;
const graphqlError = z.object({ message: z.string().optional(), path: z.array(z.union([z.string(), z.number()])).optional(), extensions: z.object({ code: z.string().optional() }).loose().optional() }).loose();
const envelope = z.object({
  data: z.unknown().optional(),
  errors: z.array(graphqlError).optional(),
  extensions: z
    .object({ cost: z.object({ requestedQueryCost: z.number().nullish(), actualQueryCost: z.number().nullish(), throttleStatus: throttleStatus.nullish() }).loose().optional() })
    .loose()
    .optional(),
});

// ---------------------------------------------------------------------------------------------
// Queries. Connection sizes are variables, sized with cost.ts so that each stays under the ceiling.

const MONEY = '{shopMoney{amount currencyCode}}';
const TAX_LINES = `taxLines{priceSet${MONEY}}`;
const VISIT = '{occurredAt landingPage referrerUrl source sourceType utmParameters{source medium campaign content term}}';

export const LINE_FIELDS = `id title sku quantity product{id} variant{id} originalUnitPriceSet${MONEY} discountedTotalSet${MONEY} ${TAX_LINES}`;
/** The order's own fields; `shippingLine` is Order's summary of all its shipping lines (price after discounts, tax lines). */
export const ORDER_FIELDS =
  `id legacyResourceId name createdAt updatedAt processedAt cancelledAt test currencyCode presentmentCurrencyCode taxesIncluded sourceName displayFinancialStatus email ` +
  `customer{id firstName lastName defaultEmailAddress{emailAddress}} subtotalPriceSet${MONEY} totalDiscountsSet${MONEY} totalTaxSet${MONEY} shippingLine{discountedPriceSet${MONEY} ${TAX_LINES}} ` +
  `customerJourneySummary{ready firstVisit${VISIT} lastVisit${VISIT}}`;
const REFUND_LINE_FIELDS = `quantity lineItem{id} subtotalSet${MONEY} totalTaxSet${MONEY}`;
const REFUND_SHIPPING_FIELDS = `subtotalAmountSet${MONEY} taxAmountSet${MONEY}`;
const ADJUSTMENT_FIELDS = `amountSet${MONEY} taxAmountSet${MONEY}`;
/** Refund shipping lines and adjustments read with a refund (more fail loudly: a refund has one or two). */
export const REFUND_PARTS_PAGE = 10;
const REFUND_FIELDS =
  `id createdAt note totalRefundedSet${MONEY} refundLineItems(first:$rl){pageInfo{hasNextPage endCursor} nodes{${REFUND_LINE_FIELDS}}} ` +
  `refundShippingLines(first:${REFUND_PARTS_PAGE}){pageInfo{hasNextPage} nodes{${REFUND_SHIPPING_FIELDS}}} orderAdjustments(first:${REFUND_PARTS_PAGE}){pageInfo{hasNextPage} nodes{${ADJUSTMENT_FIELDS}}}`;

/** A page of orders with their first `$lines` lines and their refunds' ids (the refunds are read apart). */
export const ORDERS_QUERY = `query Orders($first:Int!,$after:String,$q:String,$lines:Int!,$refunds:Int!){orders(first:$first,after:$after,query:$q,sortKey:UPDATED_AT){pageInfo{hasNextPage endCursor} nodes{${ORDER_FIELDS} lineItems(first:$lines){pageInfo{hasNextPage endCursor} nodes{${LINE_FIELDS}}} refunds(first:$refunds){id}}}}`;
/** The rest of an order's lines, after the ones its page carried. */
export const ORDER_LINES_QUERY = `query OrderLines($id:ID!,$first:Int!,$after:String){order(id:$id){lineItems(first:$first,after:$after){pageInfo{hasNextPage endCursor} nodes{${LINE_FIELDS}}}}}`;
/** Every refund id of an order whose page listed as many as it asked for. */
export const ORDER_REFUND_IDS_QUERY = 'query OrderRefundIds($id:ID!){order(id:$id){refunds(first:250){id}}}';
/** The rest of a refund's lines. */
export const REFUND_LINES_QUERY = `query RefundLines($id:ID!,$first:Int!,$after:String){refund(id:$id){refundLineItems(first:$first,after:$after){pageInfo{hasNextPage endCursor} nodes{${REFUND_LINE_FIELDS}}}}}`;

/** Refunds by id, aliased r0, r1, ...; each with its first `$rl` lines. */
export function refundsQuery(size: number): string {
  const indexes = Array.from({ length: size }, (_, index) => index);
  return `query Refunds($rl:Int!,${indexes.map((index) => `$id${index}:ID!`).join(',')}){${indexes.map((index) => `r${index}:refund(id:$id${index}){${REFUND_FIELDS}}`).join(' ')}}`;
}

export const PRODUCTS_QUERY = `query Products($first:Int!,$after:String,$q:String){products(first:$first,after:$after,query:$q,sortKey:UPDATED_AT){pageInfo{hasNextPage endCursor} nodes{id legacyResourceId title status updatedAt featuredImage{url} variants(first:1){nodes{id sku price inventoryItem{unitCost{amount currencyCode}}}}}}}`;

export const SHOP_QUERY = 'query Shop{shop{name myshopifyDomain currencyCode ianaTimezone}}';

/** Just enough of each order to reconcile a day: which orders, and when each last changed. */
export const DAY_ORDERS_QUERY = 'query DayOrders($first:Int!,$q:String){orders(first:$first,query:$q,sortKey:PROCESSED_AT){pageInfo{hasNextPage endCursor} nodes{legacyResourceId name updatedAt}}}';

/** ShopifyQL (Admin API 2025-10 and later, scope read_reports): Shopify's own analytics. */
export const SHOPIFYQL_QUERY = 'query NetSales($q:String!){shopifyqlQuery(query:$q){tableData{columns{name dataType} rows} parseErrors}}';

/**
 * The bulk export of a backfill's orders (https://shopify.dev/docs/api/usage/bulk-operations/queries):
 * at most five connections, nested at most two deep; connection nodes come back as lines of their own
 * with `__parentId` (their `__typename` tells which connection they belong to); lists (refunds) stay
 * inside their parent's line.
 */
export function bulkOrdersQuery(search: string): string {
  const node = (fields: string) => `edges{node{__typename ${fields}}}`;
  return (
    `{orders(query:${JSON.stringify(search)},sortKey:UPDATED_AT){edges{node{${ORDER_FIELDS} lineItems{${node(LINE_FIELDS)}} ` +
    `refunds{id createdAt note totalRefundedSet${MONEY} refundLineItems{${node(`id ${REFUND_LINE_FIELDS}`)}} refundShippingLines{${node(`id ${REFUND_SHIPPING_FIELDS}`)}} orderAdjustments{${node(`id ${ADJUSTMENT_FIELDS}`)}}}}}}}`
  );
}
export const BULK_RUN_MUTATION = 'mutation BulkOrders($query:String!){bulkOperationRunQuery(query:$query){bulkOperation{id status} userErrors{field message code}}}';
/** `bulkOperation(id:)`: the status query of API 2026-01 (currentBulkOperation is deprecated). */
export const BULK_STATUS_QUERY = 'query BulkStatus($id:ID!){bulkOperation(id:$id){id status errorCode objectCount url partialDataUrl}}';

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
// Query sizes: the largest pages whose requested cost stays within SHOPIFY_QUERY_COST_BUDGET.

/** Lines read with each order of a page; an order with more gets the rest from ORDER_LINES_QUERY. */
export const SHOPIFY_LINES_PER_ORDER = 5;
/** Refund ids listed with each order of a page (ORDER_REFUND_IDS_QUERY when an order has as many). */
export const SHOPIFY_REFUND_IDS_PER_ORDER = 10;
/** Lines read with each refund (REFUND_LINES_QUERY for the rest). */
export const SHOPIFY_LINES_PER_REFUND = 20;

export interface ShopifyQuerySizes {
  ordersPerPage: number;
  linesPerFollowUp: number;
  refundsPerQuery: number;
  refundLinesPerFollowUp: number;
  productsPerPage: number;
}

/** Computed once from the queries above and Shopify's cost rules (see cost.ts); `max` caps pages (tests). */
export function shopifyQuerySizes(max: { orders?: number; products?: number } = {}): ShopifyQuerySizes {
  const orderVariables = (first: number) => ({ first, lines: SHOPIFY_LINES_PER_ORDER, refunds: SHOPIFY_REFUND_IDS_PER_ORDER });
  return {
    ordersPerPage: largestFirstWithin((first) => requestedQueryCost(ORDERS_QUERY, orderVariables(first)), Math.min(max.orders ?? SHOPIFY_MAX_PAGE_SIZE, SHOPIFY_MAX_PAGE_SIZE)),
    linesPerFollowUp: largestFirstWithin((first) => requestedQueryCost(ORDER_LINES_QUERY, { first }), SHOPIFY_MAX_PAGE_SIZE),
    refundsPerQuery: largestFirstWithin((size) => requestedQueryCost(refundsQuery(size), { rl: SHOPIFY_LINES_PER_REFUND }), 25),
    refundLinesPerFollowUp: largestFirstWithin((first) => requestedQueryCost(REFUND_LINES_QUERY, { first }), SHOPIFY_MAX_PAGE_SIZE),
    productsPerPage: largestFirstWithin((first) => requestedQueryCost(PRODUCTS_QUERY, { first }), Math.min(max.products ?? SHOPIFY_MAX_PAGE_SIZE, SHOPIFY_MAX_PAGE_SIZE)),
  };
}

// ---------------------------------------------------------------------------------------------
// Throttling and errors

/** How long until the bucket holds the requested cost again: (requested - available) / restoreRate seconds. */
export function throttleWaitMs(cost: { requestedQueryCost?: number | null; throttleStatus?: ShopifyThrottleStatus | null } | undefined): number | undefined {
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

/**
 * Shopify's signals on top of the status codes: 401 (the token is refused: the runner refreshes it,
 * then disconnects if the fresh one is refused too), THROTTLED (HTTP 200), MAX_COST_EXCEEDED, and
 * ACCESS_DENIED. An ACCESS_DENIED on one field while the rest of the data comes back (a scope such as
 * read_inventory missing) is no auth failure: the answer is accepted and ShopifyClient turns it into a
 * warning. Only an answer without data is refused.
 */
export function classifyShopify(response: PlatformResponse): Verdict | undefined {
  if (response.status === 401) {
    return { kind: 'auth', reason: 'Shopify no longer accepts our access token: the app was uninstalled from the store or its access was revoked. Reconnect the store.' };
  }
  if (response.status === 402) return { kind: 'fail', reason: 'The Shopify store is frozen (its plan is unpaid), so its data cannot be read (402).' };
  if (response.status === 403) return { kind: 'auth', reason: 'Shopify denied access (403): the app is missing a permission. Reconnect the store and approve all requested permissions.' };
  if (response.status === 404) return { kind: 'fail', reason: 'Shopify does not know this store or API version (404).' };
  if (response.status === 423) return { kind: 'fail', reason: 'The Shopify store is locked (423).' };
  // Pages are large: only answers that can carry one of the error codes below are parsed here.
  if (response.status !== 200 || !/THROTTLED|ACCESS_DENIED|INTERNAL_SERVER_ERROR|MAX_COST_EXCEEDED/.test(response.text)) return undefined;
  const body = parsedEnvelope(response);
  const codes = body?.errors?.map((error) => error.extensions?.code) ?? [];
  if (codes.includes('THROTTLED')) {
    return { kind: 'retry', reason: 'Shopify query cost limit reached (THROTTLED)', afterMs: throttleWaitMs(body?.extensions?.cost) };
  }
  if (codes.includes('MAX_COST_EXCEEDED')) {
    const message = body?.errors?.find((error) => error.extensions?.code === 'MAX_COST_EXCEEDED')?.message ?? '';
    return { kind: 'fail', reason: `Shopify refused a query as too expensive (MAX_COST_EXCEEDED): ${message}` };
  }
  if (codes.includes('ACCESS_DENIED') && body?.data == null) {
    const message = body?.errors?.find((error) => error.extensions?.code === 'ACCESS_DENIED')?.message ?? '';
    return { kind: 'auth', reason: `Shopify denied access: ${message} Reconnect the store and approve all requested permissions.` };
  }
  if (codes.includes('INTERNAL_SERVER_ERROR')) return { kind: 'retry', reason: 'Shopify internal error' };
  return undefined;
}

/** What a user is told when a field is denied: the permission and what is missing without it. */
export function accessDeniedWarning(message: string, path: readonly (string | number)[] | undefined): string {
  const field = path?.filter((part): part is string => typeof part === 'string').at(-1) ?? 'a field';
  const scope = /`?(read_[a-z_]+)`?/.exec(message)?.[1];
  const consequence =
    field === 'unitCost' || field === 'inventoryItem'
      ? 'product costs are not imported, so COGS, profit and the P&L stay empty for these products (enter costs by hand, or reconnect Shopify and approve the permission)'
      : `the field "${field}" is left out of the synced data`;
  return `Shopify did not allow reading ${field}${scope ? ` (the ${scope} permission is missing)` : ''}: ${consequence}.`;
}

// ---------------------------------------------------------------------------------------------
// The client

export interface ShopifyPage<T> {
  nodes: T[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** The last throttle status a shop's API reported, per GraphQL endpoint: the bucket is per app and shop. */
const lastThrottle = new Map<string, { status: ShopifyThrottleStatus; atMs: number }>();

export class ShopifyClient {
  private readonly http: PlatformHttp;
  readonly graphqlUrl: string;
  private readonly accessToken: string;
  /** Warnings collected from answers (ACCESS_DENIED on single fields), for SyncBatch.warnings. */
  readonly warnings = new Set<string>();

  constructor(ctx: ConnectorContext) {
    const token = ctx.credentials.accessToken;
    if (!token) throw new ConnectorAuthError(SHOPIFY, 'The Shopify connection has no access token. Reconnect the store.');
    this.accessToken = token;
    this.http = ctx.http.with({ classify: classifyShopify });
    this.graphqlUrl = `${ctx.baseUrl.replace(/\/+$/, '')}/admin/api/${apiVersionOf(ctx.credentials)}/graphql.json`;
  }

  /**
   * Waits, before sending, until the shop's bucket holds the query's requested cost: what was
   * available at the last answer plus what has been restored since (restoreRate points per second).
   * https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits: "Before execution begins, an
   * app's bucket must have enough capacity for the requested cost of a query."
   */
  private async paceFor(requested: number): Promise<void> {
    const last = lastThrottle.get(this.graphqlUrl);
    if (!last || last.status.restoreRate <= 0) return;
    const elapsedMs = Math.max(0, this.http.now() - last.atMs);
    const available = Math.min(last.status.maximumAvailable, last.status.currentlyAvailable + (elapsedMs / 1000) * last.status.restoreRate);
    if (requested <= available) return;
    await this.http.pause(Math.ceil(((requested - available) / last.status.restoreRate) * 1000));
  }

  /** One GraphQL call; `data` checked against `schema`. Errors other than throttling fail the request. */
  async graphql<T>(query: string, variables: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> {
    const requested = requestedQueryCost(query, variables);
    if (requested > SHOPIFY_MAX_QUERY_COST) {
      throw new ConnectorRequestError(SHOPIFY, 0, `a query of ${requested} points was about to be sent; Shopify refuses more than ${SHOPIFY_MAX_QUERY_COST} (MAX_COST_EXCEEDED)`);
    }
    await this.paceFor(requested);
    const { data: body, response } = await this.http.json(this.graphqlUrl, envelope, {
      method: 'POST',
      headers: { 'x-shopify-access-token': this.accessToken },
      json: { query, variables },
    });
    const status = body.extensions?.cost?.throttleStatus;
    if (status) lastThrottle.set(this.graphqlUrl, { status, atMs: this.http.now() });
    const denied = body.errors?.filter((error) => error.extensions?.code === 'ACCESS_DENIED') ?? [];
    const otherErrors = body.errors?.filter((error) => error.extensions?.code !== 'ACCESS_DENIED') ?? [];
    if ((body.errors?.length && body.data == null) || otherErrors.length) {
      const messages = (body.errors ?? []).map((error) => error.message ?? error.extensions?.code ?? 'error').join('; ');
      throw new ConnectorRequestError(SHOPIFY, response.status, `GraphQL errors: ${messages}`);
    }
    for (const error of denied) this.warnings.add(accessDeniedWarning(error.message ?? '', error.path));
    const parsed = schema.safeParse(body.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MalformedResponseError(SHOPIFY, `data.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'unexpected shape'}`);
    }
    return parsed.data;
  }

  async orders(first: number, after: string | null, search: string): Promise<ShopifyPage<ShopifyOrderNode>> {
    const { orders } = await this.graphql(ORDERS_QUERY, { first, after, q: search, lines: SHOPIFY_LINES_PER_ORDER, refunds: SHOPIFY_REFUND_IDS_PER_ORDER }, ordersData);
    return { nodes: orders.nodes, hasNextPage: orders.pageInfo.hasNextPage, endCursor: orders.pageInfo.endCursor ?? null };
  }

  async orderLines(orderId: string, first: number, after: string | null): Promise<ShopifyPage<ShopifyLineNode>> {
    const { order } = await this.graphql(ORDER_LINES_QUERY, { id: orderId, first, after }, orderLinesData);
    if (!order) throw new MalformedResponseError(SHOPIFY, `order ${orderId} vanished while its lines were read`);
    return { nodes: order.lineItems.nodes, hasNextPage: order.lineItems.pageInfo.hasNextPage, endCursor: order.lineItems.pageInfo.endCursor ?? null };
  }

  async orderRefundIds(orderId: string): Promise<string[]> {
    const { order } = await this.graphql(ORDER_REFUND_IDS_QUERY, { id: orderId }, orderRefundIdsData);
    return order?.refunds.map((refund) => refund.id) ?? [];
  }

  /** Refunds by id (in groups of `perQuery`), each with its first SHOPIFY_LINES_PER_REFUND lines. */
  async refunds(ids: string[], perQuery: number): Promise<ShopifyRefundNode[]> {
    const refunds: ShopifyRefundNode[] = [];
    for (let start = 0; start < ids.length; start += perQuery) {
      const chunk = ids.slice(start, start + perQuery);
      const schema = z.record(z.string(), shopifyRefundNode.nullable());
      const data = await this.graphql(refundsQuery(chunk.length), { rl: SHOPIFY_LINES_PER_REFUND, ...Object.fromEntries(chunk.map((id, index) => [`id${index}`, id])) }, schema);
      chunk.forEach((id, index) => {
        const refund = data[`r${index}`];
        if (!refund) throw new MalformedResponseError(SHOPIFY, `refund ${id} vanished while it was read`);
        refunds.push(refund);
      });
    }
    return refunds;
  }

  async refundLines(refundId: string, first: number, after: string | null): Promise<ShopifyPage<z.infer<typeof refundLineNode>>> {
    const { refund } = await this.graphql(REFUND_LINES_QUERY, { id: refundId, first, after }, refundLinesData);
    if (!refund) throw new MalformedResponseError(SHOPIFY, `refund ${refundId} vanished while its lines were read`);
    return { nodes: refund.refundLineItems.nodes, hasNextPage: refund.refundLineItems.pageInfo.hasNextPage, endCursor: refund.refundLineItems.pageInfo.endCursor ?? null };
  }

  async products(first: number, after: string | null, search: string | null): Promise<ShopifyPage<ShopifyProductNode>> {
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

  /** A ShopifyQL query's rows (objects keyed by column name); null when Shopify did not return a table. */
  async shopifyql(query: string): Promise<Record<string, unknown>[] | null> {
    const { shopifyqlQuery } = await this.graphql(SHOPIFYQL_QUERY, { q: query }, shopifyqlData);
    if (!shopifyqlQuery?.tableData || shopifyqlQuery.parseErrors?.length) return null;
    const rows = shopifyqlQuery.tableData.rows;
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : null;
  }

  /** Starts a bulk query; the user errors (e.g. too many operations running) come back instead of an operation. */
  async runBulkQuery(query: string): Promise<{ operation: { id: string; status: string } | null; userErrors: { message: string; code?: string | null }[] }> {
    const { bulkOperationRunQuery } = await this.graphql(BULK_RUN_MUTATION, { query }, bulkRunData);
    return { operation: bulkOperationRunQuery.bulkOperation ?? null, userErrors: bulkOperationRunQuery.userErrors };
  }

  async bulkOperation(id: string): Promise<ShopifyBulkOperation | null> {
    return (await this.graphql(BULK_STATUS_QUERY, { id }, bulkStatusData)).bulkOperation;
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
