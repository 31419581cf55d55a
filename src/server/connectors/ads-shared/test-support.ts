import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import type { Connector, ConnectorContext, ConnectorCredentials, OAuthSettings, SyncWindow } from '../connector.ts';
import { testContext } from '../test-support.ts';

// Shared by the ad connectors' tests (not by production code).

/** What every ad platform fake in test/fakes offers for the helpers below. */
interface AdPlatformFake {
  url: string;
  auth: { clientId: string; clientSecret: string };
}

/**
 * The helpers an ad connector's tests use against its fake; `fake` is a getter because the fake
 * starts in `beforeAll`, after the helpers are made.
 */
export function adConnectorTestKit(connector: Connector, fake: () => AdPlatformFake) {
  return {
    /** A sync context (UTC, USD) aimed at the fake; backoff delays go to `waits` instead of sleeping. */
    contextWith(credentials: ConnectorCredentials, waits: number[] = []): ConnectorContext {
      return testContext(connector.platform, fake().url, credentials, { waits });
    },

    /** Every row of the window, batch after batch like the sync engine, with each batch's estimate of the total. */
    async readAll(ctx: ConnectorContext, window: SyncWindow) {
      const rows: IngestAdMetric[] = [];
      const estimates: number[] = [];
      let cursor: string | null = null;
      let batches = 0;
      do {
        const batch = await connector.fetchBatch(ctx, window, cursor);
        rows.push(...(batch.adMetrics ?? []));
        if (batch.estimatedTotal !== undefined) estimates.push(batch.estimatedTotal);
        cursor = batch.nextCursor;
        batches++;
      } while (cursor);
      return { rows, batches, estimates };
    },

    /** The OAuth settings of the app registered at the fake. */
    settings(): OAuthSettings {
      return {
        clientId: fake().auth.clientId,
        clientSecret: fake().auth.clientSecret,
        redirectUri: `http://127.0.0.1:9/integrations/${connector.platform}/callback`,
        authorizeBaseUrl: fake().url,
      };
    },
  };
}

/** Spend (minor units) per reporting day, summed over campaigns. */
export function spendByDay(rows: IngestAdMetric[]): Record<string, number> {
  const byDay: Record<string, number> = {};
  for (const row of rows) byDay[row.day] = (byDay[row.day] ?? 0) + row.spendMinor;
  return byDay;
}
