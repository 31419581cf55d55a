import { z } from 'zod';

// The competitor price tracker (/price-tracker, README "Competitor price tracker"): the shapes the
// screen and the server share.

export const PRICE_AVAILABILITIES = ['in_stock', 'out_of_stock', 'unknown'] as const;
export type PriceAvailability = (typeof PRICE_AVAILABILITIES)[number];

export const PRICE_EXTRACTION_METHODS = ['json_ld', 'microdata', 'open_graph', 'meta', 'css_selector'] as const;
export type PriceExtractionMethod = (typeof PRICE_EXTRACTION_METHODS)[number];

/** Why a check found no price; the screen shows each in words (priceTracker:errors.*). */
export const PRICE_CHECK_ERRORS = ['robots', 'no_price', 'unsafe_address', 'http_status', 'timeout', 'too_large', 'content_type', 'network'] as const;
export type PriceCheckError = (typeof PRICE_CHECK_ERRORS)[number];

export const TRACKED_URL_STATUSES = ['pending', 'ok', 'error'] as const;
export const PRICE_ALERT_KINDS = ['undercut', 'out_of_stock'] as const;
export type PriceAlertKind = (typeof PRICE_ALERT_KINDS)[number];

/** Scheduled checks: every 6 hours per URL. */
export const PRICE_CHECK_INTERVAL_HOURS = 6;
export const DEFAULT_ALERT_THRESHOLD_PERCENT = 5;
export const MAX_BULK_URLS = 50;

export const competitorUrl = z
  .string()
  .trim()
  .min(1, 'Enter the competitor page’s address')
  .max(2000, 'The address is too long')
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'Enter a full http:// or https:// address');

const cssSelector = z.string().trim().max(300, 'The selector is too long').nullable();
const thresholdPercent = z.number().min(0, 'The threshold cannot be negative').max(100, 'The threshold is at most 100 %');

/** Which own product a competitor page competes with: one of the store's products, or a name and a price typed in. */
export const ownProductInput = z.union([
  z.object({ productId: z.number().int().positive() }),
  z.object({ name: z.string().trim().min(1, 'Name your product').max(200), priceMinor: z.number().int().min(0).max(1_000_000_000) }),
]);
export type OwnProductInput = z.infer<typeof ownProductInput>;

export const trackedUrlSettings = z.object({
  cssSelector: cssSelector.default(null),
  alertThresholdPercent: thresholdPercent.default(DEFAULT_ALERT_THRESHOLD_PERCENT),
  alertOutOfStock: z.boolean().default(true),
  emailAlerts: z.boolean().default(false),
});

export const addTrackedUrlInput = trackedUrlSettings.extend({ url: competitorUrl, own: ownProductInput });
export type AddTrackedUrlInput = z.input<typeof addTrackedUrlInput>;

export const bulkAddInput = trackedUrlSettings.extend({
  urls: z.array(z.string()).min(1, 'Enter at least one address').max(MAX_BULK_URLS, `At most ${MAX_BULK_URLS} addresses at once`),
  own: ownProductInput,
});

export const updateTrackedUrlInput = z.object({
  id: z.string().min(1),
  cssSelector: cssSelector.optional(),
  alertThresholdPercent: thresholdPercent.optional(),
  alertOutOfStock: z.boolean().optional(),
  emailAlerts: z.boolean().optional(),
});

export const trackedUrlIdInput = z.object({ id: z.string().min(1) });

export const competitorRow = z.object({
  id: z.string(),
  url: z.string(),
  domain: z.string(),
  cssSelector: z.string().nullable(),
  alertThresholdPercent: z.number(),
  alertOutOfStock: z.boolean(),
  emailAlerts: z.boolean(),
  status: z.enum(TRACKED_URL_STATUSES),
  errorReason: z.enum(PRICE_CHECK_ERRORS).nullable(),
  errorDetail: z.string().nullable(),
  /** The HTTP status of an 'http_status' error. */
  errorStatus: z.number().nullable(),
  priceMinor: z.number().nullable(),
  currency: z.string().nullable(),
  availability: z.enum(PRICE_AVAILABILITIES).nullable(),
  method: z.enum(PRICE_EXTRACTION_METHODS).nullable(),
  /** The latest price in the store's currency at today's rate. */
  priceInStoreCurrencyMinor: z.number().nullable(),
  /** (competitor − own) / own × 100, both in the store's currency; negative: the competitor is cheaper. */
  differencePercent: z.number().nullable(),
  lastCheckedAt: z.string().nullable(),
  nextCheckAt: z.string(),
});
export type CompetitorRow = z.infer<typeof competitorRow>;

export const trackedProductRow = z.object({
  /** 'product:<id>' or 'manual:<name>'. */
  key: z.string(),
  name: z.string(),
  productId: z.number().nullable(),
  ownPriceMinor: z.number().nullable(),
  competitors: z.array(competitorRow),
});
export type TrackedProductRow = z.infer<typeof trackedProductRow>;

export const priceTrackerList = z.object({ currency: z.string(), products: z.array(trackedProductRow), unacknowledgedAlerts: z.number() });
export type PriceTrackerList = z.infer<typeof priceTrackerList>;

export const bulkAddResult = z.object({
  results: z.array(z.object({ url: z.string(), outcome: z.enum(['added', 'duplicate', 'invalid']), message: z.string().nullable(), id: z.string().nullable() })),
});

export const historyInput = z.object({ key: z.string().min(1).max(300) });
export const priceHistory = z.object({
  currency: z.string(),
  own: z.object({ name: z.string(), priceMinor: z.number().nullable() }),
  series: z.array(z.object({ id: z.string(), domain: z.string(), url: z.string(), points: z.array(z.object({ at: z.string(), priceMinor: z.number() })) })),
});
export type PriceHistory = z.infer<typeof priceHistory>;

export const priceAlert = z.object({
  id: z.string(),
  trackedUrlId: z.string(),
  url: z.string(),
  domain: z.string(),
  productName: z.string(),
  kind: z.enum(PRICE_ALERT_KINDS),
  priceMinor: z.number().nullable(),
  currency: z.string().nullable(),
  differencePercent: z.number().nullable(),
  createdAt: z.string(),
  acknowledgedAt: z.string().nullable(),
});
export type PriceAlert = z.infer<typeof priceAlert>;
export const priceAlertList = z.object({ items: z.array(priceAlert) });

export const ownProductOption = z.object({ id: z.number(), title: z.string(), priceMinor: z.number(), currency: z.string() });
export const ownProductOptions = z.object({ items: z.array(ownProductOption) });

export const priceCsv = z.object({ filename: z.string(), csv: z.string() });

/** (competitor − own) / own × 100, one decimal; null without an own price. */
export function differencePercent(competitorMinor: number, ownMinor: number | null): number | null {
  if (ownMinor === null || ownMinor <= 0) return null;
  return Math.round(((competitorMinor - ownMinor) / ownMinor) * 1000) / 10;
}

/** A competitor undercuts when it is cheaper by more than the threshold. */
export function undercuts(difference: number | null, thresholdPercent: number): boolean {
  return difference !== null && -difference > thresholdPercent;
}

/**
 * A price as people write it: "1.299,00 €", "$1,299.00", "1 299,00", "1299", "19.9". The last `.` or
 * `,` followed by one or two digits (and nothing else) is the decimal separator; every other `.`, `,`,
 * space or apostrophe groups thousands. Returns minor units, or null when there is no number.
 */
export function parsePriceText(text: string): number | null {
  const match = /\d[\d.,'\s\u00a0\u202f]*/.exec(text);
  if (!match) return null;
  const raw = match[0].replace(/[\s\u00a0\u202f']+$/u, '').replace(/[.,]+$/, '');
  const decimal = /[.,](\d{1,2})$/.exec(raw);
  const wholePart = decimal ? raw.slice(0, decimal.index) : raw;
  const whole = wholePart.replace(/[.,'\s\u00a0\u202f]/gu, '');
  if (!/^\d+$/.test(whole)) return null;
  const cents = decimal ? decimal[1]!.padEnd(2, '0') : '00';
  const value = Number(whole) * 100 + Number(cents);
  return Number.isSafeInteger(value) ? value : null;
}
