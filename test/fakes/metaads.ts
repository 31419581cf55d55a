import { AdPlatformFake, AdDataSet, bearerToken, FakeTokenAuthority, minorToDecimal, type CampaignDay } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';

// Meta Marketing API fake: the Facebook Login dialog, /oauth/access_token (code exchange and the
// long-lived fb_exchange_token exchange), /me/adaccounts, the ad account node, and Ads Insights
// (level campaign|account, time_increment=1, time_range, limit + `after` cursors, paging.next),
// with Graph's error envelope, throttling codes and usage headers.

export interface MetaAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  adAccountId?: string;
  accountName?: string;
  currency?: string;
}

const SHORT_LIVED_SECONDS = 3600;
const LONG_LIVED_SECONDS = 60 * 86_400;

function graphError(code: number, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { error: { message, type: 'OAuthException', code, fbtrace_id: 'FakeTrace123', ...extra } };
}

const encodeAfter = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
function decodeAfter(after: string | null): number | null {
  if (!after) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

export class MetaAdsFake extends AdPlatformFake {
  readonly data: AdDataSet;
  readonly auth: FakeTokenAuthority;
  readonly adAccountId: string;
  readonly accountName: string;
  /** Percent use the fake reports in X-FB-Ads-Insights-Throttle. */
  accountUtilisation = 12;

  constructor(options: MetaAdsFakeOptions = {}) {
    super();
    this.data = new AdDataSet({ seed: options.seed, campaigns: options.campaigns, currency: options.currency });
    this.auth = new FakeTokenAuthority({ clientId: '1234567890123456', accessTokenSeconds: LONG_LIVED_SECONDS });
    this.adAccountId = options.adAccountId ?? '1234567890';
    this.accountName = options.accountName ?? 'Fake Store – Meta';

    this.route('GET', '/:version/dialog/oauth', (request) => this.dialog(request));
    this.route('GET', '/:version/oauth/access_token', (request) => this.accessToken(request));
    this.route('GET', '/:version/me/adaccounts', (request) => this.guarded(request, () => this.adAccounts()));
    this.route('GET', '/:version/:node/insights', (request) => this.guarded(request, () => this.insights(request)));
    this.route('GET', '/:version/:node', (request) => this.guarded(request, () => this.adAccountNode(request)));
  }

  connectedCredentials(): Record<string, string> {
    const { token, expiresIn } = this.auth.issueAccessToken('EAAB');
    return { accessToken: token, expiresAt: new Date(this.auth.now() + (expiresIn ?? 0) * 1000).toISOString(), adAccountId: this.adAccountId };
  }

  private dialog(request: FakeRequest): FakeResponse {
    return this.consentAnswer(request, {
      invalidAppHtml: '<h1>Invalid App ID</h1>',
      platformName: 'Facebook',
      scopes: (query) => (query.get('scope') ?? '').split(',').filter(Boolean),
      allow: (code, state) => ({ code, state }),
      deny: (state) => ({ error: 'access_denied', error_reason: 'user_denied', state }),
    });
  }

  private accessToken(request: FakeRequest): FakeResponse {
    const query = request.query;
    if (query.get('client_id') !== this.auth.clientId || query.get('client_secret') !== this.auth.clientSecret) {
      return { status: 400, body: graphError(101, 'Error validating application. Invalid application ID.') };
    }
    if (query.get('grant_type') === 'fb_exchange_token') {
      if (this.auth.accessTokenState(query.get('fb_exchange_token') ?? undefined) !== 'valid') {
        return { status: 400, body: graphError(190, 'Error validating access token: Session has expired.', { error_subcode: 463 }) };
      }
      const { token, expiresIn } = this.auth.issueAccessToken('EAAB', LONG_LIVED_SECONDS);
      return { body: { access_token: token, token_type: 'bearer', expires_in: expiresIn } };
    }
    const refused = this.auth.redeemCode(query.get('code') ?? '', this.auth.clientId, query.get('redirect_uri') ?? '');
    if (refused) return { status: 400, body: graphError(100, `Error validating verification code: ${refused}.`, { error_subcode: 36007 }) };
    const { token, expiresIn } = this.auth.issueAccessToken('EAAS', SHORT_LIVED_SECONDS);
    return { body: { access_token: token, token_type: 'bearer', expires_in: expiresIn } };
  }

  private tokenFailure(request: FakeRequest): FakeResponse | null {
    const token = request.query.get('access_token') ?? bearerToken(request.headers.authorization);
    const state = this.auth.accessTokenState(token);
    if (state === 'valid') return null;
    if (state === 'expired') return { status: 400, body: graphError(190, 'Error validating access token: Session has expired on Friday, 16-Jan-26 10:00:00 PST.', { error_subcode: 463 }) };
    if (state === 'revoked') return { status: 400, body: graphError(190, 'Error validating access token: The user has not authorized application 1234567890123456.', { error_subcode: 458 }) };
    return { status: 400, body: graphError(190, 'Invalid OAuth access token - Cannot parse access token') };
  }

  private guarded(request: FakeRequest, answer: () => FakeResponse): FakeResponse {
    const fault = this.takeFault(request);
    switch (fault) {
      case 'rate_limit':
        return {
          status: 400,
          headers: {
            'x-business-use-case-usage': JSON.stringify({ [this.adAccountId]: [{ type: 'ads_insights', call_count: 100, total_cputime: 40, total_time: 60, estimated_time_to_regain_access: 2 }] }),
          },
          body: graphError(17, '(#17) User request limit reached', { error_subcode: 2446079, is_transient: true }),
        };
      case 'server_error':
        return { status: 500, body: graphError(2, 'An unexpected error has occurred. Please retry your request later.', { is_transient: true }) };
      case 'malformed':
        return { status: 200, body: { data: [{ campaign_id: '1', spend: '1.00', date_start: 'Jan 15' }] } };
      case 'expired_token':
        this.auth.expireAccessTokens();
        break;
      case 'revoked':
        this.auth.revokeAll();
        break;
      default:
        break;
    }
    return this.tokenFailure(request) ?? answer();
  }

  private adAccounts(): FakeResponse {
    return { body: { data: [{ id: `act_${this.adAccountId}`, account_id: this.adAccountId, name: this.accountName }, { id: 'act_5550001111', account_id: '5550001111', name: 'Other brand' }] } };
  }

  private adAccountNode(request: FakeRequest): FakeResponse {
    if (request.params.node !== `act_${this.adAccountId}`) {
      return { status: 400, body: graphError(100, `Unsupported get request. Object with ID '${request.params.node}' does not exist, cannot be loaded due to missing permissions.`, { error_subcode: 33 }) };
    }
    return { body: { id: `act_${this.adAccountId}`, account_id: this.adAccountId, name: this.accountName, currency: this.data.currency, timezone_name: 'America/Los_Angeles' } };
  }

  private insights(request: FakeRequest): FakeResponse {
    if (request.params.node !== `act_${this.adAccountId}`) return this.adAccountNode(request);
    const query = request.query;
    let range: { since?: string; until?: string };
    try {
      range = JSON.parse(query.get('time_range') ?? '{}') as typeof range;
    } catch {
      range = {};
    }
    if (!range.since || !range.until || query.get('time_increment') !== '1') {
      return { status: 400, body: graphError(100, '(#100) time_range and time_increment=1 are required by this fake') };
    }
    const level = query.get('level') ?? 'account';
    const limit = Math.min(Number(query.get('limit') ?? 25), 5000);
    const offset = decodeAfter(query.get('after'));
    if (offset === null) return { status: 400, body: graphError(100, '(#100) The after cursor is not valid') };
    const currency = this.data.currency;
    const rows =
      level === 'campaign'
        ? this.data.rows(range.since, range.until).map((row) => this.campaignRow(row))
        : Object.entries(this.data.expectedTotals(range.since, range.until).spendMinorByDay).map(([day, spendMinor]) => ({
            account_currency: currency,
            spend: minorToDecimal(spendMinor, currency),
            date_start: day,
            date_stop: day,
          }));
    const page = rows.slice(offset, offset + limit);
    const hasNext = offset + limit < rows.length;
    const next = new URL(`${this.url}${request.path}`);
    for (const [key, value] of query) next.searchParams.set(key, value);
    next.searchParams.set('after', encodeAfter(offset + limit));
    return {
      headers: {
        'x-fb-ads-insights-throttle': JSON.stringify({ app_id_util_pct: 3, acc_id_util_pct: this.accountUtilisation, ads_api_access_tier: 'standard_access' }),
        'x-business-use-case-usage': JSON.stringify({ [this.adAccountId]: [{ type: 'ads_insights', call_count: 1, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: 0 }] }),
      },
      body: {
        data: page,
        paging: { cursors: { before: encodeAfter(offset), after: encodeAfter(offset + page.length) }, ...(hasNext ? { next: next.toString() } : {}) },
      },
    };
  }

  private campaignRow(row: CampaignDay): Record<string, unknown> {
    const currency = this.data.currency;
    const purchases = String(row.conversions);
    const purchaseValue = minorToDecimal(row.conversionValueMinor, currency);
    return {
      account_currency: currency,
      campaign_id: row.campaignId,
      campaign_name: row.campaignName,
      impressions: String(row.impressions),
      clicks: String(row.clicks),
      spend: minorToDecimal(row.spendMinor, currency),
      actions: [
        { action_type: 'link_click', value: String(row.clicks) },
        ...(row.conversions > 0
          ? [
              { action_type: 'purchase', value: purchases },
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: purchases },
              { action_type: 'omni_purchase', value: purchases },
            ]
          : []),
      ],
      ...(row.conversions > 0
        ? {
            action_values: [
              { action_type: 'purchase', value: purchaseValue },
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: purchaseValue },
              { action_type: 'omni_purchase', value: purchaseValue },
            ],
          }
        : {}),
      date_start: row.day,
      date_stop: row.day,
    };
  }
}

export async function startMetaAdsFake(options: MetaAdsFakeOptions = {}): Promise<MetaAdsFake> {
  return new MetaAdsFake(options).start();
}
