import { ConnectorAuthError, type Connector } from '../connector.ts';
import { refreshedCredentials, urlWithQuery } from '../ads-shared/oauth2.ts';
import { fetchBySlices, reportingDays } from '../ads-shared/reporting-days.ts';
import {
  accessOf,
  ACCOUNT_REPORT_COLUMNS,
  BING_ADS_SCOPES,
  BING_API_VERSION,
  CAMPAIGN_REPORT_COLUMNS,
  customerManagementRoot,
  DISPLAY_NAME,
  exchangeAuthorizationCode,
  identityEndpoint,
  PLATFORM,
  queryAccount,
  queryUser,
  refreshAccessToken,
  REPORTING_ROOT,
  runReport,
} from './client.ts';
import { mapAccountSpend, mapCampaignRow } from './map.ts';

// Microsoft Advertising: a daily campaign performance report per slice of at most SLICE_DAYS days;
// one batch is one report (reports have no pages: the whole CSV comes in one ZIP). The cursor is the
// first day of the next slice, so a resumed sync re-runs at most one report.
//
// The developer token belongs to the app, not the user: the engine passes it in the credentials
// (and in `extra.developerToken` to exchangeCode). Tokens: access tokens last about an hour and
// refresh tokens rotate. fetchBatch never refreshes: the engine calls oauth.refresh before a sync when
// credentials.expiresAt is within 5 minutes, and once after a ConnectorAuthError that may be an
// expired token, then retries.

export const SLICE_DAYS = 31;

const fetchBatch = fetchBySlices(PLATFORM, SLICE_DAYS, async (ctx, slice) => {
  const rows = await runReport(ctx.http, accessOf(ctx), 'CampaignPerformanceReportRequest', CAMPAIGN_REPORT_COLUMNS, slice);
  return rows.map(mapCampaignRow);
});

export const bingadsConnector: Connector = {
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

    /** `extra.accountId` picks the ad account (else the user's first); `extra.developerToken` is the app's. */
    async exchangeCode(ctx, settings, code, extra) {
      const developerToken = extra.developerToken || ctx.credentials.developerToken;
      if (!developerToken) throw new ConnectorAuthError(PLATFORM, 'No Microsoft Advertising developer token is configured for this app.');
      const tokens = await exchangeAuthorizationCode(ctx.http, settings, code);
      const version = ctx.credentials.apiVersion || BING_API_VERSION;
      const user = await queryUser(ctx.http, customerManagementRoot(ctx.baseUrl), version, tokens.accessToken!, developerToken);
      const roles = (user.CustomerRoles ?? []).flatMap((role) => (role.AccountIds ?? []).map((accountId) => ({ customerId: role.CustomerId, accountId })));
      const chosen = extra.accountId ? roles.find((role) => role.accountId === extra.accountId) : roles[0];
      if (!chosen) {
        throw new ConnectorAuthError(PLATFORM, extra.accountId ? `This Microsoft user cannot access ad account ${extra.accountId}.` : 'This Microsoft user has no Microsoft Advertising account.');
      }
      return { ...tokens, developerToken, customerId: chosen.customerId, accountId: chosen.accountId };
    },

    refresh(ctx, settings) {
      return refreshedCredentials(ctx.credentials, { platform: PLATFORM, displayName: DISPLAY_NAME }, (token) => refreshAccessToken(ctx.http, settings, token));
    },
  },

  async verify(ctx) {
    const access = accessOf(ctx);
    const account = await queryAccount(ctx.http, access);
    return { accountId: access.accountId, accountName: account.Name || `Account ${account.Number ?? access.accountId}`, currency: account.CurrencyCode ?? undefined };
  },

  fetchBatch,

  /** The account performance report: Microsoft's own daily spend for the account. */
  async sourceTotals(ctx, window) {
    const range = reportingDays(window);
    if (!range) return [];
    const rows = await runReport(ctx.http, accessOf(ctx), 'AccountPerformanceReportRequest', ACCOUNT_REPORT_COLUMNS, range);
    return mapAccountSpend(rows);
  },
};
