import { ConnectorAuthError, ConnectorRequestError, type Connector, type ConnectorContext, type PlatformAccount, type SyncBatch, type SyncWindow } from '../connector.ts';
import { fetchAcrossAccounts, totalsAcrossAccounts } from '../ads-shared/accounts.ts';
import { urlWithQuery } from '../ads-shared/oauth2.ts';
import {
  accessOf,
  dialogUrl,
  exchangeForLongLivedToken,
  fetchAdAccount,
  fetchAdAccounts,
  fetchMe,
  META_ADS_SCOPES,
  META_API_VERSION,
  META_GRAPH_ROOT,
  numericAccountId,
  PLATFORM,
  type AdAccountNode,
} from './client.ts';
import { accountDailySpend, campaignInsightsReader, type InsightsReadingOptions } from './insights.ts';

// Meta Ads: Ads Insights at campaign level, one row per campaign and day, for every ad account the
// user chose (ctx.accounts), each in its own currency; one Graph page per batch (see insights.ts for
// report runs, splitting and the cursor). A connection made before accounts could be chosen keeps
// reading the account its credentials name (credentials.adAccountId).
//
// Tokens: the long-lived user token lasts about 60 days and Meta documents no way for a server to
// renew it without the user (the SDKs extend a token only when the person uses the app; an expired
// token cannot be exchanged), so there is no oauth.refresh. credentials.expiresAt holds its expiry
// and every batch warns the user in the last EXPIRY_WARNING_DAYS days; after it, Graph answers 190
// and the connection needs the user to reconnect.

export const EXPIRY_WARNING_DAYS = 7;
const DAY_MS = 86_400_000;

export interface MetaAdsConnectorOptions extends InsightsReadingOptions {
  /** The clock of the expiry warning (tests). */
  now?: () => Date;
}

/** The account a connection made before accounts could be chosen names in its credentials. */
function credentialsAccount(ctx: ConnectorContext): PlatformAccount {
  const accountId = numericAccountId(ctx.credentials.adAccountId!);
  return { accountId, name: `Ad account ${accountId}`, currency: null, timezone: null };
}

export function platformAccountOf(node: AdAccountNode & { id?: string }): PlatformAccount {
  const accountId = numericAccountId(node.account_id ?? node.id ?? '');
  return { accountId, name: node.name || `Ad account ${accountId}`, currency: node.currency, timezone: node.timezone_name ?? null };
}

async function listAccounts(ctx: ConnectorContext): Promise<PlatformAccount[]> {
  return (await fetchAdAccounts(ctx.http, accessOf(ctx))).map(platformAccountOf);
}

/**
 * The context with the accounts to read. Nothing chosen and no account in the credentials (a new
 * connection whose choice is still to be made): the login's only account, if it has one; with several,
 * the user must choose rather than have one taken for them.
 */
async function withAccounts(ctx: ConnectorContext): Promise<ConnectorContext> {
  if ((ctx.accounts ?? []).some((account) => !account.isManager) || ctx.credentials.adAccountId) return ctx;
  const reachable = await listAccounts(ctx);
  if (reachable.length === 1) return { ...ctx, accounts: reachable };
  if (reachable.length === 0) throw new ConnectorRequestError(PLATFORM, 400, 'This Facebook login has no ad account it can read: give it access to an ad account in Meta Business settings.');
  const names = reachable.map((account) => `${account.name} (${account.accountId})`).join(', ');
  throw new ConnectorRequestError(PLATFORM, 400, `This Facebook login reaches ${reachable.length} ad accounts (${names}): choose the ones to sync in the Meta Ads connection.`);
}

/** What the user should read when the token's end is near (or past); null otherwise. */
export function expiryWarning(expiresAt: string | undefined, now: Date): string | null {
  const expiry = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  if (!Number.isFinite(expiry) || expiry - now.getTime() > EXPIRY_WARNING_DAYS * DAY_MS) return null;
  const date = new Date(expiry).toISOString().slice(0, 10);
  return expiry > now.getTime()
    ? `The Meta Ads authorization expires on ${date}: reconnect Meta Ads before then so that spend keeps arriving.`
    : `The Meta Ads authorization expired on ${date}: reconnect Meta Ads so that spend arrives again.`;
}

export function createMetaAdsConnector(options: MetaAdsConnectorOptions = {}): Connector {
  const now = options.now ?? (() => new Date());
  const readAcrossAccounts = fetchAcrossAccounts(PLATFORM, credentialsAccount, campaignInsightsReader(options));

  async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, cursor: string | null): Promise<SyncBatch> {
    const batch = await readAcrossAccounts(await withAccounts(ctx), window, cursor);
    const warning = expiryWarning(ctx.credentials.expiresAt, now());
    return warning ? { ...batch, warnings: [...(batch.warnings ?? []), warning] } : batch;
  }

  return {
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

      /**
       * The long-lived token and its expiry. The ad accounts are chosen afterwards (listAccounts);
       * `extra.adAccountId` (connections made the old way) still names one, checked to be reachable.
       */
      async exchangeCode(ctx, settings, code, extra) {
        const graphRoot = ctx.baseUrl.replace(/\/+$/, '');
        const version = ctx.credentials.apiVersion || META_API_VERSION;
        const token = await exchangeForLongLivedToken(ctx.http, graphRoot, version, settings, code);
        const credentials: Record<string, string> = { accessToken: token.accessToken, ...(token.expiresAt ? { expiresAt: token.expiresAt } : {}) };
        if (extra.adAccountId) {
          const wanted = numericAccountId(extra.adAccountId);
          const reachable = await listAccounts({ ...ctx, credentials: { ...ctx.credentials, ...credentials } });
          if (!reachable.some((account) => account.accountId === wanted)) throw new ConnectorAuthError(PLATFORM, `This Facebook user cannot access ad account ${wanted}.`);
          credentials.adAccountId = wanted;
        }
        return credentials;
      },
    },

    /** GET /me proves the token; with one account chosen or named, that account's currency and time zone. */
    async verify(ctx) {
      const access = accessOf(ctx);
      const user = await fetchMe(ctx.http, access);
      const accountName = user.name || `Facebook user ${user.id}`;
      const chosen = (ctx.accounts ?? []).filter((account) => !account.isManager);
      const single = chosen.length === 1 ? chosen[0]! : chosen.length === 0 && ctx.credentials.adAccountId ? credentialsAccount(ctx) : null;
      if (!single) return { accountId: user.id, accountName };
      const known = single.currency && single.timezone ? single : platformAccountOf(await fetchAdAccount(ctx.http, access, single.accountId));
      return { accountId: single.accountId, accountName, ...(known.currency ? { currency: known.currency } : {}), ...(known.timezone ? { timezone: known.timezone } : {}) };
    },

    fetchBatch,

    /** Meta's own daily spend per account (level=account), each in the account's currency. */
    async sourceTotals(ctx, window) {
      const withChoice = await withAccounts(ctx);
      return totalsAcrossAccounts(withChoice, credentialsAccount, (account) => accountDailySpend(withChoice, account, window, options.pageSize));
    },

    listAccounts,
  };
}

export const metaadsConnector: Connector = createMetaAdsConnector();
