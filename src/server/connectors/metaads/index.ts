import { ConnectorAuthError, type Connector, type ConnectorContext, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { urlWithQuery } from '../ads-shared/oauth2.ts';
import { reportingDays } from '../ads-shared/reporting-days.ts';
import {
  accessOf,
  dialogUrl,
  exchangeForLongLivedToken,
  fetchAdAccount,
  fetchInsightsPage,
  listAdAccounts,
  META_ADS_SCOPES,
  META_API_VERSION,
  META_GRAPH_ROOT,
  nextAfter,
  numericAccountId,
  PLATFORM,
} from './client.ts';
import { mapAccountSpend, mapInsightsRow } from './map.ts';

// Meta Ads: Ads Insights at campaign level, one row per campaign and day (time_increment=1), one
// Graph page per batch. The cursor holds Graph's `after` cursor (never paging.next, which carries the
// access token) and the ad account's currency, read from the ad account node on the first page.
//
// Tokens: the long-lived user token lasts about 60 days and Graph offers no refresh token, so there
// is no oauth.refresh; when it expires (code 190) the connection needs the user to reconnect. The
// engine refreshes where a platform can (before a sync when credentials.expiresAt is within 5
// minutes, and once after a ConnectorAuthError), so fetchBatch never does.

interface MetaCursor {
  after: string | null;
  currency: string;
}

function parseCursor(cursor: string | null): MetaCursor | null {
  if (!cursor) return null;
  const parsed = JSON.parse(cursor) as Partial<MetaCursor>;
  if (typeof parsed.currency !== 'string') throw new Error(`not a ${PLATFORM} cursor: ${cursor}`);
  return { after: typeof parsed.after === 'string' ? parsed.after : null, currency: parsed.currency };
}

async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, cursor: string | null): Promise<SyncBatch> {
  const days = reportingDays(window);
  if (!days) return { adMetrics: [], nextCursor: null, estimatedTotal: 0 };
  const access = accessOf(ctx);
  const position = parseCursor(cursor) ?? { after: null, currency: (await fetchAdAccount(ctx.http, access)).currency };
  const page = await fetchInsightsPage(ctx.http, access, { level: 'campaign', days, after: position.after ?? undefined });
  const after = nextAfter(page);
  return {
    adMetrics: page.data.map((row) => mapInsightsRow(row, access.adAccountId, position.currency)),
    nextCursor: after ? JSON.stringify({ after, currency: position.currency } satisfies MetaCursor) : null,
  };
}

export const metaadsConnector: Connector = {
  platform: PLATFORM,
  kind: 'ads',
  authKind: 'oauth',
  defaultBaseUrl: () => META_GRAPH_ROOT,

  oauth: {
    authorizeUrl(settings, state) {
      return urlWithQuery(dialogUrl(settings, META_API_VERSION), {
        client_id: settings.clientId,
        redirect_uri: settings.redirectUri,
        state,
        response_type: 'code',
        scope: (settings.scopes ?? META_ADS_SCOPES).join(','),
      });
    },

    /** `extra.adAccountId` picks the ad account (else the first the user can reach). */
    async exchangeCode(ctx, settings, code, extra) {
      const graphRoot = ctx.baseUrl.replace(/\/+$/, '');
      const version = ctx.credentials.apiVersion || META_API_VERSION;
      const token = await exchangeForLongLivedToken(ctx.http, graphRoot, version, settings, code);
      const accounts = await listAdAccounts(ctx.http, graphRoot, version, token.accessToken);
      const wanted = extra.adAccountId ? numericAccountId(extra.adAccountId) : undefined;
      const account = wanted ? accounts.find((candidate) => candidate.id === wanted) : accounts[0];
      if (!account) {
        throw new ConnectorAuthError(PLATFORM, wanted ? `This Facebook user cannot access ad account ${wanted}.` : 'This Facebook user has no ad account it can read.');
      }
      return { accessToken: token.accessToken, ...(token.expiresAt ? { expiresAt: token.expiresAt } : {}), adAccountId: account.id };
    },
  },

  async verify(ctx) {
    const access = accessOf(ctx);
    const account = await fetchAdAccount(ctx.http, access);
    return { accountId: access.adAccountId, accountName: account.name || `Ad account ${access.adAccountId}`, currency: account.currency };
  },

  fetchBatch,

  async sourceTotals(ctx, window) {
    const days = reportingDays(window);
    if (!days) return [];
    const access = accessOf(ctx);
    const { currency } = await fetchAdAccount(ctx.http, access);
    const totals: SourceDayTotal[] = [];
    let after: string | null = null;
    do {
      const page = await fetchInsightsPage(ctx.http, access, { level: 'account', days, fields: ['spend', 'date_start', 'date_stop'], after: after ?? undefined });
      totals.push(...mapAccountSpend(page.data, currency));
      after = nextAfter(page);
    } while (after);
    return totals;
  },
};
