import { AppError } from '../../errors.ts';
import { ConnectorAuthError, ConnectorRequestError, type Connector, type ConnectorContext, type PlatformAccount } from '../connector.ts';
import { fetchSlicesAcrossAccounts, noAccountChosen, totalsAcrossAccounts, verifyAccounts } from '../ads-shared/accounts.ts';
import { refreshedCredentials, urlWithQuery } from '../ads-shared/oauth2.ts';
import { reportingDays, type DayRange } from '../ads-shared/reporting-days.ts';
import {
  accessFor,
  authorizeEndpoint,
  CUSTOMER_CLIENTS_QUERY,
  CUSTOMER_QUERY,
  dailyCampaignQuery,
  dailyCustomerCostQuery,
  dailyProductQuery,
  DISPLAY_NAME,
  exchangeAuthorizationCode,
  GOOGLE_ADS_API_ROOT,
  GOOGLE_ADS_SCOPE,
  listAccessibleCustomers,
  loginOf,
  normalizeCustomerId,
  NOT_ENABLED,
  PLATFORM,
  refreshAccessToken,
  searchStream,
} from './client.ts';
import { accountOfCustomer, accountsOfClients, mapCampaignDay, mapDailyCost, mapProductDay } from './map.ts';
import type { IngestProductAdSlice } from '../../modules/commerce/product-ad-metrics.ts';

// Google Ads: daily campaign metrics by GAQL over searchStream, for every account the user chose
// (ctx.accounts: client accounts, each with its own currency and time zone, reached directly or
// through a manager's login-customer-id). Per account, one batch is one slice of at most SLICE_DAYS
// reporting days (searchStream has no pages of its own); the cursor names the account and the first
// day of its next slice, so a resumed sync re-reads at most one slice.
//
// A manager account (MCC) has no metrics: Google refuses such a query (REQUESTED_METRICS_FOR_MANAGER),
// so none is ever sent for one. Managers are listed (not selectable) and their clients are reached
// with the manager as login-customer-id.
//
// Tokens: access tokens live an hour. fetchBatch never refreshes: the engine calls oauth.refresh
// before a sync when credentials.expiresAt is within 5 minutes, and after a ConnectorAuthError that
// may be an expired token, then retries the batch.

export const SLICE_DAYS = 31;

/**
 * The account a connection made before accounts could be chosen names (credentials.customerId, with
 * loginCustomerId when reached through a manager). Whether it is a manager is not known yet
 * (isManager undefined): it is asked before any metrics are.
 */
function namedAccount(ctx: ConnectorContext): PlatformAccount | null {
  const { customerId, loginCustomerId, currency } = ctx.credentials;
  if (!customerId) return null;
  const accountId = normalizeCustomerId(customerId);
  return { accountId, name: `${DISPLAY_NAME} ${accountId}`, currency: currency ?? null, timezone: null, access: loginCustomerId ? { loginCustomerId: normalizeCustomerId(loginCustomerId) } : {} };
}

function legacyAccount(ctx: ConnectorContext): PlatformAccount {
  const account = namedAccount(ctx);
  if (!account) throw noAccountChosen(DISPLAY_NAME);
  return account;
}

/** The account as Google describes it (name, currency, zone, manager flag): one cheap call, made by verify too. */
async function describedAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
  const [row] = await searchStream(ctx.http, accessFor(ctx, account), CUSTOMER_QUERY);
  return row ? { ...accountOfCustomer(row), access: account.access } : account;
}

/** The account ready for metrics queries: one not known to be a client is described first, and a manager refused. */
async function readableAccount(ctx: ConnectorContext, account: PlatformAccount): Promise<PlatformAccount> {
  if (account.isManager === false) return account;
  const known = await describedAccount(ctx, account);
  if (known.isManager !== false) {
    throw new AppError(
      'BAD_REQUEST',
      `${DISPLAY_NAME} account ${account.accountId} is a manager account, which has no metrics of its own: choose its client accounts to sync instead.`,
    );
  }
  return known;
}

/**
 * One slice of one client account: its campaign days, then its products' days (shopping_performance_view)
 * for the same days, so both share the slice's cursor. The product days are stored as a whole slice: a day
 * read again replaces what was stored for it.
 */
const fetchBatch = fetchSlicesAcrossAccounts(PLATFORM, SLICE_DAYS, legacyAccount, readableAccount, async (ctx, account, slice) => {
  const access = accessFor(ctx, account);
  const campaignRows = await searchStream(ctx.http, access, dailyCampaignQuery(slice));
  const adMetrics = campaignRows.map((row) => mapCampaignDay(row, account.accountId, account.currency ?? undefined));
  const products = await fetchProductPerformance(ctx, account, slice);
  return { adMetrics, productAdSlices: [products] };
});

/** One client account's products' days in `slice`, as a slice to store whole. Never called for a manager (readableAccount). */
export async function fetchProductPerformance(ctx: ConnectorContext, account: PlatformAccount, slice: DayRange): Promise<IngestProductAdSlice> {
  const rows = await searchStream(ctx.http, accessFor(ctx, account), dailyProductQuery(slice));
  const products = rows.map((row) => mapProductDay(row, account.currency ?? undefined)).filter((row) => row.productItemId !== '');
  return { platform: PLATFORM, accountId: account.accountId, from: slice.from, to: slice.to, rows: products };
}

/**
 * Every account the login reaches: the customers it can call directly (listAccessibleCustomers) with
 * their own details, and for each manager among them all its clients (customer_client), reached
 * through that manager. An account reachable both ways is listed once, directly.
 */
async function listAccounts(ctx: ConnectorContext): Promise<PlatformAccount[]> {
  const login = loginOf(ctx);
  const accounts = new Map<string, PlatformAccount>();
  const managers: string[] = [];
  for (const customerId of await listAccessibleCustomers(ctx.http, login)) {
    const rows = await searchStream(ctx.http, { ...login, customerId }, CUSTOMER_QUERY).catch((error: unknown) => {
      // A cancelled or closed account is listed by listAccessibleCustomers but cannot be read.
      if (error instanceof ConnectorRequestError && error.detail.startsWith(NOT_ENABLED)) return [];
      throw error;
    });
    if (!rows[0]) continue;
    const account = accountOfCustomer(rows[0]);
    accounts.set(account.accountId, account);
    if (account.isManager) managers.push(account.accountId);
  }
  for (const managerId of managers) {
    const rows = await searchStream(ctx.http, { ...login, customerId: managerId, loginCustomerId: managerId }, CUSTOMER_CLIENTS_QUERY);
    for (const client of accountsOfClients(rows, managerId)) if (!accounts.has(client.accountId)) accounts.set(client.accountId, client);
  }
  return [...accounts.values()];
}

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

    /**
     * Tokens only: which accounts to sync is the user's choice among listAccounts. `extra.customerId`
     * (with `extra.loginCustomerId`, its manager) still names one account, as connections made before did.
     */
    async exchangeCode(ctx, settings, code, extra) {
      const tokens = await exchangeAuthorizationCode(ctx.http, settings, code);
      const developerToken = extra.developerToken || ctx.credentials.developerToken || undefined;
      const credentials = { ...tokens, ...(developerToken ? { developerToken } : {}) };
      if (!extra.customerId) return credentials;
      const wanted = normalizeCustomerId(extra.customerId);
      const customers = await listAccessibleCustomers(ctx.http, loginOf({ ...ctx, credentials: { ...ctx.credentials, ...credentials } }));
      if (!customers.includes(wanted) && !extra.loginCustomerId) {
        throw new ConnectorAuthError(PLATFORM, `This Google account cannot access Google Ads account ${wanted} directly; name its manager account.`);
      }
      return { ...credentials, customerId: wanted, ...(extra.loginCustomerId ? { loginCustomerId: normalizeCustomerId(extra.loginCustomerId) } : {}) };
    },

    refresh(ctx, settings) {
      return refreshedCredentials(ctx.credentials, { platform: PLATFORM, displayName: DISPLAY_NAME }, (token) => refreshAccessToken(ctx.http, settings, token));
    },
  },

  verify: (ctx) =>
    verifyAccounts(ctx, {
      platform: PLATFORM,
      named: namedAccount,
      describe: describedAccount,
      listAccounts,
      noAccount: 'This Google account reaches no Google Ads account with metrics of its own (none, or manager accounts only).',
    }),

  fetchBatch,

  /** Each account's own daily cost (all its campaigns, removed ones too), in its currency. */
  async sourceTotals(ctx, window) {
    const range = reportingDays(window);
    if (!range) return [];
    return totalsAcrossAccounts(ctx, legacyAccount, async (chosen) => {
      const account = await readableAccount(ctx, chosen);
      const rows = await searchStream(ctx.http, accessFor(ctx, account), dailyCustomerCostQuery(range));
      return mapDailyCost(rows, account.currency ?? undefined, account.accountId);
    });
  },

  listAccounts,
};
