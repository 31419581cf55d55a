import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useStores } from './use-access.ts';

/** A writer of instants as date and time on the clock of `timeZone` (the browser's when undefined). */
export function dateTimeInZone(locale: string, timeZone: string | undefined): (instant: string) => string {
  const format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  return (instant: string) => format.format(new Date(instant));
}

/**
 * An instant as a date and time in the active store's time zone (the zone its days are counted in
 * and its reports are sent in), not the browser's.
 */
export function useStoreDateTime(): (instant: string) => string {
  const { i18n } = useTranslation();
  const { activeStore } = useStores();
  const locale = i18n.resolvedLanguage ?? 'en';
  const timeZone = activeStore?.timezone;
  return useMemo(() => dateTimeInZone(locale, timeZone), [locale, timeZone]);
}
