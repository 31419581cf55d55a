import { DEFAULT_CURRENCY } from '../../shared/currencies.ts';

// Zod-free (shared/currencies.ts): this module is on the first load.
export { formatMoney } from '../../shared/currencies.ts';

/** An amount in major units with exactly 2 decimals: 1234.5 GBP -> "£1,234.50". */
export function formatCurrency(amount: number, currency: string = DEFAULT_CURRENCY, locale = 'en'): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(amount);
}

/** Up to 2 decimals, trailing zeros dropped: 1.5, 12, 1.25. */
function trimDecimals(value: number): string {
  return String(Number(value.toFixed(2)));
}

/**
 * The compact form: k for thousands and m for millions, with 1 or 2 decimals only when needed
 * (1500 -> "1.5k", 12000 -> "12k", 1250000 -> "1.25m"); below 1000 the number itself, up to 2 decimals.
 */
export function formatCompactNumber(value: number): string {
  const sign = value < 0 ? '-' : '';
  const size = Math.abs(value);
  if (size >= 1_000_000) return `${sign}${trimDecimals(size / 1_000_000)}m`;
  if (size >= 1_000) {
    const thousands = Number((size / 1_000).toFixed(2));
    // 999,999 rounds to 1000k: say 1m instead.
    if (thousands >= 1_000) return `${sign}1m`;
    return `${sign}${trimDecimals(size / 1_000)}k`;
  }
  return `${sign}${trimDecimals(size)}`;
}

/** A currency amount in the compact form with its symbol: "£1.5k", "CA$1.25m", "$950". */
export function formatCompactCurrency(amount: number, symbol: string): string {
  const compact = formatCompactNumber(amount);
  return compact.startsWith('-') ? `-${symbol}${compact.slice(1)}` : `${symbol}${compact}`;
}
