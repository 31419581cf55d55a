// The order, channel, comparison and KPI vocabulary without zod: the client's first load (date
// range picker, dashboard) imports these, and zod (~25 KB gzipped) waits for the screens with forms.
// commerce.ts re-exports everything here beside the schemas.

/**
 * 'pending': placed, payment pending (counts, as the platforms' own sales reports count it);
 * 'unpaid': placed but never paid (WooCommerce's pending payment and failed orders, which
 * WooCommerce Analytics leaves out): like 'cancelled', listed but counted nowhere.
 */
export const ORDER_STATUSES = ['paid', 'pending', 'refunded', 'partially_refunded', 'cancelled', 'unpaid'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses whose orders count in no figure (with test orders). */
export const NOT_COUNTING_STATUSES = ['cancelled', 'unpaid'] as const satisfies readonly OrderStatus[];

/** Whether an order counts in sales, orders, customers and every other figure. */
export function isCountingOrder(status: string, isTest: boolean): boolean {
  return !isTest && !(NOT_COUNTING_STATUSES as readonly string[]).includes(status);
}

/** The same rule in SQL, over the columns `status` and `is_test` of a table alias (or none). */
export function countingOrderSql(alias = ''): string {
  const prefix = alias ? `${alias}.` : '';
  return `${prefix}status not in (${NOT_COUNTING_STATUSES.map((status) => `'${status}'`).join(', ')}) and not ${prefix}is_test`;
}

export const EXPENSE_RECURRENCES = ['monthly', 'one_off'] as const;
export type ExpenseRecurrence = (typeof EXPENSE_RECURRENCES)[number];

/** Paid advertising platforms: their key is both a platform key and the channel of the orders they bring. */
export const AD_CHANNELS = ['googleads', 'metaads', 'bingads', 'tiktokads'] as const;
const AD_CHANNEL_SET: ReadonlySet<string> = new Set(AD_CHANNELS);
/** Whether spend on this channel is advertising spend (ROAS's denominator), not only marketing spend. */
export function isAdChannel(channel: string): boolean {
  return AD_CHANNEL_SET.has(channel);
}
/** E-mail platforms, likewise. */
export const EMAIL_CHANNELS = ['klaviyo', 'omnisend', 'mailchimp', 'email'] as const;
/** Where an order came from when no marketing platform can claim it. */
export const UNPAID_CHANNELS = ['organic_search', 'organic_social', 'referral', 'direct'] as const;

export const CHANNELS = [...AD_CHANNELS, ...EMAIL_CHANNELS, ...UNPAID_CHANNELS] as const;
export type Channel = (typeof CHANNELS)[number];

/** Channels whose orders are attributed to marketing spend (ROAS counts their net sales). */
export const MARKETING_CHANNELS: readonly Channel[] = [...AD_CHANNELS, ...EMAIL_CHANNELS];

export function isMarketingChannel(channel: string): boolean {
  return (MARKETING_CHANNELS as readonly string[]).includes(channel);
}

export const COMPARISONS = ['previous_period', 'previous_year', 'none'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** The longest range the KPI endpoints accept (a little over two years, for year-on-year views). */
export const MAX_RANGE_DAYS = 800;

export const KPI_KEYS = ['netSales', 'spend', 'clicks', 'orders', 'roas', 'cac', 'mer', 'aov', 'ltv'] as const;
export type KpiKey = (typeof KPI_KEYS)[number];
