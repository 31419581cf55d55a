import { z } from 'zod';
import { CHANNELS, dayString, ORDER_STATUSES } from './commerce.ts';
import { currencySchema, storeIdSchema } from './stores.ts';

// The orders table (/orders), its detail drawer and its CSV export (GET /api/orders/export.csv) share
// one filter schema, so the table and the file always hold the same orders.

/** Store platforms whose orders StorePulse imports. */
export const ORDER_PLATFORMS = ['shopify', 'woocommerce'] as const;

export const CUSTOMER_TYPES = ['new', 'returning'] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

export const ORDER_SORTS = ['placedAt', 'netSales', 'gross', 'total', 'orderNumber'] as const;
export type OrderSort = (typeof ORDER_SORTS)[number];

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export const ORDER_PAGE_SIZES = [25, 50, 100] as const;
export type OrderPageSize = (typeof ORDER_PAGE_SIZES)[number];

/**
 * Offset paging stops here: deeper pages cost a scan of every row before them. The CSV export has
 * no such limit (it walks the set by keyset).
 */
export const MAX_ORDERS_OFFSET = 10_000;

/** Above this many matching orders the count stops and the table says "10,000+". */
export const ORDERS_COUNT_CAP = 10_000;

export const ORDER_SEARCH_MAX_LENGTH = 200;

const ordersFilterFields = z.object({
    /** Store days (the store's time zone), both included. */
    from: dayString.optional(),
    to: dayString.optional(),
    statuses: z.array(z.enum(ORDER_STATUSES, { error: `Status must be one of ${ORDER_STATUSES.join(', ')}` })).max(ORDER_STATUSES.length).optional(),
    channels: z.array(z.enum(CHANNELS, { error: `Channel must be one of ${CHANNELS.join(', ')}` })).max(CHANNELS.length).optional(),
    customerType: z.enum(CUSTOMER_TYPES, { error: 'Customer type must be new or returning' }).optional(),
    platforms: z.array(z.enum(ORDER_PLATFORMS, { error: `Platform must be one of ${ORDER_PLATFORMS.join(', ')}` })).max(ORDER_PLATFORMS.length).optional(),
    /** Order number, external id, the customer's exact e-mail, or a product title or SKU of the order. */
    search: z.string().trim().max(ORDER_SEARCH_MAX_LENGTH, `Search text must be at most ${ORDER_SEARCH_MAX_LENGTH} characters`).optional(),
    sort: z.enum(ORDER_SORTS, { error: `Sort must be one of ${ORDER_SORTS.join(', ')}` }).default('placedAt'),
    direction: z.enum(SORT_DIRECTIONS, { error: 'Direction must be asc or desc' }).default('desc'),
    /** Display currency for the converted amounts; defaults to the store's. */
    currency: currencySchema.optional(),
    /** Another store the caller may see; defaults to the active store. */
    storeId: storeIdSchema.optional(),
});

function rangeIsOrdered(input: { from?: string; to?: string }): boolean {
  return !input.from || !input.to || input.from <= input.to;
}

const RANGE_ORDER_ISSUE = { message: 'The start date must not be after the end date', path: ['from'] };

export const ordersFilterInput = ordersFilterFields.refine(rangeIsOrdered, RANGE_ORDER_ISSUE);

export type OrdersFilterInput = z.input<typeof ordersFilterInput>;
export type OrdersFilter = z.output<typeof ordersFilterInput>;

export const ordersListInput = ordersFilterFields
  .extend({
    page: z.number({ error: 'Page must be a number' }).int('Page must be a whole number').min(1, 'Page must be at least 1').default(1),
    pageSize: z
      .number()
      .refine((size) => (ORDER_PAGE_SIZES as readonly number[]).includes(size), `Page size must be one of ${ORDER_PAGE_SIZES.join(', ')}`)
      .default(25),
  })
  .refine(rangeIsOrdered, RANGE_ORDER_ISSUE)
  .refine((input) => (input.page - 1) * input.pageSize < MAX_ORDERS_OFFSET, {
    message: `Only the first ${MAX_ORDERS_OFFSET.toLocaleString('en')} orders can be paged through: narrow the filters or export CSV`,
    path: ['page'],
  });

export type OrdersListInput = z.input<typeof ordersListInput>;

const moneyBreakdown = z.object({
  /** What the customer paid: gross − discounts + shipping + taxes (before refunds). */
  total: z.number(),
  gross: z.number(),
  discounts: z.number(),
  shipping: z.number(),
  taxes: z.number(),
  refunds: z.number(),
  netSales: z.number(),
});

export type OrderMoney = z.infer<typeof moneyBreakdown>;

export const orderRowOutput = z.object({
  id: z.number(),
  orderNumber: z.string().nullable(),
  externalId: z.string(),
  /** ISO instant (UTC). */
  placedAt: z.string(),
  /** Store day. */
  placedDay: z.string(),
  platform: z.string(),
  status: z.enum(ORDER_STATUSES),
  isTest: z.boolean(),
  /** False for cancelled and test orders: listed, but they count in no total. */
  counts: z.boolean(),
  channel: z.string(),
  /** The customer's first counting order (a guest checkout is one); false for cancelled and test orders, which are neither. */
  isNewCustomer: z.boolean(),
  /** The order's own currency; `amounts` are in its minor units. */
  currency: z.string(),
  amounts: moneyBreakdown,
  /** The same amounts in the display currency at the rate of the order's day. */
  displayAmounts: moneyBreakdown,
  /** Units over all lines. */
  items: z.number(),
  /** The buyer as the platform knows them (its customer id; names and e-mails are not kept), with their counting orders; null for a guest checkout. */
  customer: z.object({ externalId: z.string(), ordersCount: z.number() }).nullable(),
});

export type OrderRow = z.infer<typeof orderRowOutput>;

export const ordersListOutput = z.object({
  storeId: z.number(),
  /** Display currency of `displayAmounts`. */
  currency: z.string(),
  page: z.number(),
  pageSize: z.number(),
  /** Orders matching the filters (cancelled and test ones included), up to ORDERS_COUNT_CAP. */
  total: z.number(),
  /** False when the count stopped at ORDERS_COUNT_CAP: there are more. */
  totalIsExact: z.boolean(),
  rows: z.array(orderRowOutput),
});

export type OrdersListOutput = z.infer<typeof ordersListOutput>;

export const orderDetailInput = z.object({
  orderId: z.coerce.number({ error: 'Order id must be a number' }).int('Order id must be a whole number').positive('Order id must be a positive number'),
  currency: currencySchema.optional(),
  storeId: storeIdSchema.optional(),
});

export const orderDetailOutput = z.object({
  storeId: z.number(),
  currency: z.string(),
  order: orderRowOutput.extend({
    updatedAt: z.string(),
  }),
  lines: z.array(
    z.object({
      id: z.number(),
      title: z.string(),
      sku: z.string().nullable(),
      quantity: z.number(),
      /** Minor units of the order's currency. */
      unitPrice: z.number(),
      /** On the whole line. */
      discount: z.number(),
      /** Null when the cost is unknown. */
      unitCost: z.number().nullable(),
      /** quantity x unit price - discount */
      total: z.number(),
    }),
  ),
  refunds: z.array(
    z.object({
      id: z.number(),
      refundedAt: z.string(),
      refundedDay: z.string(),
      amount: z.number(),
      currency: z.string(),
      reason: z.string().nullable(),
    }),
  ),
  attribution: z.object({
    channel: z.string(),
    landingSite: z.string().nullable(),
    referrer: z.string().nullable(),
    utmSource: z.string().nullable(),
    utmMedium: z.string().nullable(),
    utmCampaign: z.string().nullable(),
    utmContent: z.string().nullable(),
    utmTerm: z.string().nullable(),
    gclid: z.string().nullable(),
    fbclid: z.string().nullable(),
    msclkid: z.string().nullable(),
    ttclid: z.string().nullable(),
  }),
  /** Null for a guest checkout. No e-mail: StorePulse keeps only its hash. */
  customer: z
    .object({
      id: z.number(),
      externalId: z.string(),
      firstOrderAt: z.string().nullable(),
      ordersCount: z.number(),
      /** Net sales of the customer's counting orders, in minor units of `totalSpentCurrency` (the store's). */
      totalSpent: z.number(),
      totalSpentCurrency: z.string(),
    })
    .nullable(),
});

export type OrderDetailOutput = z.infer<typeof orderDetailOutput>;

/** What the CSV route learns from the procedure: the store it may read and the parsed filters. */
export const ordersExportScopeOutput = z.object({
  storeId: z.number(),
  /** The store's own currency (the display currency unless the filter names one). */
  currency: z.string(),
  timezone: z.string(),
  filter: ordersFilterInput,
});
