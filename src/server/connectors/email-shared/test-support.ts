import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import type { Connector, ConnectorContext, ConnectorCredentials, SyncBatch, SyncWindow } from '../connector.ts';
import { PlatformHttp } from '../http.ts';

// Shared by the e-mail connectors' tests (not by production code): a context whose HTTP client
// records the waits it would have slept, and a loop that runs a window to its end like the engine.

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

export function utcWindow(firstDay: string, dayAfterLast: string): SyncWindow {
  return { since: new Date(`${firstDay}T00:00:00Z`), until: new Date(`${dayAfterLast}T00:00:00Z`) };
}

/**
 * The window's batches from `cursor` on (at most `maxBatches`, like a sync that crashes after them);
 * rows keyed the way ingest keys them, later rows replacing earlier ones.
 */
export async function runWindow(connector: Connector, ctx: ConnectorContext, window: SyncWindow, cursor: string | null = null, maxBatches = 10_000) {
  const batches: { cursor: string | null; batch: SyncBatch }[] = [];
  const latest = new Map<string, IngestEmailMetric>();
  for (let count = 0; count < maxBatches; count++) {
    const batch = await connector.fetchBatch(ctx, window, cursor);
    batches.push({ cursor, batch });
    for (const row of batch.emailMetrics ?? []) latest.set(`${row.platform}|${row.campaignId}|${row.day}`, row);
    cursor = batch.nextCursor;
    if (cursor === null) return { batches, rows: [...latest.values()], finished: true };
  }
  return { batches, rows: [...latest.values()], finished: false };
}
