import { AppError } from '../../errors.ts';
import { ConnectorAuthError, type Connector, type ConnectedAccount, type ConnectorContext, type ConnectorCredentials, type PlatformAccount } from '../connector.ts';
import { fetchAcrossAccounts, syncedAccounts, totalsAcrossAccounts } from '../ads-shared/accounts.ts';
import { urlWithQuery } from '../ads-shared/oauth2.ts';
import { fetchBySlices, reportingDays, sliceFrom } from '../ads-shared/reporting-days.ts';
import {
  accessFor,
  ADVERTISER_INFO_BATCH,
  advertiserInfoOf,
  apiBaseOf,
  authorizeEndpoint,
  DISPLAY_NAME,
  exchangeAuthCode,
  fetchAdvertiserInfo,
  loginOf,
  MAX_REPORT_DAYS,
  PLATFORM,
  readWholeReport,
  REPORT_PAGE_SIZE,
  TIKTOK_API_ROOT,
  TIKTOK_API_VERSION,
} from './client.ts';
import { accountOfAdvertiser, mapAdvertiserSpend, mapReportRow } from './map.ts';

// TikTok Ads: the synchronous integrated report at campaign level by day, for every advertiser the
// user chose (ctx.accounts, each with its own currency and time zone). Daily reports span at most
// MAX_REPORT_DAYS, so the window is cut into slices; one batch is one whole slice of one advertiser,
// read in a stable order (readWholeReport: report pages have no fixed order of their own). The cursor
// names the advertiser and the first day of its next slice.
//
// Advertiser access tokens are long-term (no refresh token is issued), so there is no oauth.refresh;
// a revoked token ends the connection until the user reconnects.

/** The advertisers the user authorized (stored at the code exchange), else the one an older connection names. */
function authorizedIds(credentials: ConnectorCredentials): string[] {
  if (credentials.advertiserIds) {
    const ids = JSON.parse(credentials.advertiserIds) as unknown;
    if (Array.isArray(ids)) return ids.map(String);
  }
  return credentials.advertiserId ? [credentials.advertiserId] : [];
}

/** The advertiser a connection made before accounts could be chosen names (credentials.advertiserId). */
function legacyAccount(ctx: ConnectorContext): PlatformAccount {
  const { advertiserId } = ctx.credentials;
  if (!advertiserId) throw new AppError('BAD_REQUEST', `Choose the ${DISPLAY_NAME} advertisers to sync: this connection has none chosen yet.`);
  return { accountId: advertiserId, name: `Advertiser ${advertiserId}`, currency: null, timezone: null, access: {} };
}

/** The account with its currency: an older connection's advertiser is looked up (advertiser/info). */
async function readableAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
  return account.currency ? account : accountOfAdvertiser(await advertiserInfoOf(ctx.http, accessFor(ctx, account)));
}

/** Every authorized advertiser with its name, currency and time zone. */
async function listAccounts(ctx: ConnectorContext): Promise<PlatformAccount[]> {
  const login = loginOf(ctx);
  const ids = authorizedIds(ctx.credentials);
  const accounts: PlatformAccount[] = [];
  for (let start = 0; start < ids.length; start += ADVERTISER_INFO_BATCH) {
    accounts.push(...(await fetchAdvertiserInfo(ctx.http, login, ids.slice(start, start + ADVERTISER_INFO_BATCH))).map(accountOfAdvertiser));
  }
  return accounts;
}

function connectedAccountOf(account: PlatformAccount): ConnectedAccount {
  return { accountId: account.accountId, accountName: account.name, ...(account.currency ? { currency: account.currency } : {}), ...(account.timezone ? { timezone: account.timezone } : {}) };
}

export interface TikTokAdsConnectorOptions {
  /** Rows a report page holds (TikTok's maximum, 1,000, unless a test wants smaller pages). */
  pageSize?: number;
}

export function createTikTokAdsConnector(options: TikTokAdsConnectorOptions = {}): Connector {
  const pageSize = options.pageSize ?? REPORT_PAGE_SIZE;
  return {
    platform: PLATFORM,
    kind: 'ads',
    authKind: 'oauth',
    defaultBaseUrl: () => TIKTOK_API_ROOT,

    oauth: {
      authorizeUrl(settings, state) {
        return urlWithQuery(authorizeEndpoint(settings), { app_id: settings.clientId, state, redirect_uri: settings.redirectUri });
      },

      /**
       * `code` is the callback's auth_code. The token and the advertisers the user authorized; which to
       * sync is the user's choice among listAccounts. `extra.advertiserId` still names one, as before.
       */
      async exchangeCode(ctx, settings, code, extra) {
        const apiBase = apiBaseOf(ctx.baseUrl, ctx.credentials.apiVersion || TIKTOK_API_VERSION);
        const { accessToken, advertiserIds } = await exchangeAuthCode(ctx.http, apiBase, settings, code);
        if (advertiserIds.length === 0) throw new ConnectorAuthError(PLATFORM, 'No TikTok advertiser account was authorized.');
        const credentials = { accessToken, advertiserIds: JSON.stringify(advertiserIds) };
        if (!extra.advertiserId) return credentials;
        if (!advertiserIds.includes(extra.advertiserId)) throw new ConnectorAuthError(PLATFORM, `Advertiser ${extra.advertiserId} was not authorized for this app.`);
        return { ...credentials, advertiserId: extra.advertiserId };
      },
    },

    /** The first advertiser synced (chosen, or named by an older connection); before any choice, the first authorized one. */
    async verify(ctx) {
      if ((ctx.accounts ?? []).length > 0 || ctx.credentials.advertiserId) {
        return connectedAccountOf(await readableAccount(ctx, syncedAccounts(ctx, () => legacyAccount(ctx))[0]!));
      }
      const [first] = await listAccounts(ctx);
      if (!first) throw new ConnectorAuthError(PLATFORM, 'No TikTok advertiser account was authorized.');
      return connectedAccountOf(first);
    },

    fetchBatch: fetchAcrossAccounts(PLATFORM, legacyAccount, async (ctx, chosen, window, cursor) => {
      const account = await readableAccount(ctx, chosen);
      return fetchBySlices(PLATFORM, MAX_REPORT_DAYS, async (sliceCtx, slice) => {
        const rows = await readWholeReport(sliceCtx.http, accessFor(sliceCtx, account), 'campaign', slice, pageSize);
        return rows.map((row) => mapReportRow(row, account.accountId, account.currency!));
      })(ctx, window, cursor);
    }),

    /** The advertiser-level report: TikTok's own spend per day of each advertiser, in its currency. */
    async sourceTotals(ctx, window) {
      const range = reportingDays(window);
      if (!range) return [];
      return totalsAcrossAccounts(ctx, legacyAccount, async (chosen) => {
        const account = await readableAccount(ctx, chosen);
        const totals = [];
        for (let start: string | null = range.from; start; ) {
          const { slice, nextStart } = sliceFrom(range, start, MAX_REPORT_DAYS);
          totals.push(...mapAdvertiserSpend(await readWholeReport(ctx.http, accessFor(ctx, account), 'advertiser', slice, pageSize), account.currency!, account.accountId));
          start = nextStart;
        }
        return totals.sort((a, b) => a.day.localeCompare(b.day));
      });
    },

    listAccounts,
  };
}

export const tiktokadsConnector = createTikTokAdsConnector();
