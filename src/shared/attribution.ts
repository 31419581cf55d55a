import { z } from 'zod';
import { COMPARISONS, dayString } from './commerce.ts';

// Attribution: the models, the lookback windows and the shapes of the attribution procedures and
// of GET /api/attribution (README, "Attribution").

export const ATTRIBUTION_MODELS = ['first_click', 'last_click', 'linear', 'time_decay', 'position_based'] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

export const ATTRIBUTION_WINDOWS = [1, 7, 14, 28, 30, 60, 90] as const;
export type AttributionWindow = (typeof ATTRIBUTION_WINDOWS)[number];
export const DEFAULT_ATTRIBUTION_WINDOW: AttributionWindow = 30;

/** The longest range an attribution report covers. */
export const MAX_ATTRIBUTION_RANGE_DAYS = 800;

export const attributionModel = z.enum(ATTRIBUTION_MODELS, {
  error: () => `Unknown model: use one of ${ATTRIBUTION_MODELS.join(', ')}`,
});

export const attributionWindow = z.coerce
  .number({ error: () => `The window must be one of ${ATTRIBUTION_WINDOWS.join(', ')} (days)` })
  .refine((value): value is AttributionWindow => (ATTRIBUTION_WINDOWS as readonly number[]).includes(value), {
    message: `The window must be one of ${ATTRIBUTION_WINDOWS.join(', ')} (days)`,
  });

function rangeChecked<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape).superRefine((value, context) => {
    const { from, to } = value as unknown as { from: string; to: string };
    if (from > to) context.addIssue({ code: 'custom', path: ['from'], message: '"from" must not be after "to"' });
    else if ((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 >= MAX_ATTRIBUTION_RANGE_DAYS) {
      context.addIssue({ code: 'custom', path: ['to'], message: `A range covers at most ${MAX_ATTRIBUTION_RANGE_DAYS} days` });
    }
  });
}

export const attributionRangeInput = rangeChecked({
  from: dayString,
  to: dayString,
  model: attributionModel.default('last_click'),
  window: attributionWindow.optional(),
});
export type AttributionRangeInput = z.input<typeof attributionRangeInput>;

export const attributionReportInput = rangeChecked({
  from: dayString,
  to: dayString,
  model: attributionModel.default('last_click'),
  window: attributionWindow.optional(),
  compare: z.enum(COMPARISONS).default('none'),
});
export type AttributionReportInput = z.input<typeof attributionReportInput>;

const creditFigures = {
  /** Credited orders (fractional under the sharing models). */
  orders: z.number(),
  /** Credited revenue, minor units of the store's currency. */
  revenueMinor: z.number(),
  /** Of which credited to orders' own landing source (no touchpoint in the window). */
  ownSourceRevenueMinor: z.number(),
  ownSourceOrders: z.number(),
  spendMinor: z.number(),
  roas: z.number().nullable(),
  /** Spend per credited order. */
  cac: z.number().nullable(),
  platformConversions: z.number(),
  platformReportedRevenueMinor: z.number(),
};

export const attributionChannelRow = z.object({ channel: z.string(), ...creditFigures });
export const attributionCampaignRow = z.object({ channel: z.string(), campaign: z.string(), ...creditFigures });

const reportPeriod = z.object({
  from: z.string(),
  to: z.string(),
  total: z.object({ orders: z.number(), revenueMinor: z.number(), spendMinor: z.number(), ownSourceOrders: z.number(), ownSourceRevenueMinor: z.number() }),
  channels: z.array(attributionChannelRow),
  campaigns: z.array(attributionCampaignRow),
});

export const attributionReportOutput = z.object({
  currency: z.string(),
  model: z.enum(ATTRIBUTION_MODELS),
  window: z.number(),
  /** Read from the rollups (true) or computed from the orders' journeys (a window other than the store's, or one being recomputed). */
  fromRollups: z.boolean(),
  current: reportPeriod,
  previous: reportPeriod.nullable(),
});
export type AttributionReportOutput = z.infer<typeof attributionReportOutput>;

export const modelsSideBySideOutput = z.object({
  currency: z.string(),
  window: z.number(),
  channels: z.array(z.object({ channel: z.string(), models: z.record(z.string(), z.object({ orders: z.number(), revenueMinor: z.number() })) })),
});

export const topPathsOutput = z.object({
  currency: z.string(),
  window: z.number(),
  paths: z.array(z.object({ path: z.array(z.string()), ownSource: z.boolean(), label: z.string(), orders: z.number(), revenueMinor: z.number() })),
});

export const distributionsOutput = z.object({
  window: z.number(),
  /** Orders by days from first touchpoint to the order: buckets '0', '1', '2-3', '4-7', '8-14', '15-30', '31-60', '61-90'. */
  timeToConversion: z.array(z.object({ bucket: z.string(), orders: z.number() })),
  /** Orders by their number of touchpoints: '0' (own source), '1' ... '5', '6+'. */
  touchpointsPerOrder: z.array(z.object({ bucket: z.string(), orders: z.number() })),
});

export const journeyOutput = z.object({
  orderId: z.number(),
  externalId: z.string(),
  placedAt: z.string(),
  currency: z.string(),
  revenueMinor: z.number(),
  ownChannel: z.string(),
  window: z.number(),
  visits: z.array(z.object({
    at: z.string(),
    channel: z.string(),
    campaign: z.string().nullable(),
    referrerHost: z.string().nullable(),
    landingUrl: z.string().nullable(),
    inWindow: z.boolean(),
  })),
  credits: z.record(z.string(), z.array(z.object({ channel: z.string(), campaign: z.string(), share: z.number(), revenueMinor: z.number() }))),
});

export const recomputeStatusOutput = z.object({
  windowDays: z.number(),
  /** The window being recomputed, with progress; null when none is. */
  recomputing: z.object({ windowDays: z.number(), done: z.number(), total: z.number() }).nullable(),
});

/** GET /api/attribution: exactly the documented shape (money as decimals in the store's currency). */
export const attributionRestOutput = z.object({
  currency: z.string(),
  total: z.object({ orders: z.number(), revenue: z.number() }),
  channels: z.array(z.object({ channel: z.string(), orders: z.number(), revenue: z.number(), spend: z.number(), roas: z.number().nullable(), platformReportedRevenue: z.number() })),
});

/** A channel's name in paths ("Meta Ads → Google Ads → Direct"). */
export const CHANNEL_NAMES: Readonly<Record<string, string>> = {
  googleads: 'Google Ads',
  metaads: 'Meta Ads',
  bingads: 'Microsoft Ads',
  tiktokads: 'TikTok Ads',
  klaviyo: 'Klaviyo',
  omnisend: 'Omnisend',
  mailchimp: 'Mailchimp',
  email: 'E-mail',
  organic_search: 'Organic search',
  organic_social: 'Organic social',
  referral: 'Referral',
  direct: 'Direct',
};

export function channelName(channel: string): string {
  return CHANNEL_NAMES[channel] ?? channel;
}

export const attributionSettingsInput = z.object({ attributionWindowDays: attributionWindow });
