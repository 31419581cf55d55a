import { MalformedResponseError } from './connector.ts';

// Platforms send money as decimal strings ("12.50"), JSON numbers, or micros ("12500000"); we keep
// integer minor units. Parsing is exact string arithmetic: no float ever touches an amount.

const digitsByCurrency = new Map<string, number>();

/** Minor-unit digits of a currency (JPY 0, KWD 3, most 2), as Intl knows them (cached: Intl is slow to build). */
export function minorDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/**
 * "1234.5" in `currency` -> 123450 minor units. Extra decimals are rounded half away from zero
 * ("0.125" GBP -> 13). Throws MalformedResponseError for anything that is not a plain decimal.
 */
export function decimalToMinor(value: string | number | null | undefined, currency: string, platform = 'platform'): number {
  if (value === null || value === undefined || value === '') return 0;
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = /^(-)?(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new MalformedResponseError(platform, `not an amount: ${JSON.stringify(value)}`);
  const [, sign, whole = '', fraction = ''] = match;
  const digits = minorDigits(currency);
  const kept = (fraction + '0'.repeat(digits)).slice(0, digits);
  const roundUp = fraction.length > digits && Number(fraction[digits]) >= 5;
  const minor = Number(whole || '0') * 10 ** digits + Number(kept || '0') + (roundUp ? 1 : 0);
  if (!Number.isSafeInteger(minor)) throw new MalformedResponseError(platform, `amount out of range: ${text}`);
  return sign && minor !== 0 ? -minor : minor;
}

/** Google Ads' micros ("12500000" = 12.50) -> minor units of `currency`, rounded half away from zero. */
export function microsToMinor(micros: string | number | null | undefined, currency: string, platform = 'googleads'): number {
  if (micros === null || micros === undefined || micros === '') return 0;
  const text = String(micros).trim();
  if (!/^-?\d+$/.test(text)) throw new MalformedResponseError(platform, `not a micros amount: ${JSON.stringify(micros)}`);
  const negative = text.startsWith('-');
  const digits = text.replace('-', '').padStart(7, '0');
  return decimalToMinor(`${negative ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`, currency, platform);
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) return 'NaN';
  // Up to 10 decimals covers every currency; toFixed never uses exponent notation below 1e21.
  return value.toFixed(10).replace(/\.?0+$/, '');
}
