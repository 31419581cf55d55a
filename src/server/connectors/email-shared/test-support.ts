import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import type { Connector, ConnectorContext, SyncBatch, SyncWindow } from '../connector.ts';

// Shared by the e-mail connectors' tests (not by production code): a loop that runs a window to its
// end like the engine (their context and windows come from ../test-support.ts).

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
