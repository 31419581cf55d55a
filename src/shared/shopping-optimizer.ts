import { z } from 'zod';

// The shopping feed optimizer (modules/shopping-optimizer): schemas shared by the screen and the server.

/** Attributes of Google's product data specification that the user may override in the feed. */
export const FEED_ATTRIBUTES = ['title', 'description', 'brand', 'gtin', 'mpn', 'link', 'image_link', 'condition'] as const;
export type FeedAttribute = (typeof FEED_ATTRIBUTES)[number];

/** Every problem the audit reports, in the order the screen's tiles show them. */
export const FEED_ISSUE_TYPES = [
  'missing_title',
  'title_too_long',
  'title_all_caps',
  'title_promotional',
  'title_structure',
  'missing_description',
  'description_too_long',
  'description_all_caps',
  'description_promotional',
  'missing_link',
  'missing_image',
  'invalid_price',
  'missing_brand',
  'missing_identifier',
  'invalid_gtin',
  'id_too_long',
  'page_price_mismatch',
  'page_availability_mismatch',
  'page_error',
] as const;
export type FeedIssueType = (typeof FEED_ISSUE_TYPES)[number];

export const FEED_CONDITIONS = ['new', 'refurbished', 'used'] as const;

export const FEED_TITLE_MAX = 150;
export const FEED_DESCRIPTION_MAX = 5000;
export const FEED_ID_MAX = 50;

/** Why a product page could not be compared: the page fetcher's reasons, and a page without a readable price. */
export const PAGE_CHECK_ERRORS = ['robots', 'unsafe_address', 'http_status', 'content_type', 'too_large', 'timeout', 'network', 'no_price'] as const;
export type PageCheckError = (typeof PAGE_CHECK_ERRORS)[number];
export const PAGE_CHECK_OUTCOMES = ['match', 'price_differs', 'availability_differs', 'page_error'] as const;
export type PageCheckOutcome = (typeof PAGE_CHECK_OUTCOMES)[number];
export const PAGE_CHECK_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

/** What the last page check read on one product's page, beside what the feed sends. */
export const pageCheckResult = z.object({
  productId: z.number().int(),
  url: z.string(),
  outcome: z.enum(PAGE_CHECK_OUTCOMES),
  pagePriceMinor: z.number().int().nullable(),
  pageCurrency: z.string().nullable(),
  pageAvailability: z.enum(['in_stock', 'out_of_stock', 'unknown']).nullable(),
  feedPriceMinor: z.number().int(),
  feedCurrency: z.string(),
  feedAvailability: z.enum(['in_stock', 'out_of_stock']),
  error: z.enum(PAGE_CHECK_ERRORS).nullable(),
  /** The HTTP status of an http_status error. */
  httpStatus: z.number().int().nullable(),
});
export type PageCheckResult = z.infer<typeof pageCheckResult>;

export const pageCheckState = z.object({
  status: z.enum(PAGE_CHECK_STATUSES),
  /** Products read so far, of `total` (those with a link). */
  checked: z.number().int(),
  total: z.number().int(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type PageCheckState = z.infer<typeof pageCheckState>;

export const feedIssue = z.object({
  type: z.enum(FEED_ISSUE_TYPES),
  severity: z.enum(['error', 'warning']),
  attribute: z.string(),
  /** Page check issues: what the page said. */
  page: pageCheckResult.optional(),
});
export type FeedIssue = z.infer<typeof feedIssue>;

export const feedSuggestion = z.object({
  attribute: z.enum(FEED_ATTRIBUTES),
  value: z.string(),
  source: z.enum(['rules', 'llm']),
});
export type FeedSuggestion = z.infer<typeof feedSuggestion>;

export const auditedProduct = z.object({
  productId: z.number().int(),
  /** g:id: the platform's product id. */
  offerId: z.string(),
  title: z.string(),
  score: z.number().int().min(0).max(100),
  issues: z.array(feedIssue),
  suggestions: z.array(feedSuggestion),
  overrides: z.partialRecord(z.enum(FEED_ATTRIBUTES), z.string()),
  active: z.boolean(),
});
export type AuditedProduct = z.infer<typeof auditedProduct>;

/** How the product list can be ordered; spend is the products' Google Ads cost in the window. */
export const AUDIT_SORTS = ['score', 'issues', 'spend', 'title'] as const;
export type AuditSort = (typeof AUDIT_SORTS)[number];
/** The windows (days up to today, in the store's zone) the Google Ads figures can cover. */
export const ADS_WINDOW_DAYS = [7, 30, 90] as const;
export const AUDIT_PAGE_SIZE = 25;

/** One page of the product list: paged, sorted and filtered by the server (a store may have 20,000 products). */
export const feedAuditInput = z
  .object({
    page: z.number().int().min(1).max(100_000).default(1),
    pageSize: z.number().int().min(1).max(100).default(AUDIT_PAGE_SIZE),
    sort: z.enum(AUDIT_SORTS).default('score'),
    direction: z.enum(['asc', 'desc']).default('asc'),
    issue: z.enum(FEED_ISSUE_TYPES).nullable().default(null),
    /** Part of a title or an offer id, any case. */
    search: z.string().trim().max(100).default(''),
    days: z.union([z.literal(7), z.literal(30), z.literal(90)]).default(30),
  })
  .prefault({});
export type FeedAuditInput = z.input<typeof feedAuditInput>;

/** A product's Google Ads shopping figures over the window, cost converted into the store's currency at each day's rate. */
export const productAdsFigures = z.object({
  clicks: z.number().int(),
  impressions: z.number().int(),
  costMinor: z.number().int(),
  conversions: z.number(),
});
export type ProductAdsFigures = z.infer<typeof productAdsFigures>;

export const auditRow = auditedProduct.extend({ ads: productAdsFigures.nullable() });
export type AuditRow = z.infer<typeof auditRow>;

export const adsPerformance = z.object({
  /** not_connected: no Google Ads data at all; no_rows: Google Ads, but no shopping rows in the window. */
  status: z.enum(['not_connected', 'no_rows', 'ready']),
  days: z.number().int(),
  from: z.string(),
  to: z.string(),
  currency: z.string(),
  /** Cost of every product row in the window, matched to a product of the store or not. */
  costMinor: z.number().int(),
  /** Item ids Google reported that match no active product of the store (renamed or removed offers). */
  unmatchedItems: z.number().int(),
});
export type AdsPerformance = z.infer<typeof adsPerformance>;

export const feedAuditOutput = z.object({
  /** The requested page of the products that match the filter, in the requested order. */
  products: z.array(auditRow),
  /** Products that match the filter (all pages). */
  matching: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Every active product of the store, whatever the filter. */
  productCount: z.number().int(),
  /** Rule suggestions of the products that match the filter, and how many products carry them (the bulk button). */
  suggestionCount: z.number().int(),
  productsWithSuggestions: z.number().int(),
  /** Totals and average over every active product, whatever the filter. */
  totals: z.partialRecord(z.enum(FEED_ISSUE_TYPES), z.number().int()),
  averageScore: z.number().int().nullable(),
  adsPerformance,
  /** The last "Check product pages" run of the store, null when never run. */
  pageCheck: pageCheckState.nullable(),
});
export type FeedAuditOutput = z.infer<typeof feedAuditOutput>;

const overrideValue = z.string().trim().max(FEED_DESCRIPTION_MAX);

export const setOverrideInput = z.object({
  productId: z.number().int().positive(),
  attribute: z.enum(FEED_ATTRIBUTES),
  value: overrideValue.min(1),
});

export const acceptSuggestionsInput = z.object({
  /** The products whose rule suggestions to accept; all of the store's when absent. */
  productIds: z.array(z.number().int().positive()).max(10_000).optional(),
  /** Or those matching the product list's filter (issue type, search). */
  filter: z.object({ issue: z.enum(FEED_ISSUE_TYPES).nullable(), search: z.string().trim().max(100) }).optional(),
  attributes: z.array(z.enum(FEED_ATTRIBUTES)).min(1).default([...FEED_ATTRIBUTES]),
});

export const feedSettingsInput = z.object({
  /** The shop's product address with {id} or {sku} in it, e.g. https://shop.example/products/{id}. */
  linkTemplate: z
    .string()
    .trim()
    .max(500)
    .refine((value) => value === '' || /^https?:\/\/[^\s]+$/i.test(value), { message: 'Enter an address starting with https:// or http://' }),
  defaultBrand: z.string().trim().max(70),
});

export const feedSettingsOutput = z.object({
  xmlUrl: z.string(),
  tsvUrl: z.string(),
  linkTemplate: z.string(),
  defaultBrand: z.string(),
  llmConfigured: z.boolean(),
});
