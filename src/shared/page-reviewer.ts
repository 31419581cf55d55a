import { z } from 'zod';
import { AD_PLATFORMS } from './marketing.ts';

// The landing page reviewer's contract between server and client (modules/page-reviewer, pages/page-reviewer).
// Texts of findings and steps are codes here; the client translates them (locales/<language>/page-reviewer.json).

export const REVIEW_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const REVIEW_STEPS = ['queued', 'fetching', 'parsing', 'loading', 'links', 'suggestions', 'scoring', 'done', 'failed'] as const;
export type ReviewStep = (typeof REVIEW_STEPS)[number];

export const REVIEW_CATEGORIES = ['performance', 'seo', 'conversion', 'trust', 'accessibility'] as const;
export type ReviewCategory = (typeof REVIEW_CATEGORIES)[number];

/** 'pass' is a check that found nothing to fix; the others are ordered by how much they cost. */
export const FINDING_SEVERITIES = ['high', 'medium', 'low', 'pass'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

export const FINDING_CODES = [
  'lcp', 'tbt', 'cls', 'page_weight', 'request_count',
  'title_length', 'meta_description', 'h1', 'readability', 'broken_links',
  'cta_above_fold', 'product_jsonld',
  'trust_signals',
  'image_alt', 'viewport_meta',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export const findingSchema = z.object({
  code: z.enum(FINDING_CODES),
  category: z.enum(REVIEW_CATEGORIES),
  severity: z.enum(FINDING_SEVERITIES),
  /** What was seen: the element (a selector or tag) and the value measured or found. */
  evidence: z.object({ element: z.string().nullable(), value: z.string().nullable() }),
});
export type Finding = z.infer<typeof findingSchema>;

export const reviewMetricsSchema = z.object({
  fcpMs: z.number().nullable(),
  lcpMs: z.number().nullable(),
  tbtMs: z.number().nullable(),
  cls: z.number().nullable(),
  pageBytes: z.number().nullable(),
  requests: z.number().nullable(),
  fleschReadingEase: z.number().nullable(),
});
export type ReviewMetrics = z.infer<typeof reviewMetricsSchema>;

export const reviewScoresSchema = z.object({
  overall: z.number().int(),
  performance: z.number().int(),
  seo: z.number().int(),
  conversion: z.number().int(),
  trust: z.number().int(),
  accessibility: z.number().int(),
});
export type ReviewScores = z.infer<typeof reviewScoresSchema>;

export const aiSuggestionsSchema = z.object({
  headline: z.string(),
  cta: z.string(),
  hypotheses: z.array(z.string()),
});
export type AiSuggestions = z.infer<typeof aiSuggestionsSchema>;

const reviewUrl = z
  .string()
  .trim()
  .min(1, 'Enter the address of the page to review.')
  .max(2000, 'The address is too long (2000 characters at most).')
  .refine((value) => {
    try {
      const parsed = new URL(value);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'Enter a full web address starting with http:// or https://.');

export const startReviewInput = z.object({
  url: reviewUrl,
  /** One of the active store's products the page sells (optional). */
  productId: z.number().int().positive().optional(),
  /** One of the active store's advertising campaigns the page is for (optional). */
  campaign: z.object({ platform: z.enum(AD_PLATFORMS), id: z.string().trim().min(1).max(64) }).optional(),
});
export const reviewProductsSchema = z.object({ items: z.array(z.object({ id: z.number().int(), title: z.string() })) });
/** A campaign of the store, as the marketing module knows it (ad_metrics_daily), with its latest name. */
export const reviewCampaignSchema = z.object({ platform: z.enum(AD_PLATFORMS), id: z.string(), name: z.string() });
export type ReviewCampaign = z.infer<typeof reviewCampaignSchema>;
export const reviewCampaignsSchema = z.object({ items: z.array(reviewCampaignSchema) });
export const reviewIdInput = z.object({ id: z.coerce.number().int().positive() });

export const reviewSummarySchema = z.object({
  id: z.number().int(),
  url: z.string(),
  productTitle: z.string().nullable(),
  /** The campaign picked when the review was started, with its name then. */
  campaign: reviewCampaignSchema.nullable(),
  status: z.enum(REVIEW_STATUSES),
  progress: z.number().int(),
  step: z.enum(REVIEW_STEPS),
  error: z.string().nullable(),
  scores: reviewScoresSchema.nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ReviewSummary = z.infer<typeof reviewSummarySchema>;

export const reviewDetailSchema = reviewSummarySchema.extend({
  finalUrl: z.string().nullable(),
  findings: z.array(findingSchema),
  metrics: reviewMetricsSchema.nullable(),
  screenshots: z.object({ aboveFold: z.boolean(), fullPage: z.boolean() }),
  /** null: the optional LLM is not configured (or gave no usable answer). */
  aiSuggestions: aiSuggestionsSchema.nullable(),
  aiConfigured: z.boolean(),
  previous: reviewSummarySchema.nullable(),
});
export type ReviewDetail = z.infer<typeof reviewDetailSchema>;

export const reviewListSchema = z.object({ items: z.array(reviewSummarySchema) });

export const SCREENSHOT_KINDS = ['above-fold', 'full-page'] as const;
export type ScreenshotKind = (typeof SCREENSHOT_KINDS)[number];
export const screenshotPath = (id: number, kind: ScreenshotKind) => `/api/landing-page-reviews/${id}/screenshots/${kind}.jpg`;
