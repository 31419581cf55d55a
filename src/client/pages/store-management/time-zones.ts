import { supportedTimeZones } from '../../../shared/stores.ts';

/** A zone of the picker: its IANA name and its offset from UTC at the moment given. */
export interface TimeZoneOption {
  zone: string;
  /** '+01:00', '−05:00' (a real minus sign), '+05:30'; '+00:00' for UTC itself. */
  offset: string;
  /** The name as people type it: lower case, underscores as spaces ("america/new york"). */
  searchText: string;
}

/**
 * The offset of a zone at an instant, as "+hh:mm" / "−hh:mm". Intl's 'longOffset' name gives
 * "GMT-05:00", or "GMT" alone when the offset is zero.
 */
export function utcOffset(zone: string, at: Date): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const offset = name.replace(/^GMT/, '') || '+00:00';
  return offset.replace('-', '\u2212');
}

/** Every zone the server accepts, alphabetically, with its offset now (daylight saving included). */
export function timeZoneOptions(at: Date = new Date(), zones: readonly string[] = supportedTimeZones()): TimeZoneOption[] {
  return zones.map((zone) => ({ zone, offset: utcOffset(zone, at), searchText: searchable(zone) }));
}

function searchable(text: string): string {
  return text.toLowerCase().replace(/_/g, ' ');
}

/**
 * The options whose name contains every word of the query ("new york", "york", "america new",
 * "UTC+05:30" or "+05:30" by offset). An empty query keeps them all.
 */
export function filterTimeZones(options: readonly TimeZoneOption[], query: string): TimeZoneOption[] {
  const words = searchable(query).replace(/\u2212/g, '-').split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...options];
  return options.filter((option) => {
    const text = `${option.searchText} utc${option.offset.replace('\u2212', '-')}`;
    return words.every((word) => text.includes(word));
  });
}
