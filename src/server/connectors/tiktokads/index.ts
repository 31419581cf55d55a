import { ConnectorAuthError, type Connector, type ConnectorContext, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { urlWithQuery } from '../ads-shared/oauth2.ts';
import { estimateWindowRows, reportingDays, sliceFrom, type DayRange } from '../ads-shared/reporting-days.ts';
import {
  accessOf,
  apiBaseOf,
  authorizeEndpoint,
  exchangeAuthCode,
  fetchAdvertiserInfo,
  fetchReportPage,
  MAX_REPORT_DAYS,
  PLATFORM,
  TIKTOK_API_ROOT,
  TIKTOK_API_VERSION,
} from './client.ts';
import { mapAdvertiserSpend, mapReportRow } from './map.ts';

// TikTok Ads: the synchronous integrated report at campaign level by day. Daily reports span at most
// MAX_REPORT_DAYS, so the window is cut into slices; one batch is one page of one slice. The cursor
// holds the slice's first day, the page, and the advertiser's currency (read once, from advertiser
// info, on the first page).
//
// Advertiser access tokens do not expire (no refresh token is issued), so there is no oauth.refresh;
// a revoked token ends the connection until the user reconnects. Where platforms can refresh, the
// engine does it (before a sync and once after a ConnectorAuthError), never fetchBatch.

interface TikTokCursor {
  from: string;
  page: number;
  currency: string;
}

function parseCursor(cursor: string | null): TikTokCursor | null {
  if (!cursor) return null;
  const parsed = JSON.parse(cursor) as Partial<TikTokCursor>;
  if (typeof parsed.from !== 'string' || typeof parsed.page !== 'number' || typeof parsed.currency !== 'string') throw new Error(`not a ${PLATFORM} cursor: ${cursor}`);
  return { from: parsed.from, page: parsed.page, currency: parsed.currency };
}

async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, cursor: string | null): Promise<SyncBatch> {
  const range = reportingDays(window);
  if (!range) return { adMetrics: [], nextCursor: null, estimatedTotal: 0 };
  const access = accessOf(ctx);
  const position = parseCursor(cursor) ?? { from: range.from, page: 1, currency: (await fetchAdvertiserInfo(ctx.http, access)).currency };
  const { slice, nextStart } = sliceFrom(range, position.from, MAX_REPORT_DAYS);
  const page = await fetchReportPage(ctx.http, access, { level: 'campaign', days: slice, page: position.page });
  const next: TikTokCursor | null =
    page.page_info.page < page.page_info.total_page
      ? { ...position, page: position.page + 1 }
      : nextStart
        ? { from: nextStart, page: 1, currency: position.currency }
        : null;
  return {
    adMetrics: page.list.map((row) => mapReportRow(row, access.advertiserId, position.currency)),
    nextCursor: next ? JSON.stringify(next) : null,
    estimatedTotal: estimateWindowRows(page.page_info.total_number, slice, range),
  };
}

async function advertiserSpend(ctx: ConnectorContext, range: DayRange): Promise<SourceDayTotal[]> {
  const access = accessOf(ctx);
  const { currency } = await fetchAdvertiserInfo(ctx.http, access);
  const totals: SourceDayTotal[] = [];
  for (let start: string | null = range.from; start; ) {
    const { slice, nextStart } = sliceFrom(range, start, MAX_REPORT_DAYS);
    for (let page = 1, pages = 1; page <= pages; page++) {
      const result = await fetchReportPage(ctx.http, access, { level: 'advertiser', days: slice, page });
      totals.push(...mapAdvertiserSpend(result.list, currency));
      pages = result.page_info.total_page;
    }
    start = nextStart;
  }
  return totals.sort((a, b) => a.day.localeCompare(b.day));
}

export const tiktokadsConnector: Connector = {
  platform: PLATFORM,
  kind: 'ads',
  authKind: 'oauth',
  defaultBaseUrl: () => TIKTOK_API_ROOT,

  oauth: {
    authorizeUrl(settings, state) {
      return urlWithQuery(authorizeEndpoint(settings), { app_id: settings.clientId, state, redirect_uri: settings.redirectUri });
    },

    /** `code` is the callback's auth_code; `extra.advertiserId` picks the advertiser (else the first authorized). */
    async exchangeCode(ctx, settings, code, extra) {
      const apiBase = apiBaseOf(ctx.baseUrl, ctx.credentials.apiVersion || TIKTOK_API_VERSION);
      const { accessToken, advertiserIds } = await exchangeAuthCode(ctx.http, apiBase, settings, code);
      const advertiserId = extra.advertiserId ? advertiserIds.find((id) => id === extra.advertiserId) : advertiserIds[0];
      if (!advertiserId) {
        throw new ConnectorAuthError(PLATFORM, extra.advertiserId ? `Advertiser ${extra.advertiserId} was not authorized for this app.` : 'No TikTok advertiser account was authorized.');
      }
      return { accessToken, advertiserId };
    },
  },

  async verify(ctx) {
    const access = accessOf(ctx);
    const advertiser = await fetchAdvertiserInfo(ctx.http, access);
    return { accountId: access.advertiserId, accountName: advertiser.name || `Advertiser ${access.advertiserId}`, currency: advertiser.currency };
  },

  fetchBatch,

  /** The advertiser-level report: TikTok's own spend per day. */
  async sourceTotals(ctx, window) {
    const range = reportingDays(window);
    return range ? advertiserSpend(ctx, range) : [];
  },
};
