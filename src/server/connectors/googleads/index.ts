import { ConnectorAuthError, type Connector } from '../connector.ts';
import { refreshedCredentials, urlWithQuery } from '../ads-shared/oauth2.ts';
import { fetchBySlices, reportingDays } from '../ads-shared/reporting-days.ts';
import {
  accessOf,
  authorizeEndpoint,
  CUSTOMER_QUERY,
  dailyCampaignQuery,
  dailyCustomerCostQuery,
  DISPLAY_NAME,
  exchangeAuthorizationCode,
  GOOGLE_ADS_API_ROOT,
  GOOGLE_ADS_API_VERSION,
  GOOGLE_ADS_SCOPE,
  listAccessibleCustomers,
  normalizeCustomerId,
  PLATFORM,
  refreshAccessToken,
  searchStream,
} from './client.ts';
import { mapCampaignDay, mapDailyCost } from './map.ts';

// Google Ads: daily campaign metrics by GAQL over searchStream. One batch is one slice of at most
// SLICE_DAYS reporting days (searchStream has no pages of its own); the cursor is the first day of
// the next slice, so a resumed sync re-reads at most one slice.
//
// Tokens: access tokens live an hour. fetchBatch never refreshes: the engine calls oauth.refresh
// before a sync when credentials.expiresAt is within 5 minutes, and once after a ConnectorAuthError
// that may be an expired token, then retries.

export const SLICE_DAYS = 31;

const fetchBatch = fetchBySlices(PLATFORM, SLICE_DAYS, async (ctx, slice) => {
  const access = accessOf(ctx);
  const rows = await searchStream(ctx.http, access, dailyCampaignQuery(slice));
  return rows.map((row) => mapCampaignDay(row, access.customerId, ctx.credentials.currency));
});

export const googleadsConnector: Connector = {
  platform: PLATFORM,
  kind: 'ads',
  authKind: 'oauth',
  defaultBaseUrl: () => GOOGLE_ADS_API_ROOT,

  oauth: {
    authorizeUrl(settings, state) {
      return urlWithQuery(authorizeEndpoint(settings), {
        client_id: settings.clientId,
        redirect_uri: settings.redirectUri,
        response_type: 'code',
        scope: (settings.scopes ?? [GOOGLE_ADS_SCOPE]).join(' '),
        // offline + consent: Google only hands out a refresh token that way.
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
      });
    },

    /** `extra.customerId` picks the account (else the first one the user can reach); `extra.loginCustomerId` its manager. */
    async exchangeCode(ctx, settings, code, extra) {
      const tokens = await exchangeAuthorizationCode(ctx.http, settings, code);
      const version = ctx.credentials.apiVersion || GOOGLE_ADS_API_VERSION;
      const developerToken = extra.developerToken || ctx.credentials.developerToken || undefined;
      const customers = await listAccessibleCustomers(ctx.http, ctx.baseUrl.replace(/\/+$/, ''), version, tokens.accessToken!, developerToken);
      const wanted = extra.customerId ? normalizeCustomerId(extra.customerId) : undefined;
      const customerId = wanted ?? customers[0];
      if (!customerId) throw new ConnectorAuthError(PLATFORM, 'This Google account has no Google Ads account it can access.');
      if (wanted && !customers.includes(wanted) && !extra.loginCustomerId) {
        throw new ConnectorAuthError(PLATFORM, `This Google account cannot access Google Ads account ${wanted} directly; name its manager account.`);
      }
      return {
        ...tokens,
        customerId,
        ...(extra.loginCustomerId ? { loginCustomerId: normalizeCustomerId(extra.loginCustomerId) } : {}),
        ...(developerToken ? { developerToken } : {}),
      };
    },

    refresh(ctx, settings) {
      return refreshedCredentials(ctx.credentials, { platform: PLATFORM, displayName: DISPLAY_NAME }, (token) => refreshAccessToken(ctx.http, settings, token));
    },
  },

  async verify(ctx) {
    const access = accessOf(ctx);
    const [row] = await searchStream(ctx.http, access, CUSTOMER_QUERY);
    return {
      accountId: access.customerId,
      accountName: row?.customer?.descriptiveName || `Google Ads ${access.customerId}`,
      currency: row?.customer?.currencyCode,
    };
  },

  fetchBatch,

  async sourceTotals(ctx, window) {
    const range = reportingDays(window);
    if (!range) return [];
    const rows = await searchStream(ctx.http, accessOf(ctx), dailyCustomerCostQuery(range));
    return mapDailyCost(rows, ctx.credentials.currency);
  },
};
