import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCurrency } from '../../lib/format.ts';
import { useStores } from '../../lib/use-access.ts';

/** An instant as a date and time in the active store's time zone (the zone its days are counted in). */
export function useStoreDateTime(): (instant: string) => string {
  const { i18n } = useTranslation();
  const { activeStore } = useStores();
  const locale = i18n.resolvedLanguage ?? 'en';
  const timeZone = activeStore?.timezone;
  return useMemo(() => {
    const format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
    return (instant: string) => format.format(new Date(instant));
  }, [locale, timeZone]);
}

/** Order amounts from minor units, always with their cents ("£24.00", "£15.99"), so a column lines up. */
export function useOrderMoney(): (amountMinor: number, currency: string) => string {
  const { i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  return useMemo(() => (amountMinor: number, currency: string) => formatCurrency(amountMinor / 100, currency, locale), [locale]);
}
