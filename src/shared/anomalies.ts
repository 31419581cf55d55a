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
