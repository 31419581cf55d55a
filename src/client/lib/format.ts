/** Money from integer minor units; whole amounts drop the decimals ("£29", "£29.50"). */
export function formatMoney(amountMinor: number, currency: string, locale: string): string {
  const whole = amountMinor % 100 === 0;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(amountMinor / 100);
}
