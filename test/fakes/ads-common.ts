import { randomBytes } from 'node:crypto';
import { minorDigits } from '../../src/server/connectors/money.ts';
import { addDays } from '../../src/server/modules/commerce/days.ts';
import { escapeHtml, FakeServer, seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';

// What the four ad platform fakes (googleads, metaads, bingads, tiktokads) share: a deterministic
// data set of daily campaign metrics, an OAuth authority with codes and expiring tokens, and the
// consent page (AdPlatformFake). Each fake renders these in its own platform's wire format.

export interface CampaignDay {
  campaignId: string;
  campaignName: string;
  day: string;
  impressions: number;
  clicks: number;
  spendMinor: number;
  /** Whole or half conversions (attribution models split them). */
  conversions: number;
  conversionValueMinor: number;
}

export interface AdDataSetOptions {
  seed?: number;
  campaigns?: number;
  /** Campaign ids are `${campaignIdBase + index}`. */
  campaignIdBase?: bigint;
  currency?: string;
}

/**
 * Daily metrics of `campaigns` campaigns, computed from (seed, campaign, day) when asked, so any range
 * of days costs nothing up front. About one campaign-day in eight has no delivery and no row, as on
 * the real platforms. Changes made by tests (late conversions, corrected spend) override the values.
 */
export class AdDataSet {
  readonly seed: number;
  readonly campaignCount: number;
  readonly currency: string;
  private readonly idBase: bigint;
  private readonly changes = new Map<string, Partial<CampaignDay> | null>();

  constructor(options: AdDataSetOptions = {}) {
    this.seed = options.seed ?? 1;
    this.campaignCount = options.campaigns ?? 5;
    this.currency = options.currency ?? 'USD';
    this.idBase = options.campaignIdBase ?? 23_850_000_000_000_000n;
  }

  campaignId(index: number): string {
    return String(this.idBase + BigInt(index));
  }

  campaignName(index: number): string {
    const themes = ['Brand Search', 'Prospecting - Broad', 'Retargeting', 'Spring Sale', 'Shopping - All', 'Video Awareness'];
    return `${themes[index % themes.length]} #${index + 1}`;
  }

  /** The row of one campaign on one day, or null when it did not deliver. */
  row(index: number, day: string): CampaignDay | null {
    const key = `${index}|${day}`;
    const change = this.changes.get(key);
    if (change === null) return null;
    const random = seededRandom(this.seed * 1_000_003 + index * 7_919 + Date.parse(`${day}T00:00:00Z`) / 86_400_000);
    const delivered = random() >= 0.125;
    if (!delivered && !change) return null;
    const impressions = 200 + Math.floor(random() * 20_000);
    const clicks = Math.floor(impressions * (0.005 + random() * 0.03));
    const spendMinor = clicks * (20 + Math.floor(random() * 180));
    const conversions = Math.floor(clicks * random() * 0.1 * 2) / 2;
    const conversionValueMinor = Math.round(conversions * (2_000 + Math.floor(random() * 10_000)));
    const generated: CampaignDay = { campaignId: this.campaignId(index), campaignName: this.campaignName(index), day, impressions, clicks, spendMinor, conversions, conversionValueMinor };
    return { ...generated, ...change };
  }

  /** Rows from `from` to `to` (inclusive), by day then campaign. */
  rows(from: string, to: string): CampaignDay[] {
    const rows: CampaignDay[] = [];
    for (let day = from; day <= to; day = addDays(day, 1)) {
      for (let index = 0; index < this.campaignCount; index++) {
        const row = this.row(index, day);
        if (row) rows.push(row);
      }
    }
    return rows;
  }

  indexOf(campaignId: string): number {
    const index = Number(BigInt(campaignId) - this.idBase);
    if (!(index >= 0 && index < this.campaignCount)) throw new Error(`no campaign ${campaignId} in the fake`);
    return index;
  }

  /** Whether the campaign is one of this data set's. */
  owns(campaignId: string): boolean {
    const index = BigInt(campaignId) - this.idBase;
    return index >= 0n && index < BigInt(this.campaignCount);
  }

  /** Changes a campaign's figures for a day (e.g. conversions attributed late); null removes the row. */
  update(campaignId: string, day: string, changes: Partial<Omit<CampaignDay, 'campaignId' | 'day'>> | null): void {
    const key = `${this.indexOf(campaignId)}|${day}`;
    this.changes.set(key, changes === null ? null : { ...this.changes.get(key), ...changes });
  }

  /** Spend per day over all campaigns, and the row count: what a connector must bring in. */
  expectedTotals(from: string, to: string): { rows: number; spendMinorByDay: Record<string, number> } {
    const spendMinorByDay: Record<string, number> = {};
    let rows = 0;
    for (const row of this.rows(from, to)) {
      rows++;
      spendMinorByDay[row.day] = (spendMinorByDay[row.day] ?? 0) + row.spendMinor;
    }
    return { rows, spendMinorByDay };
  }
}

/** The campaigns of each account of a platform whose login reaches several (its fake's accounts), by account id. */
export class AccountDataSets {
  private readonly sets = new Map<string, AdDataSet>();

  add(accountId: string, data: AdDataSet): AdDataSet {
    this.sets.set(accountId, data);
    return data;
  }

  of(accountId: string): AdDataSet {
    const data = this.sets.get(accountId);
    if (!data) throw new Error(`no account ${accountId} in the fake`);
    return data;
  }

  all(): AdDataSet[] {
    return [...this.sets.values()];
  }

  /** Changes a campaign's figures in whichever account runs it. */
  update(campaignId: string, day: string, changes: Parameters<AdDataSet['update']>[2]): void {
    const data = this.all().find((candidate) => candidate.owns(campaignId));
    if (!data) throw new Error(`no campaign ${campaignId} in the fake`);
    data.update(campaignId, day, changes);
  }
}

/** Minor units as the decimal string platforms send ("250.00"), in `currency`'s digits. */
export function minorToDecimal(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === 0) return String(minor);
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${minor < 0 ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Minor units as micros (Google's cost_micros). */
export function minorToMicros(minor: number, currency: string): string {
  return String(BigInt(minor) * 10n ** BigInt(6 - minorDigits(currency)));
}

/** Minor units as a JSON number in major units (Google's conversions_value). */
export function minorToNumber(minor: number, currency: string): number {
  return Number(minorToDecimal(minor, currency));
}

export type TokenState = 'valid' | 'expired' | 'revoked' | 'unknown';

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  issuedAt: number;
  used: boolean;
}

/**
 * The fake's authorization server: single-use codes valid for 10 minutes, access tokens that expire,
 * refresh tokens, and revocation (the user removing the app). Time is the fake's own clock, which
 * tests move forward with `advance`.
 */
export class FakeTokenAuthority {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Access token lifetime; null for tokens that never expire. */
  accessTokenSeconds: number | null;
  private offsetMs = 0;
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, { expiresAt: number | null; revoked: boolean }>();
  private readonly refreshTokens = new Map<string, { revoked: boolean }>();

  constructor(options: { clientId?: string; clientSecret?: string; accessTokenSeconds?: number | null } = {}) {
    this.clientId = options.clientId ?? 'fake-client-id';
    this.clientSecret = options.clientSecret ?? 'fake-client-secret';
    this.accessTokenSeconds = options.accessTokenSeconds === undefined ? 3600 : options.accessTokenSeconds;
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  issueCode(clientId: string, redirectUri: string): string {
    const code = `code-${randomBytes(9).toString('base64url')}`;
    this.codes.set(code, { clientId, redirectUri, issuedAt: this.now(), used: false });
    return code;
  }

  /** Consumes a code; the reason it is refused, or null when it is good. */
  redeemCode(code: string, clientId: string, redirectUri?: string): string | null {
    const issued = this.codes.get(code);
    if (!issued) return 'unknown authorization code';
    if (issued.used) return 'authorization code already used';
    if (this.now() - issued.issuedAt > 10 * 60_000) return 'authorization code expired';
    if (issued.clientId !== clientId) return 'authorization code issued to another client';
    if (redirectUri !== undefined && issued.redirectUri !== redirectUri) return 'redirect_uri does not match';
    issued.used = true;
    return null;
  }

  issueAccessToken(prefix = 'access', lifetime: number | null = this.accessTokenSeconds): { token: string; expiresIn: number | null } {
    const token = `${prefix}-${randomBytes(12).toString('base64url')}`;
    this.accessTokens.set(token, { expiresAt: lifetime === null ? null : this.now() + lifetime * 1000, revoked: false });
    return { token, expiresIn: lifetime };
  }

  issueRefreshToken(): string {
    const token = `refresh-${randomBytes(12).toString('base64url')}`;
    this.refreshTokens.set(token, { revoked: false });
    return token;
  }

  /** A token made outside the OAuth flow (e.g. a system-user token typed in). */
  registerAccessToken(token: string, expiresInSeconds: number | null = null): void {
    this.accessTokens.set(token, { expiresAt: expiresInSeconds === null ? null : this.now() + expiresInSeconds * 1000, revoked: false });
  }

  registerRefreshToken(token: string): void {
    this.refreshTokens.set(token, { revoked: false });
  }

  accessTokenState(token: string | undefined): TokenState {
    const entry = token ? this.accessTokens.get(token) : undefined;
    if (!entry) return 'unknown';
    if (entry.revoked) return 'revoked';
    if (entry.expiresAt !== null && this.now() >= entry.expiresAt) return 'expired';
    return 'valid';
  }

  refreshTokenState(token: string | undefined): TokenState {
    const entry = token ? this.refreshTokens.get(token) : undefined;
    if (!entry) return 'unknown';
    return entry.revoked ? 'revoked' : 'valid';
  }

  /** Makes every access token issued so far expired (as if an hour went by for them). */
  expireAccessTokens(): void {
    for (const entry of this.accessTokens.values()) entry.expiresAt = this.now() - 1;
  }

  /** The user removed the app: every token stops working. */
  revokeAll(): void {
    for (const entry of this.accessTokens.values()) entry.revoked = true;
    for (const entry of this.refreshTokens.values()) entry.revoked = true;
  }
}

/** The consent page: app name, the access asked for, and an Allow link back to the app. */
export function consentPage(options: { platformName: string; appName: string; scopes: string[]; allowUrl: string; denyUrl: string }): string {
  const scopes = options.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.platformName)} – Authorize ${escapeHtml(options.appName)}</title></head>
<body>
<main>
<h1>${escapeHtml(options.appName)} wants to access your ${escapeHtml(options.platformName)} account</h1>
<p>It will be able to:</p>
<ul>${scopes}</ul>
<a id="allow" role="button" href="${escapeHtml(options.allowUrl)}">Allow</a>
<a id="deny" role="button" href="${escapeHtml(options.denyUrl)}">Cancel</a>
</main>
</body></html>`;
}

/** redirect_uri with the parameters a consent page sends back. */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/** A form-encoded body (token endpoints). */
export function formOf(rawBody: string): URLSearchParams {
  return new URLSearchParams(rawBody);
}

/** The bearer token of a request, if any. */
export function bearerToken(authorization: string | string[] | undefined): string | undefined {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  const match = value ? /^Bearer\s+(.+)$/i.exec(value) : null;
  return match?.[1];
}

/** How one platform's consent page reads its request and answers the app. */
export interface ConsentStyle {
  /** The query parameter naming the app (client_id; TikTok's app_id). */
  appIdParam?: string;
  /** The platform's error page for an unknown app or a missing redirect_uri. */
  invalidAppHtml: string;
  platformName: string;
  scopes(query: URLSearchParams): string[];
  /** Parameters sent back on Allow (the code under the platform's name for it) and on Cancel. */
  allow(code: string, state: string | undefined, query: URLSearchParams): Record<string, string | undefined>;
  deny(state: string | undefined): Record<string, string | undefined>;
}

/**
 * An ad platform's fake: its campaign data set, its OAuth authority, the helpers tests use on both,
 * and the consent page each platform shows in its own words (consentAnswer).
 */
export abstract class AdPlatformFake extends FakeServer {
  abstract readonly data: AdDataSet;
  abstract readonly auth: FakeTokenAuthority;
  readonly appName = 'StorePulse (fake)';

  revokeToken(): void {
    this.auth.revokeAll();
  }

  expectedTotals(from: string, to: string) {
    return this.data.expectedTotals(from, to);
  }

  updateMetric(campaignId: string, day: string, changes: Parameters<AdDataSet['update']>[2]): void {
    this.data.update(campaignId, day, changes);
  }

  /** The consent page for a known app and redirect_uri (a code is issued for it), else the platform's error page. */
  protected consentAnswer(request: FakeRequest, style: ConsentStyle): FakeResponse {
    const appId = request.query.get(style.appIdParam ?? 'client_id');
    const redirectUri = request.query.get('redirect_uri');
    if (appId !== this.auth.clientId || !redirectUri) return { status: 400, headers: { 'content-type': 'text/html' }, body: style.invalidAppHtml };
    const state = request.query.get('state') ?? undefined;
    const code = this.auth.issueCode(appId, redirectUri);
    return {
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: consentPage({
        platformName: style.platformName,
        appName: this.appName,
        scopes: style.scopes(request.query),
        allowUrl: redirectWith(redirectUri, style.allow(code, state, request.query)),
        denyUrl: redirectWith(redirectUri, style.deny(state)),
      }),
    };
  }
}
