import type { AnomalyMetric } from './anomalies.ts';

// How the anomaly panel, the alert e-mails and the AI prompt read an anomaly's figures. No zod here:
// the dashboard's first load imports this file (the schemas stay out of its bundle).

export const ANOMALY_LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export type AnomalyLanguage = (typeof ANOMALY_LANGUAGES)[number];

/** How a metric's values read: money in the store's currency, a count, a multiple (ROAS 2.5×) or a share (0.31 = 31 %). */
export type AnomalyValueUnit = 'money' | 'count' | 'multiple' | 'share';

export const ANOMALY_METRIC_UNITS: Record<AnomalyMetric, AnomalyValueUnit> = {
  net_sales: 'money',
  orders: 'count',
  aov: 'money',
  marketing_spend: 'money',
  roas: 'multiple',
  cac: 'money',
  refunds: 'money',
  new_customer_share: 'share',
  spend_without_conversions: 'money',
  pixel_order_divergence: 'count',
};

/** Costs and refunds: a rise is the bad news (the panel colours the change by it). */
export const ANOMALY_LOWER_IS_BETTER: ReadonlySet<AnomalyMetric> = new Set(['marketing_spend', 'cac', 'refunds', 'spend_without_conversions', 'pixel_order_divergence']);

/** Values as the app writes them: money with the currency (decimal amounts), counts whole, ROAS as 2.50×, shares as percentages. */
export function formatAnomalyValue(unit: AnomalyValueUnit, value: number, currency: string, locale: string): string {
  if (!Number.isFinite(value)) return '—';
  if (unit === 'money') {
    const digits = Math.abs(value) >= 1_000 ? 0 : 2;
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  }
  if (unit === 'count') return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);
  if (unit === 'share') return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value);
  return `${new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)}×`;
}
