import { z } from 'zod';
import { AD_CHANNELS, kpisInput } from './commerce.ts';

/** The advertising platforms that have a campaigns screen (their key is also the channel of their orders). */
export const AD_PLATFORMS = AD_CHANNELS;
export type AdPlatform = (typeof AD_PLATFORMS)[number];

/** Range, comparison, display currency and optional store as for the KPIs, plus the platform. */
export const campaignsInput = kpisInput.safeExtend({
  platform: z.enum(AD_PLATFORMS, { error: 'Unknown advertising platform' }),
});
export type CampaignsInput = z.input<typeof campaignsInput>;

const nullableNumber = z.number().nullable();

/** What a platform reports for a set of campaign-days, with the ratios derived from it (src/shared/metrics.ts). */
const platformFigures = {
  /** minor units of the display currency */
  spend: z.number(),
  impressions: z.number(),
  clicks: z.number(),
  /** clicks / impressions, a fraction (0.05 = 5 %) */
  ctr: nullableNumber,
  /** minor units per click */
  cpc: nullableNumber,
  /** minor units per 1,000 impressions */
  cpm: nullableNumber,
  /** the platform's own (modelled, often fractional) conversions */
  conversions: z.number(),
  /** minor units, as the platform reports it */
  conversionValue: z.number(),
  /** conversion value / spend */
  platformRoas: nullableNumber,
};

export const campaignRowOutput = z.object({
  accountId: z.string(),
  campaignId: z.string(),
  /** The campaign's latest name in the range, or its id when the platform sent none. */
  name: z.string(),
  ...platformFigures,
  /** Our orders whose channel is this platform and whose utm_campaign is this campaign's id or name. */
  orders: z.number(),
  /** Net sales of those orders (minor units; refunds to date deducted). */
  netSales: z.number(),
  /** netSales / spend */
  roas: nullableNumber,
});
export type CampaignRow = z.infer<typeof campaignRowOutput>;

export const campaignTotalsOutput = z.object({
  ...platformFigures,
  /** Every order attributed to the platform (channel rollups), matched to a campaign or not. */
  orders: z.number(),
  netSales: z.number(),
  /** Attributed ROAS at platform level: the platform's orders' net sales / its spend. */
  roas: nullableNumber,
});
export type CampaignTotals = z.infer<typeof campaignTotalsOutput>;

const deltaOutput = z.object({ absolute: nullableNumber, percent: nullableNumber });
const dayRange = z.object({ from: z.string(), to: z.string() });

export const campaignsOutput = z.object({
  storeId: z.number(),
  platform: z.enum(AD_PLATFORMS),
  /** Money values are in minor units of this currency. */
  currency: z.string(),
  range: dayRange,
  previousRange: dayRange.nullable(),
  /** One row per campaign with data in the range, by spend (highest first). */
  campaigns: z.array(campaignRowOutput),
  totals: campaignTotalsOutput,
  previousTotals: campaignTotalsOutput.nullable(),
  /** totals against previousTotals, key by key */
  deltas: z.record(z.string(), deltaOutput),
  /**
   * How our orders were matched to campaigns: 'campaign' when at least one order's utm_campaign names a
   * campaign of the range; otherwise 'platform' (our figures exist only for the platform as a whole).
   */
  attribution: z.enum(['campaign', 'platform']),
  /** Orders of the platform's channel placed in the range that match no campaign (they count in the totals only). */
  unmatched: z.object({ orders: z.number(), netSales: z.number() }),
  /** One entry per day of the range. */
  series: z.array(
    z.object({
      day: z.string(),
      spend: z.number(),
      clicks: z.number(),
      conversions: z.number(),
      netSales: z.number(),
      platformRoas: nullableNumber,
      roas: nullableNumber,
    }),
  ),
});
export type CampaignsOutput = z.infer<typeof campaignsOutput>;
