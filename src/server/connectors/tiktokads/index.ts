import { ConnectorAuthError, type Connector, type ConnectorContext, type ConnectorCredentials, type PlatformAccount } from '../connector.ts';
import { fetchSlicesAcrossAccounts, noAccountChosen, totalsAcrossAccounts, verifyAccounts } from '../ads-shared/accounts.ts';
import { urlWithQuery } from '../ads-shared/oauth2.ts';
import { reportingDays, sliceFrom } from '../ads-shared/reporting-days.ts';
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
    try {
      const ids = JSON.parse(credentials.advertiserIds) as unknown;
      if (Array.isArray(ids)) return ids.map(String);
    } catch {
      // Not the list exchangeCode stores: fall back to the one advertiser an older connection names.
    }
  }
  return credentials.advertiserId ? [credentials.advertiserId] : [];
}

/** The advertiser a connection made before accounts could be chosen names (credentials.advertiserId), or null. */
function namedAccount(ctx: ConnectorContext): PlatformAccount | null {
  const { advertiserId } = ctx.credentials;
  return advertiserId ? { accountId: advertiserId, name: `Advertiser ${advertiserId}`, currency: null, timezone: null, access: {} } : null;
}

function legacyAccount(ctx: ConnectorContext): PlatformAccount {
  const account = namedAccount(ctx);
  if (!account) throw noAccountChosen(DISPLAY_NAME, 'advertisers');
  return account;
}

/** The advertiser as advertiser/info describes it (name, currency, time zone): one cheap call, made by verify too. */
async function describedAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
  return accountOfAdvertiser(await advertiserInfoOf(ctx.http, accessFor(ctx, account)));
}

/** The advertiser with its currency: an older connection's advertiser is described first. */
async function readableAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
  return account.currency ? account : describedAccount(ctx, account);
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

    verify: (ctx) =>
      verifyAccounts(ctx, { platform: PLATFORM, named: namedAccount, describe: describedAccount, listAccounts, noAccount: 'No TikTok advertiser account was authorized.' }),

    fetchBatch: fetchSlicesAcrossAccounts(PLATFORM, MAX_REPORT_DAYS, legacyAccount, readableAccount, async (ctx, account, slice) => {
      const rows = await readWholeReport(ctx.http, accessFor(ctx, account), 'campaign', slice, pageSize);
      return rows.map((row) => mapReportRow(row, account.accountId, account.currency!));
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
