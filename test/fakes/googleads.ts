import { AdPlatformFake, AdDataSet, bearerToken, FakeTokenAuthority, formOf, minorToMicros, minorToNumber, type CampaignDay } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';

// Google Ads API fake: the OAuth consent page and token endpoint, customers:listAccessibleCustomers,
// and googleAds:searchStream for the GAQL queries the connector sends (daily campaign metrics,
// customer daily cost, customer info), answered as Google does: a JSON array of batches, int64 as
// strings, zero metrics left out, errors in Google's envelope (wrapped in an array for streams).

export interface GoogleAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  customerId?: string;
  customerName?: string;
  currency?: string;
  /** When set, calls must carry this manager id in login-customer-id. */
  managerCustomerId?: string;
  /** Rows per searchStream batch (Google's is 10,000). */
  batchSize?: number;
  accessTokenSeconds?: number;
}

const RESOURCE_EXHAUSTED_DELAY = '30s';

function googleError(status: number, code: string, message: string, failure?: Record<string, unknown>): Record<string, unknown> {
  return {
    error: {
      code: status,
      message,
      status: code,
      ...(failure ? { details: [{ '@type': 'type.googleapis.com/google.ads.googleads.v23.errors.GoogleAdsFailure', errors: [failure], requestId: 'fake-request' }] } : {}),
    },
  };
}

/** proto3 JSON: zero values are left out. */
function withoutZeros<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== 0 && value !== '0')) as Partial<T>;
}

export class GoogleAdsFake extends AdPlatformFake {
  readonly data: AdDataSet;
  readonly auth: FakeTokenAuthority;
  readonly customerId: string;
  readonly customerName: string;
  readonly managerCustomerId: string | undefined;
  batchSize: number;

  constructor(options: GoogleAdsFakeOptions = {}) {
    super();
    this.data = new AdDataSet({ seed: options.seed, campaigns: options.campaigns, currency: options.currency, campaignIdBase: 20_000_000_000n });
    this.auth = new FakeTokenAuthority({ accessTokenSeconds: options.accessTokenSeconds ?? 3599 });
    this.customerId = options.customerId ?? '1234567890';
    this.customerName = options.customerName ?? 'Fake Store Ads';
    this.managerCustomerId = options.managerCustomerId;
    this.batchSize = options.batchSize ?? 10_000;

    this.route('GET', '/o/oauth2/v2/auth', (request) => this.consent(request));
    this.route('POST', '/token', (request) => this.token(request));
    this.route('GET', '/:version/:method', (request) => this.listAccessibleCustomers(request));
    this.route('POST', '/:version/customers/:customerId/:method', (request) => this.searchStream(request));
  }

  /** Credentials as the connector stores them, with a fresh token (skipping the consent page). */
  connectedCredentials(): Record<string, string> {
    const { token, expiresIn } = this.auth.issueAccessToken('ya29');
    const refreshToken = this.auth.issueRefreshToken();
    return {
      accessToken: token,
      refreshToken,
      expiresAt: new Date(this.auth.now() + (expiresIn ?? 3600) * 1000).toISOString(),
      customerId: this.customerId,
      ...(this.managerCustomerId ? { loginCustomerId: this.managerCustomerId } : {}),
    };
  }

  private consent(request: FakeRequest): FakeResponse {
    return this.consentAnswer(request, {
      invalidAppHtml: '<h1>Error 400: invalid_request</h1>',
      platformName: 'Google Ads',
      scopes: (query) => (query.get('scope') ?? '').split(' ').filter(Boolean),
      allow: (code, state, query) => ({ code, state, scope: query.get('scope') ?? '' }),
      deny: (state) => ({ error: 'access_denied', state }),
    });
  }

  private token(request: FakeRequest): FakeResponse {
    const form = formOf(request.rawBody);
    if (form.get('client_id') !== this.auth.clientId || form.get('client_secret') !== this.auth.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Unauthorized' } };
    }
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const refused = this.auth.redeemCode(form.get('code') ?? '', this.auth.clientId, form.get('redirect_uri') ?? '');
      if (refused) return { status: 400, body: { error: 'invalid_grant', error_description: refused } };
      const { token, expiresIn } = this.auth.issueAccessToken('ya29');
      return { body: { access_token: token, expires_in: expiresIn, refresh_token: this.auth.issueRefreshToken(), scope: 'https://www.googleapis.com/auth/adwords', token_type: 'Bearer' } };
    }
    if (grant === 'refresh_token') {
      if (this.auth.refreshTokenState(form.get('refresh_token') ?? undefined) !== 'valid') {
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };
      }
      const { token, expiresIn } = this.auth.issueAccessToken('ya29');
      return { body: { access_token: token, expires_in: expiresIn, scope: 'https://www.googleapis.com/auth/adwords', token_type: 'Bearer' } };
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${grant}` } };
  }

  /** The request's token problem as Google answers it, or null. */
  private authFailure(request: FakeRequest, wrapInArray: boolean): FakeResponse | null {
    const state = this.auth.accessTokenState(bearerToken(request.headers.authorization));
    if (state === 'valid') return null;
    const body = googleError(
      401,
      'UNAUTHENTICATED',
      state === 'expired' ? 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.' : 'The access token was revoked or is not valid.',
      { errorCode: { authenticationError: state === 'expired' ? 'OAUTH_TOKEN_EXPIRED' : 'OAUTH_TOKEN_REVOKED' }, message: 'Authentication of the request failed.' },
    );
    return { status: 401, body: wrapInArray ? [body] : body };
  }

  private faultAnswer(request: FakeRequest, wrapInArray: boolean): FakeResponse | null {
    const fault = this.takeFault(request);
    if (!fault) return null;
    const wrap = (body: Record<string, unknown>) => (wrapInArray ? [body] : body);
    switch (fault) {
      case 'rate_limit':
        return {
          status: 429,
          body: wrap(
            googleError(429, 'RESOURCE_EXHAUSTED', 'Too many requests.', {
              errorCode: { quotaError: 'RESOURCE_TEMPORARILY_EXHAUSTED' },
              message: `Too many requests. Retry in ${RESOURCE_EXHAUSTED_DELAY}.`,
              details: { quotaErrorDetails: { rateScope: 'ACCOUNT', rateName: 'Requests per account', retryDelay: RESOURCE_EXHAUSTED_DELAY } },
            }),
          ),
        };
      case 'server_error':
        return { status: 503, body: wrap(googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.')) };
      case 'malformed':
        return { status: 200, body: [{ results: [{ campaign: { id: '1', name: 'x' }, segments: { date: 'yesterday' } }] }] };
      case 'expired_token':
        this.auth.expireAccessTokens();
        return this.authFailure(request, wrapInArray);
      case 'revoked':
        this.auth.revokeAll();
        return this.authFailure(request, wrapInArray);
    }
  }

  private listAccessibleCustomers(request: FakeRequest): FakeResponse {
    if (request.params.method !== 'customers:listAccessibleCustomers') return { status: 404, body: googleError(404, 'NOT_FOUND', 'Not found') };
    const failure = this.faultAnswer(request, false) ?? this.authFailure(request, false);
    if (failure) return failure;
    return { body: { resourceNames: [`customers/${this.customerId}`, 'customers/5550001111'] } };
  }

  private searchStream(request: FakeRequest): FakeResponse {
    if (request.params.method !== 'googleAds:searchStream') return { status: 404, body: [googleError(404, 'NOT_FOUND', 'Not found')] };
    const failure = this.faultAnswer(request, true) ?? this.authFailure(request, true);
    if (failure) return failure;
    if (request.params.customerId !== this.customerId) {
      return { status: 403, body: [googleError(403, 'PERMISSION_DENIED', "The caller does not have permission", { errorCode: { authorizationError: 'USER_PERMISSION_DENIED' }, message: "User doesn't have permission to access customer." })] };
    }
    if (this.managerCustomerId && request.headers['login-customer-id'] !== this.managerCustomerId) {
      return {
        status: 403,
        body: [
          googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission', {
            errorCode: { authorizationError: 'USER_PERMISSION_DENIED' },
            message: "User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer id must be set in the 'login-customer-id' header.",
          }),
        ],
      };
    }
    const query = typeof request.body === 'object' && request.body !== null ? String((request.body as { query?: unknown }).query ?? '') : '';
    const results = this.run(query);
    if (!results) return { status: 400, body: [googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', { errorCode: { queryError: 'UNEXPECTED_INPUT' }, message: `cannot run: ${query}` })] };
    const batches: Record<string, unknown>[] = [];
    for (let start = 0; start === 0 || start < results.length; start += this.batchSize) {
      batches.push({ results: results.slice(start, start + this.batchSize), fieldMask: 'customer.currencyCode,campaign.id,campaign.name,segments.date,metrics', requestId: 'fake-request' });
    }
    batches.at(-1)!.queryResourceConsumption = String(results.length);
    return { body: batches };
  }

  /** The few GAQL shapes the connector sends; null for anything else. */
  private run(query: string): Record<string, unknown>[] | null {
    const customer = { resourceName: `customers/${this.customerId}`, currencyCode: this.data.currency };
    const between = /segments\.date\s+BETWEEN\s+'(\d{4}-\d{2}-\d{2})'\s+AND\s+'(\d{4}-\d{2}-\d{2})'/i.exec(query);
    const from = /\bFROM\s+(\w+)/i.exec(query)?.[1];
    if (from === 'customer' && !between) {
      return [{ customer: { ...customer, id: this.customerId, descriptiveName: this.customerName } }];
    }
    if (!between) return null;
    const [, first, last] = between as unknown as [string, string, string];
    const rows = this.data.rows(first, last);
    if (from === 'campaign') return rows.map((row) => this.campaignRow(row, customer));
    if (from === 'customer') {
      const { spendMinorByDay } = this.data.expectedTotals(first, last);
      return Object.entries(spendMinorByDay).map(([day, spendMinor]) => ({
        customer,
        metrics: withoutZeros({ costMicros: minorToMicros(spendMinor, this.data.currency) }),
        segments: { date: day },
      }));
    }
    return null;
  }

  private campaignRow(row: CampaignDay, customer: Record<string, unknown>): Record<string, unknown> {
    return {
      customer,
      campaign: { resourceName: `customers/${this.customerId}/campaigns/${row.campaignId}`, id: row.campaignId, name: row.campaignName },
      metrics: withoutZeros({
        impressions: String(row.impressions),
        clicks: String(row.clicks),
        costMicros: minorToMicros(row.spendMinor, this.data.currency),
        conversions: row.conversions,
        conversionsValue: minorToNumber(row.conversionValueMinor, this.data.currency),
      }),
      segments: { date: row.day },
    };
  }
}

export async function startGoogleAdsFake(options: GoogleAdsFakeOptions = {}): Promise<GoogleAdsFake> {
  return new GoogleAdsFake(options).start();
}
