import { NO_VALUE } from '../../../shared/metrics.ts';
import { formatKpiMoney } from '../../components/kpi-card.tsx';

/** A statement amount: whole units from 1,000 up, cents below (as on the KPI cards); "—" when unknown. */
export function formatStatementMoney(amountMinor: number | null, currency: string, locale: string): string {
  return formatKpiMoney(amountMinor, currency, locale) ?? NO_VALUE;
}

/** A percentage with one decimal ("12.5 %" in the user's language), or "—". */
export function formatPercent(value: number | null, locale: string): string {
  if (value === null || !Number.isFinite(value)) return NO_VALUE;
  return new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value / 100);
}

/** "12.34" (major units, for an input) from minor units, or '' for null. */
export function minorToInput(amountMinor: number | null | undefined): string {
  return amountMinor === null || amountMinor === undefined ? '' : (amountMinor / 100).toFixed(2);
}

/** Minor units from what the user typed ("12.3", "12,30"): null when empty, NaN when not an amount with at most 2 decimals. */
export function inputToMinor(text: string): number | null {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return null;
  if (!/^-?\d+(\.\d{0,2})?$/.test(trimmed)) return Number.NaN;
  return Math.round(Number(trimmed) * 100);
}
