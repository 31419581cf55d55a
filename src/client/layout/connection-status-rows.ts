export interface ConnectionStatusEntry {
  platform: string;
  connected: boolean;
  lastChecked: string | null;
}

/** Rows shown: all connected platforms if any; otherwise the WooCommerce entry if present; otherwise the first entry. */
export function connectionRows(entries: readonly ConnectionStatusEntry[]): ConnectionStatusEntry[] {
  const connected = entries.filter((entry) => entry.connected);
  if (connected.length > 0) return connected;
  const woocommerce = entries.find((entry) => entry.platform === 'woocommerce');
  if (woocommerce) return [woocommerce];
  return entries.slice(0, 1);
}

export type ConnectionTone = 'loading' | 'connected' | 'disconnected';

/** The header icon: pulsing while loading, green when any platform is connected, else yellow. */
export function connectionTone(entries: readonly ConnectionStatusEntry[] | undefined, loading: boolean): ConnectionTone {
  if (loading) return 'loading';
  return entries?.some((entry) => entry.connected) ? 'connected' : 'disconnected';
}

/**
 * The last check as short month, day, hour and minute in the given language ("Mar 5, 14:07");
 * null when missing or not a valid date (the widget then says 'Just now').
 */
export function formatLastChecked(lastChecked: string | null | undefined, locale: string): string | null {
  if (!lastChecked) return null;
  const date = new Date(lastChecked);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }).format(date);
}
