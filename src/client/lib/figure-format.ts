import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CURRENCIES, isSupportedCurrency } from '../../shared/currencies.ts';
import { NO_VALUE } from '../../shared/metrics.ts';
import { formatCompactCurrency, formatCurrency } from './format.ts';

/** How the data screens (analytics, marketing, orders, revenue) write their figures, in the user's language; "—" for no value. */
export interface FigureFormat {
  locale: string;
  /** minor units -> "£1,234.50" */
  money: (minor: number | null | undefined, currency: string) => string;
  /** minor units -> "£1.25k" (axes, tight cells): k and m, 1 or 2 decimals only when needed */
  compactMoney: (minor: number | null | undefined, currency: string) => string;
  integer: (value: number | null | undefined) => string;
  /** up to 2 decimals (platform conversions are fractional) */
  decimal: (value: number | null | undefined) => string;
  /** a fraction: 0.0825 -> "8.25%" */
  percent: (fraction: number | null | undefined, fractionDigits?: number) => string;
  /** ROAS: 3.2 -> "3.20×" ("3,20×" in French and German) */
  multiple: (value: number | null | undefined) => string;
  /** 'YYYY-MM-DD' -> "3 Jun" */
  shortDay: (day: string) => string;
  /** 'YYYY-MM-DD' -> "Jun 2026" */
  month: (day: string) => string;
}

function known(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

const formatters = new Map<string, Intl.NumberFormat>();

/** One Intl.NumberFormat per (locale, options): building one costs more than formatting a figure. */
function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = formatters.get(key);
  if (!format) formatters.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format;
}

/**
 * A change in percent (12.5 = +12.5 %) with its sign, in the user's language: "+12.5%" in English,
 * "+12,5 %" in French and German (their decimal comma and the space before %); "0.0%" for no
 * change (after rounding: -0.04 is no change, not "-0.0%"); "—" without a value.
 */
export function formatChange(percent: number | null | undefined, locale: string, fractionDigits = 1): string {
  if (!known(percent)) return NO_VALUE;
  const rounded = Number(percent.toFixed(fractionDigits));
  return numberFormat(locale, { style: 'percent', signDisplay: 'exceptZero', minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(
    (rounded === 0 ? 0 : rounded) / 100,
  );
}

/** A ratio as a multiple in the user's language: 4.3 -> "4.30×" in English, "4,30×" in French and German; "—" without a value. */
export function formatMultipleIn(value: number | null | undefined, locale: string, fractionDigits = 2): string {
  if (!known(value)) return NO_VALUE;
  return `${numberFormat(locale, { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(value)}×`;
}

/** A money axis's labels (values in major units) in the spec's compact form: "£0", "£5k", "£1.25m". */
export function compactAxisMoney(locale: string, currency: string): (value: number | string) => string {
  const { compactMoney } = figureFormat(locale);
  return (value) => compactMoney(Math.round(Number(value) * 100), currency);
}

export function figureFormat(locale: string): FigureFormat {
  const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const shortDay = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const month = new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' });
  return {
    locale,
    money: (minor, currency) => (known(minor) ? formatCurrency(Math.round(minor) / 100, currency, locale) : NO_VALUE),
    compactMoney: (minor, currency) => (known(minor) ? formatCompactCurrency(minor / 100, isSupportedCurrency(currency) ? CURRENCIES[currency].symbol : currency) : NO_VALUE),
    integer: (value) => (known(value) ? integer.format(value) : NO_VALUE),
    decimal: (value) => (known(value) ? decimal.format(value) : NO_VALUE),
    percent: (fraction, fractionDigits = 1) =>
      known(fraction) ? new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(fraction) : NO_VALUE,
    multiple: (value) => formatMultipleIn(value, locale),
    shortDay: (day) => shortDay.format(new Date(`${day}T00:00:00Z`)),
    month: (day) => month.format(new Date(`${day}T00:00:00Z`)),
  };
}

export function useFigureFormat(): FigureFormat {
  const { i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  return useMemo(() => figureFormat(locale), [locale]);
}

const NARROW_QUERY = '(max-width: 639px)';

/** Whether the screen is phone-sized: charts then label fewer ticks on their x-axis. */
export function useNarrowScreen(): boolean {
  const [narrow, setNarrow] = useState(() => typeof window !== 'undefined' && window.matchMedia(NARROW_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW_QUERY);
    const update = () => setNarrow(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return narrow;
}

/** How many x-axis labels a chart of `points` categories shows. */
export function xTickAmount(points: number, narrow: boolean): number {
  return Math.max(1, Math.min(points - 1, narrow ? 4 : 8));
}
