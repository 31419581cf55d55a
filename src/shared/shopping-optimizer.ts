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

export const feedAuditOutput = z.object({
  products: z.array(auditedProduct),
  totals: z.partialRecord(z.enum(FEED_ISSUE_TYPES), z.number().int()),
  averageScore: z.number().int().nullable(),
  /** Per-product Google Ads figures; null: the Google Ads data the app stores has no per-product rows. */
  adsPerformance: z.null(),
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
