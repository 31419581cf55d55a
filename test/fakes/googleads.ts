import { AccountDataSets, AdPlatformFake, AdDataSet, bearerToken, FakeTokenAuthority, formOf, minorToMicros, minorToNumber, type CampaignDay } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';

// Google Ads API fake: the OAuth consent page and token endpoint, customers:listAccessibleCustomers,
// and googleAds:searchStream for the GAQL queries the connector sends (daily campaign metrics,
// customer daily cost, customer info, a manager's customer_client hierarchy), answered as Google
// does: a JSON array of batches, int64 as strings, zero values and false booleans left out (proto3
// JSON), errors in Google's envelope (wrapped in an array for streams).
//
// The login reaches a set of customers: those it can call directly (listAccessibleCustomers) and,
// through a manager among them, that manager's clients at every level. Rules enforced, each as Google
// documents it:
// - A client reached through a manager needs the manager's id in login-customer-id, else 403
//   USER_PERMISSION_DENIED (https://developers.google.com/google-ads/api/docs/oauth/access-model,
//   https://developers.google.com/google-ads/api/reference/rpc/v23/AuthorizationErrorEnum.AuthorizationError).
// - A manager has no metrics: a query selecting metrics.* on one answers 400 REQUESTED_METRICS_FOR_MANAGER
//   (https://developers.google.com/google-ads/api/reference/rpc/v23/QueryErrorEnum.QueryError).
// - customer_client lists a manager's direct and indirect clients and the manager itself at level 0
//   (https://developers.google.com/google-ads/api/reference/rpc/v23/CustomerClient).
// - A customer that is not ENABLED answers 403 CUSTOMER_NOT_ENABLED (AuthorizationError, above).
// - Each customer reports in its own currency (cost_micros in micros of customer.currency_code) and
//   its own days (customer.time_zone: https://developers.google.com/google-ads/api/docs/query/date-ranges).
// - Access tokens expire after an hour (3599 s, as Google's token endpoint answers:
//   https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code).

/** One product's day in a customer's shopping_performance_view. */
export interface FakeProductDay {
  /** segments.product_item_id, sent exactly as given here. */
  itemId: string;
  day: string;
  clicks: number;
  impressions: number;
  costMinor: number;
  conversions: number;
  conversionValueMinor: number;
}

/**
 * Resources whose fields a query FROM shopping_performance_view may select: itself, customer (attributed),
 * ad_group and campaign (segmenting), plus segments and metrics
 * (https://developers.google.com/google-ads/api/fields/v23/shopping_performance_view).
 */
const SHOPPING_VIEW_SELECTABLE = new Set(['shopping_performance_view', 'customer', 'campaign', 'ad_group', 'segments', 'metrics']);

/** One Google Ads customer of the fake: a client account with campaigns, or a manager with clients. */
export interface FakeGoogleCustomer {
  id: string;
  name: string;
  currency: string;
  /** IANA zone (customer.time_zone). */
  timeZone: string;
  manager?: boolean;
  /** A manager's direct clients (customer ids of this fake). */
  clients?: string[];
  status?: 'ENABLED' | 'CANCELED' | 'SUSPENDED' | 'CLOSED';
  seed?: number;
  campaigns?: number;
}

export interface GoogleAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  customerId?: string;
  customerName?: string;
  currency?: string;
  /** When set (and `customers` is not), the one customer is a client of this manager, reached only through it. */
  managerCustomerId?: string;
  /** Every customer of the fake (instead of the one described by customerId, currency...). */
  customers?: FakeGoogleCustomer[];
  /** Customers the login can call directly; by default the ones no other customer of the fake manages. */
  accessible?: string[];
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

/** proto3 JSON: zero values and false booleans are left out. */
function withoutZeros<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== 0 && value !== '0' && value !== false && value !== undefined)) as Partial<T>;
}

function defaultCustomers(options: GoogleAdsFakeOptions): FakeGoogleCustomer[] {
  const client: FakeGoogleCustomer = {
    id: options.customerId ?? '1234567890',
    name: options.customerName ?? 'Fake Store Ads',
    currency: options.currency ?? 'USD',
    timeZone: 'America/New_York',
  };
  if (!options.managerCustomerId) return [client];
  return [{ id: options.managerCustomerId, name: 'Fake Agency (manager)', currency: client.currency, timeZone: client.timeZone, manager: true, clients: [client.id] }, client];
}

/** A searchStream failure: Google's envelope (in an array) with one GoogleAdsFailure error. */
function streamFailure(status: 400 | 403, errorCode: Record<string, string>, message: string): FakeResponse {
  const [code, text] = status === 403 ? ['PERMISSION_DENIED', 'The caller does not have permission'] : ['INVALID_ARGUMENT', 'Request contains an invalid argument.'];
  return { status, body: [googleError(status, code, text, { errorCode, message })] };
}

const permissionDenied = (message: string) => streamFailure(403, { authorizationError: 'USER_PERMISSION_DENIED' }, message);

export class GoogleAdsFake extends AdPlatformFake {
  /** The first client account's campaigns (what the shared ad-fake helpers read). */
  readonly data: AdDataSet;
  readonly auth: FakeTokenAuthority;
  /** The first client account (the one connectedCredentials names). */
  readonly customerId: string;
  readonly customerName: string;
  /** The manager connectedCredentials reaches customerId through, when it is not directly accessible. */
  readonly managerCustomerId: string | undefined;
  readonly customers = new Map<string, FakeGoogleCustomer>();
  readonly accessible: string[];
  batchSize: number;
  readonly accountData = new AccountDataSets();
  /** Each client customer's shopping_performance_view rows (none unless set). */
  readonly productDays = new Map<string, FakeProductDay[]>();

  constructor(options: GoogleAdsFakeOptions = {}) {
    super();
    const customers = options.customers ?? defaultCustomers(options);
    customers.forEach((customer, index) => {
      this.customers.set(customer.id, customer);
      if (customer.manager) return;
      const campaignIdBase = 20_000_000_000n + BigInt(index) * 1_000_000n;
      this.accountData.add(customer.id, new AdDataSet({ seed: customer.seed ?? options.seed, campaigns: customer.campaigns ?? options.campaigns, currency: customer.currency, campaignIdBase }));
    });
    const managed = new Set(customers.flatMap((customer) => customer.clients ?? []));
    this.accessible = options.accessible ?? customers.filter((customer) => !managed.has(customer.id)).map((customer) => customer.id);
    const primary = customers.find((customer) => !customer.manager);
    if (!primary) throw new Error('GoogleAdsFake: at least one customer must be a client account');
    this.customerId = primary.id;
    this.customerName = primary.name;
    this.data = this.accountData.of(primary.id);
    this.managerCustomerId = this.accessible.includes(primary.id) ? undefined : this.accessible.find((id) => this.hierarchyOf(id).has(primary.id));
    this.auth = new FakeTokenAuthority({ accessTokenSeconds: options.accessTokenSeconds ?? 3599 });
    this.batchSize = options.batchSize ?? 10_000;

    this.route('GET', '/o/oauth2/v2/auth', (request) => this.consent(request));
    this.route('POST', '/token', (request) => this.token(request));
    this.route('GET', '/:version/:method', (request) => this.listAccessibleCustomers(request));
    this.route('POST', '/:version/customers/:customerId/:method', (request) => this.searchStream(request));
  }

  /** The campaigns of every account the login can sync. */
  accountDataSets(): AdDataSet[] {
    return this.accountData.all();
  }

  /** One account's campaigns. */
  dataOf(customerId: string): AdDataSet {
    return this.accountData.of(customerId);
  }

  /** Changes a campaign's figures in whichever account runs it. */
  override updateMetric(campaignId: string, day: string, changes: Parameters<AdDataSet['update']>[2]): void {
    this.accountData.update(campaignId, day, changes);
  }

  /** The GAQL queries sent for `customerId` (to check that a manager was never asked for metrics). */
  queriesFor(customerId: string): string[] {
    return this.requests
      .filter((request) => request.path.includes(`/customers/${customerId}/`))
      .map((request) => String((JSON.parse(request.rawBody || '{}') as { query?: unknown }).query ?? ''));
  }

  /** A manager's clients at every level below it, with their level (the manager itself at 0). */
  hierarchyOf(managerId: string): Map<string, number> {
    const levels = new Map<string, number>([[managerId, 0]]);
    const queue = [managerId];
    while (queue.length > 0) {
      const current = queue.shift()!;
      for (const client of this.customers.get(current)?.clients ?? []) {
        if (levels.has(client)) continue;
        levels.set(client, levels.get(current)! + 1);
        queue.push(client);
      }
    }
    return levels;
  }

  /** Tokens of a login that has chosen no account yet (what exchangeCode stores now). */
  loginCredentials(): Record<string, string> {
    const { token, expiresIn } = this.auth.issueAccessToken('ya29');
    return { accessToken: token, refreshToken: this.auth.issueRefreshToken(), expiresAt: new Date(this.auth.now() + (expiresIn ?? 3600) * 1000).toISOString() };
  }

  /** Credentials as a connection made before accounts could be chosen stores them: tokens and one customer id. */
  connectedCredentials(): Record<string, string> {
    return { ...this.loginCredentials(), customerId: this.customerId, ...(this.managerCustomerId ? { loginCustomerId: this.managerCustomerId } : {}) };
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
    return { body: { resourceNames: this.accessible.map((id) => `customers/${id}`) } };
  }

  /** Whether the login may call `customerId` with this login-customer-id (or none), as the access model says. */
  private accessDenied(customerId: string, loginCustomerId: string | undefined): FakeResponse | null {
    if (!this.customers.has(customerId)) return permissionDenied("User doesn't have permission to access customer.");
    if (loginCustomerId === undefined) {
      if (this.accessible.includes(customerId)) return null;
      return permissionDenied(
        "User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer id must be set in the 'login-customer-id' header.",
      );
    }
    if (this.accessible.includes(loginCustomerId) && this.hierarchyOf(loginCustomerId).has(customerId)) return null;
    return permissionDenied("User doesn't have permission to access customer. The login-customer-id is not a manager of this customer that the user can access.");
  }

  private searchStream(request: FakeRequest): FakeResponse {
    if (request.params.method !== 'googleAds:searchStream') return { status: 404, body: [googleError(404, 'NOT_FOUND', 'Not found')] };
    const failure = this.faultAnswer(request, true) ?? this.authFailure(request, true);
    if (failure) return failure;
    const customerId = request.params.customerId!;
    const login = request.headers['login-customer-id'];
    const denied = this.accessDenied(customerId, Array.isArray(login) ? login[0] : login);
    if (denied) return denied;
    const customer = this.customers.get(customerId)!;
    if ((customer.status ?? 'ENABLED') !== 'ENABLED') {
      return streamFailure(403, { authorizationError: 'CUSTOMER_NOT_ENABLED' }, "The customer account can't be accessed because it is not yet enabled or has been deactivated.");
    }
    const query = typeof request.body === 'object' && request.body !== null ? String((request.body as { query?: unknown }).query ?? '') : '';
    if (customer.manager && /\bmetrics\./i.test(query)) {
      return streamFailure(
        400,
        { queryError: 'REQUESTED_METRICS_FOR_MANAGER' },
        'Metrics cannot be requested for a manager account. To retrieve metrics, issue separate requests against each client account under the manager account.',
      );
    }
    const prohibited = this.prohibitedField(query);
    if (prohibited) {
      return streamFailure(400, { queryError: 'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE' }, `The following field cannot be selected with the resource in the FROM clause: '${prohibited}'.`);
    }
    const results = this.run(customer, query);
    if (!results) return streamFailure(400, { queryError: 'UNEXPECTED_INPUT' }, `cannot run: ${query}`);
    const batches: Record<string, unknown>[] = [];
    for (let start = 0; start === 0 || start < results.length; start += this.batchSize) {
      batches.push({ results: results.slice(start, start + this.batchSize), fieldMask: 'customer.currencyCode,campaign.id,campaign.name,segments.date,metrics', requestId: 'fake-request' });
    }
    batches.at(-1)!.queryResourceConsumption = String(results.length);
    return { body: batches };
  }

  /** Replaces a customer's shopping_performance_view rows. */
  setProductDays(customerId: string, rows: FakeProductDay[]): void {
    this.productDays.set(customerId, rows);
  }

  /** A selected field of a resource the FROM resource cannot be queried with (shopping_performance_view's rule only). */
  private prohibitedField(query: string): string | null {
    if (/\bFROM\s+(\w+)/i.exec(query)?.[1] !== 'shopping_performance_view') return null;
    const fields = (/^\s*SELECT\s+([\s\S]+?)\s+FROM\b/i.exec(query)?.[1] ?? '').split(',').map((field) => field.trim());
    return fields.find((field) => !SHOPPING_VIEW_SELECTABLE.has(field.split('.')[0]!)) ?? null;
  }

  /** The customer as GAQL's customer (or customer_client) resource renders it. */
  private customerFields(customer: FakeGoogleCustomer): Record<string, unknown> {
    return withoutZeros({
      id: customer.id,
      descriptiveName: customer.name,
      currencyCode: customer.currency,
      timeZone: customer.timeZone,
      manager: customer.manager === true,
      testAccount: false,
      status: customer.status ?? 'ENABLED',
    });
  }

  /** The few GAQL shapes the connector sends; null for anything else. */
  private run(customer: FakeGoogleCustomer, query: string): Record<string, unknown>[] | null {
    const resource = { resourceName: `customers/${customer.id}`, currencyCode: customer.currency };
    const between = /segments\.date\s+BETWEEN\s+'(\d{4}-\d{2}-\d{2})'\s+AND\s+'(\d{4}-\d{2}-\d{2})'/i.exec(query);
    const from = /\bFROM\s+(\w+)/i.exec(query)?.[1];
    if (from === 'customer_client') {
      // CustomerClients only exist for manager customers.
      if (!customer.manager) return [];
      return [...this.hierarchyOf(customer.id)].map(([id, level]) => ({
        customerClient: {
          resourceName: `customers/${customer.id}/customerClients/${id}`,
          clientCustomer: `customers/${id}`,
          ...withoutZeros({ level: String(level), hidden: false }),
          ...this.customerFields(this.customers.get(id)!),
        },
      }));
    }
    if (from === 'customer' && !between) return [{ customer: { resourceName: resource.resourceName, ...this.customerFields(customer) } }];
    if (!between) return null;
    const [, first, last] = between as unknown as [string, string, string];
    const data = this.dataOf(customer.id);
    if (from === 'campaign') return data.rows(first, last).map((row) => this.campaignRow(customer.id, data, row, resource));
    if (from === 'shopping_performance_view') {
      return (this.productDays.get(customer.id) ?? [])
        .filter((row) => row.day >= first && row.day <= last)
        .map((row) => ({
          customer: resource,
          shoppingPerformanceView: { resourceName: `customers/${customer.id}/shoppingPerformanceView` },
          metrics: withoutZeros({
            clicks: String(row.clicks),
            impressions: String(row.impressions),
            costMicros: minorToMicros(row.costMinor, data.currency),
            conversions: row.conversions,
            conversionsValue: minorToNumber(row.conversionValueMinor, data.currency),
          }),
          segments: { date: row.day, productItemId: row.itemId },
        }));
    }
    if (from === 'customer') {
      const { spendMinorByDay } = data.expectedTotals(first, last);
      return Object.entries(spendMinorByDay).map(([day, spendMinor]) => ({
        customer: resource,
        metrics: withoutZeros({ costMicros: minorToMicros(spendMinor, data.currency) }),
        segments: { date: day },
      }));
    }
    return null;
  }

  private campaignRow(customerId: string, data: AdDataSet, row: CampaignDay, customer: Record<string, unknown>): Record<string, unknown> {
    return {
      customer,
      campaign: { resourceName: `customers/${customerId}/campaigns/${row.campaignId}`, id: row.campaignId, name: row.campaignName },
      metrics: withoutZeros({
        impressions: String(row.impressions),
        clicks: String(row.clicks),
        costMicros: minorToMicros(row.spendMinor, data.currency),
        conversions: row.conversions,
        conversionsValue: minorToNumber(row.conversionValueMinor, data.currency),
      }),
      segments: { date: row.day },
    };
  }
}

export async function startGoogleAdsFake(options: GoogleAdsFakeOptions = {}): Promise<GoogleAdsFake> {
  return new GoogleAdsFake(options).start();
}
