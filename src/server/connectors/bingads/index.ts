import { dayInZone } from '../../../shared/date-ranges.ts';
import { ConnectorAuthError, MalformedResponseError, type Connector, type ConnectorContext, type PlatformAccount } from '../connector.ts';
import { fetchSlicesAcrossAccounts, noAccountChosen, totalsAcrossAccounts, verifyAccounts } from '../ads-shared/accounts.ts';
import { refreshedCredentials, urlWithQuery } from '../ads-shared/oauth2.ts';
import { reportingDays, type DayRange } from '../ads-shared/reporting-days.ts';
import {
  accessFor,
  ACCOUNT_REPORT_COLUMNS,
  BING_ADS_SCOPES,
  CAMPAIGN_REPORT_COLUMNS,
  DISPLAY_NAME,
  exchangeAuthorizationCode,
  identityEndpoint,
  loginOf,
  PLATFORM,
  queryAccount,
  queryUser,
  refreshAccessToken,
  reportRequest,
  REPORTING_ROOT,
  runReport,
  searchAccounts,
  type PendingReport,
  type ReportType,
} from './client.ts';
import { accountOf, mapAccountSpend, mapCampaignRow } from './map.ts';
import { REPORT_TIME_ZONES, reportTimeZoneOf } from './time-zones.ts';

// Microsoft Advertising: a daily campaign performance report per account the user chose (ctx.accounts,
// each with its own currency and time zone) and per slice of at most SLICE_DAYS days; one batch is one
// report (reports have no pages: the whole CSV comes in one ZIP). The cursor names the account and the
// first day of its next slice, so a resumed sync re-runs at most one report.
//
// Days: a report's days are the account's own. Each request names explicit dates and, as
// ReportTimeZone, the account's own zone, which only decides what "today" is; the end date is cut to
// the account's today, which the service requires
// (https://learn.microsoft.com/en-us/advertising/reporting-service/reporttime).
//
// The developer token belongs to the app, not the user: the engine passes it in the credentials (and
// in `extra.developerToken` to exchangeCode). Tokens: access tokens last about an hour and refresh
// tokens rotate; a report's polling can outlast one. fetchBatch never refreshes: the engine calls
// oauth.refresh before a sync when credentials.expiresAt is within 5 minutes, and after a
// ConnectorAuthError (an access token that expired mid-poll), then retries the batch with the same
// context, whose report is then polled again rather than submitted again (runReport's `pending`).

export const SLICE_DAYS = 31;

/** When no ReportTimeZone is sent, the service's "today" is Pacific time's. */
const DEFAULT_REPORT_ZONE = REPORT_TIME_ZONES.PacificTimeUSCanadaTijuana!;

export interface BingAdsConnectorOptions {
  /** The clock deciding each account's "today" (tests pin it to the fake's). */
  now?: () => Date;
}

/** The account a connection made before accounts could be chosen names (credentials.accountId and customerId), or null. */
function namedAccount(ctx: ConnectorContext): PlatformAccount | null {
  const { accountId, customerId } = ctx.credentials;
  return accountId && customerId ? { accountId, name: `Account ${accountId}`, currency: null, timezone: null, access: { customerId } } : null;
}

function legacyAccount(ctx: ConnectorContext): PlatformAccount {
  const account = namedAccount(ctx);
  if (!account) throw noAccountChosen(DISPLAY_NAME);
  return account;
}

/** Every account the signed-in user can reach (GetUser for its id, then SearchAccounts by that id). */
async function listAccounts(ctx: ConnectorContext): Promise<PlatformAccount[]> {
  const login = loginOf(ctx);
  const user = await queryUser(ctx.http, login);
  const userId = user.User?.Id;
  if (!userId) throw new MalformedResponseError(PLATFORM, 'GetUser answered without User.Id');
  return (await searchAccounts(ctx.http, login, userId)).map((account) => accountOf(account));
}

export function createBingAdsConnector(options: BingAdsConnectorOptions = {}): Connector {
  const now = options.now ?? (() => new Date());
  // Reports submitted and not yet downloaded, per sync context (the engine retries a batch with the same one).
  const pendingByContext = new WeakMap<ConnectorContext, Map<string, PendingReport>>();
  const pendingOf = (ctx: ConnectorContext) => {
    let pending = pendingByContext.get(ctx);
    if (!pending) pendingByContext.set(ctx, (pending = new Map()));
    return pending;
  };

  /** The account as GetAccount describes it (currency, time zone, owning customer): one cheap call, made by verify too. */
  async function describedAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
    return accountOf(await queryAccount(ctx.http, loginOf(ctx), account.accountId), account.access?.customerId);
  }

  /** The account with its time zone: an older connection's account is described first. */
  async function readableAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
    return account.access?.timeZone ? account : describedAccount(ctx, account);
  }

  /** One report of `account` over `days` cut to its today ([] when the days start after it). */
  async function report(ctx: ConnectorContext, account: PlatformAccount, type: ReportType, columns: readonly string[], days: DayRange) {
    const reportTimeZone = reportTimeZoneOf(account.access?.timeZone);
    const today = dayInZone(now(), reportTimeZone ? REPORT_TIME_ZONES[reportTimeZone]! : DEFAULT_REPORT_ZONE);
    if (days.from > today) return [];
    const upToToday = { from: days.from, to: days.to > today ? today : days.to };
    const request = reportRequest(type, columns, account.accountId, upToToday, reportTimeZone);
    return runReport(ctx.http, accessFor(ctx, account), request, pendingOf(ctx), now().getTime());
  }

  return {
    platform: PLATFORM,
    kind: 'ads',
    authKind: 'oauth',
    defaultBaseUrl: () => REPORTING_ROOT,

    oauth: {
      authorizeUrl(settings, state) {
        return urlWithQuery(identityEndpoint(settings, 'authorize'), {
          client_id: settings.clientId,
          response_type: 'code',
          redirect_uri: settings.redirectUri,
          response_mode: 'query',
          scope: (settings.scopes ?? BING_ADS_SCOPES).join(' '),
          state,
        });
      },

      /**
       * Tokens only: which accounts to sync is the user's choice among listAccounts. `extra.accountId`
       * still names one account, as connections made before did; `extra.developerToken` is the app's.
       */
      async exchangeCode(ctx, settings, code, extra) {
        const developerToken = extra.developerToken || ctx.credentials.developerToken;
        if (!developerToken) throw new ConnectorAuthError(PLATFORM, 'No Microsoft Advertising developer token is configured for this app.');
        const credentials = { ...(await exchangeAuthorizationCode(ctx.http, settings, code)), developerToken };
        if (!extra.accountId) return credentials;
        const accounts = await listAccounts({ ...ctx, credentials: { ...ctx.credentials, ...credentials } });
        const named = accounts.find((account) => account.accountId === extra.accountId);
        if (!named) throw new ConnectorAuthError(PLATFORM, `This Microsoft user cannot access ad account ${extra.accountId}.`);
        return { ...credentials, accountId: named.accountId, customerId: named.access!.customerId! };
      },

      refresh(ctx, settings) {
        return refreshedCredentials(ctx.credentials, { platform: PLATFORM, displayName: DISPLAY_NAME }, (token) => refreshAccessToken(ctx.http, settings, token));
      },
    },

    verify: (ctx) =>
      verifyAccounts(ctx, { platform: PLATFORM, named: namedAccount, describe: describedAccount, listAccounts, noAccount: 'This Microsoft user has no Microsoft Advertising account.' }),

    fetchBatch: fetchSlicesAcrossAccounts(PLATFORM, SLICE_DAYS, legacyAccount, readableAccount, async (ctx, account, slice) =>
      (await report(ctx, account, 'CampaignPerformanceReportRequest', CAMPAIGN_REPORT_COLUMNS, slice)).map(mapCampaignRow),
    ),

    /** The account performance report: Microsoft's own daily spend of each account, in its currency. */
    async sourceTotals(ctx, window) {
      const range = reportingDays(window);
      if (!range) return [];
      return totalsAcrossAccounts(ctx, legacyAccount, async (chosen) => {
        const account = await readableAccount(ctx, chosen);
        return mapAccountSpend(await report(ctx, account, 'AccountPerformanceReportRequest', ACCOUNT_REPORT_COLUMNS, range), account.accountId);
      });
    },

    listAccounts,
  };
}

export const bingadsConnector = createBingAdsConnector();
