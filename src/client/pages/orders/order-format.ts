import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCurrency } from '../../lib/format.ts';

export { useStoreDateTime } from '../../lib/store-time.ts';

/** Order amounts from minor units, always with their cents ("£24.00", "£15.99"), so a column lines up. */
export function useOrderMoney(): (amountMinor: number, currency: string) => string {
  const { i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  return useMemo(() => (amountMinor: number, currency: string) => formatCurrency(amountMinor / 100, currency, locale), [locale]);
}
