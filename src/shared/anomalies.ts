import { z } from 'zod';

// Anomaly insights: what the detection job finds per store and what the dashboard's panel and
// GET /api/anomalies show (issue 18; README, "Anomaly insights").

export const ANOMALY_METRICS = [
  'net_sales',
  'orders',
  'aov',
  'marketing_spend',
  'roas',
  'cac',
  'refunds',
  'new_customer_share',
  /** A tracking problem: spend keeps flowing while the scope's conversions stay flat. */
  'spend_without_conversions',
  /** A tracking problem: pixel purchases and the shop's orders differ by more than 20 %. */
  'pixel_order_divergence',
] as const;
export type AnomalyMetric = (typeof ANOMALY_METRICS)[number];

export const ANOMALY_SCOPE_LEVELS = ['store', 'channel', 'campaign'] as const;
export type AnomalyScopeLevel = (typeof ANOMALY_SCOPE_LEVELS)[number];

export const ANOMALY_SEVERITIES = ['low', 'medium', 'high'] as const;
export type AnomalySeverity = (typeof ANOMALY_SEVERITIES)[number];

export const ANOMALY_STATES = ['new', 'acknowledged', 'resolved'] as const;
export type AnomalyState = (typeof ANOMALY_STATES)[number];

export const anomalyScope = z.object({
  level: z.enum(ANOMALY_SCOPE_LEVELS),
  /** The channel key (as in the rollups) for channel and campaign scopes, else null. */
  channel: z.string().nullable(),
  /** The platform's campaign id for campaign scopes, else null. */
  campaignId: z.string().nullable(),
  /** What the user reads: the store's, channel's or campaign's name. */
  label: z.string(),
});
export type AnomalyScope = z.infer<typeof anomalyScope>;

/** A templated recommendation: the client (and the REST adapter, in the caller's language) renders it. */
export const anomalyRecommendation = z.object({
  code: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type AnomalyRecommendation = z.infer<typeof anomalyRecommendation>;

/** One point of the evidence chart: the series, the expected value and the robust band around it. */
export const anomalyEvidencePoint = z.object({
  /** YYYY-MM-DD in the store's time zone (or YYYY-MM-DDTHH for intra-day evidence). */
  at: z.string(),
  value: z.number().nullable(),
  expected: z.number().nullable(),
  lower: z.number().nullable(),
  upper: z.number().nullable(),
});
export type AnomalyEvidencePoint = z.infer<typeof anomalyEvidencePoint>;

export const anomalyItem = z.object({
  id: z.string(),
  metric: z.enum(ANOMALY_METRICS),
  scope: anomalyScope,
  /** The settled day the anomaly is about, YYYY-MM-DD in the store's time zone. */
  day: z.string(),
  /** True when it compares today so far with the same hours of the baseline days. */
  intraday: z.boolean(),
  /** Money metrics in the store's currency as decimal numbers; ratios as ratios (ROAS 2.5, share 0.31). */
  detectedValue: z.number(),
  expectedValue: z.number(),
  /** (detected − expected) / expected × 100; null when the expected value is 0. */
  percentChange: z.number().nullable(),
  severity: z.enum(ANOMALY_SEVERITIES),
  recommendation: anomalyRecommendation,
  evidence: z.array(anomalyEvidencePoint),
  state: z.enum(ANOMALY_STATES),
  /** ISO timestamp. */
  detectedAt: z.string(),
  /** Who acknowledged or resolved it, and when (ISO); null while new. */
  stateChangedBy: z.string().nullable(),
  stateChangedAt: z.string().nullable(),
});
export type AnomalyItem = z.infer<typeof anomalyItem>;

export const anomalyList = z.object({
  status: z.enum(['normal', 'detected']),
  /** Newest and most severe first. */
  items: z.array(anomalyItem),
  /** When the detection last ran for the store (ISO), null before its first run. */
  checkedAt: z.string().nullable(),
});
export type AnomalyList = z.infer<typeof anomalyList>;

export const anomalyIdInput = z.object({ id: z.string().min(1) });

/**
 * The recommendations the detection's templated rules give (README, "Anomaly insights"). Each is a
 * sentence in every language in src/shared/anomaly-recommendations.ts (the one source the panel, the
 * REST adapter and the e-mails read), filled with the recommendation's params: `scope` (the store's,
 * channel's or campaign's name) and `change` (the percent change, signed e.g. "+42" or "-100" for the
 * sentences that say "changed by", its size for those that say "rose" or "fell").
 */
export const ANOMALY_RECOMMENDATION_CODES = [
  /** A campaign's or channel's spend rose while its ROAS fell (or a campaign's spend spiked): check bids and budget. */
  'check_bids_budget',
  /** Spend continues while the scope's orders or conversions dropped to (near) zero. */
  'check_tracking_landing',
  /** Pixel purchases and the shop's orders diverge by more than 20 %. */
  'check_pixel_installation',
  /** Refunds surged. */
  'check_refund_reasons',
  /** Orders or net sales fell: check the shop, checkout and stock. */
  'check_checkout_stock',
  /** Orders or net sales rose: find the source and lean into it. */
  'find_growth_source',
  /** The average order value moved: check discounts, prices and bundles. */
  'check_discounts_pricing',
  /** A ROAS fell without a spend increase: review targeting and creatives. */
  'review_targeting_creatives',
  /** CAC rose: review acquisition costs. */
  'review_acquisition_costs',
  /** Marketing spend moved without a matching change in sales. */
  'check_spend_pacing',
  /** The share of new customers moved. */
  'review_customer_mix',
] as const;
export type AnomalyRecommendationCode = (typeof ANOMALY_RECOMMENDATION_CODES)[number];

/** Which way a metric's move counts as the bad one ('both' for metrics where either surprise matters). */
export const ANOMALY_MONEY_METRICS: readonly AnomalyMetric[] = ['net_sales', 'aov', 'marketing_spend', 'cac', 'refunds'];

/** The REST shape of GET /api/anomalies (issue 18, "REST surface"): the recommendation as text in the caller's language. */
export const anomalyRestItem = z.object({
  id: z.string(),
  metric: z.enum(ANOMALY_METRICS),
  scope: anomalyScope,
  detectedValue: z.number(),
  expectedValue: z.number(),
  percentChange: z.number().nullable(),
  severity: z.enum(ANOMALY_SEVERITIES),
  recommendation: z.string(),
  state: z.enum(ANOMALY_STATES),
  detectedAt: z.string(),
});
export const anomalyRestList = z.object({ status: z.enum(['normal', 'detected']), items: z.array(anomalyRestItem) });
/** `lang`: the language of the recommendation sentences (en, es, fr, de; a tag such as es-ES or an Accept-Language value works too; default en). */
export const anomalyRestListInput = z.object({ lang: z.string().max(200).optional() });
export const anomalyRestState = z.object({ id: z.string(), state: z.enum(ANOMALY_STATES), stateChangedAt: z.string().nullable() });
