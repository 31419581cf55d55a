import type { ConnectorContext, ConnectorCredentials, SyncWindow } from './connector.ts';
import { PlatformHttp } from './http.ts';

// Shared by the connectors' tests (not by production code).

/** A sync context aimed at `baseUrl` (a fake) whose HTTP client records the waits it would have slept. */
export function testContext(
  platform: string,
  baseUrl: string,
  credentials: ConnectorCredentials,
  options: { waits?: number[]; timezone?: string; currency?: string; maxAttempts?: number } = {},
): ConnectorContext {
  const waits = options.waits ?? [];
  return {
    baseUrl,
    credentials,
    http: new PlatformHttp({ platform, maxAttempts: options.maxAttempts ?? 4, sleep: async (ms) => void waits.push(ms) }),
    store: { timezone: options.timezone ?? 'UTC', currency: options.currency ?? 'USD' },
  };
}

/** The reporting days from `firstDay` up to (not including) `dayAfterLast`, as UTC instants. */
export function utcWindow(firstDay: string, dayAfterLast: string): SyncWindow {
  return { since: new Date(`${firstDay}T00:00:00Z`), until: new Date(`${dayAfterLast}T00:00:00Z`) };
}
