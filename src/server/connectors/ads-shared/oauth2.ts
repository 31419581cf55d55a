import { z } from 'zod';
import { ConnectorAuthError, type ConnectorCredentials } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// The standard OAuth 2 token endpoint (RFC 6749) that Google and the Microsoft identity platform
// both speak: a form POST answered by {access_token, expires_in, refresh_token?} or, when the grant
// is refused, by 400 {error: "invalid_grant", error_description}.

const tokenSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/)]).optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
  token_type: z.string().optional(),
});

const tokenErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });

export interface TokenEndpointWording {
  /** The platform's name as the user knows it, e.g. 'Google Ads'. */
  displayName: string;
}

function tokenVerdict(response: PlatformResponse, wording: TokenEndpointWording): Verdict | undefined {
  if (response.status < 400 || response.status >= 500) return undefined;
  let parsed: ReturnType<typeof tokenErrorSchema.safeParse>;
  try {
    parsed = tokenErrorSchema.safeParse(JSON.parse(response.text));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const { error, error_description: description } = parsed.data;
  const detail = description ? ` (${description})` : '';
  if (error === 'invalid_grant') {
    return { kind: 'auth', reason: `${wording.displayName} no longer accepts this connection's authorization: it was revoked or has expired${detail}. Reconnect ${wording.displayName}.` };
  }
  if (error === 'invalid_client' || error === 'unauthorized_client') {
    return { kind: 'auth', reason: `${wording.displayName} refused this app's client id or secret${detail}; check the app settings.` };
  }
  return { kind: 'fail', reason: `token endpoint answered ${error}${detail}` };
}

export function expiresAtFrom(expiresIn: number | string | undefined, now: number = Date.now()): string | undefined {
  return expiresIn === undefined ? undefined : new Date(now + Number(expiresIn) * 1000).toISOString();
}

/** POSTs a grant to the token endpoint; the new tokens as credentials (refreshToken only when sent). */
export async function requestTokens(http: PlatformHttp, tokenUrl: string, form: Record<string, string>, wording: TokenEndpointWording): Promise<ConnectorCredentials> {
  const client = http.with({ classify: (response) => tokenVerdict(response, wording) ?? defaultVerdict(response) });
  const { data } = await client.json(tokenUrl, tokenSchema, { method: 'POST', body: new URLSearchParams(form) });
  const credentials: ConnectorCredentials = { accessToken: data.access_token };
  if (data.refresh_token) credentials.refreshToken = data.refresh_token;
  const expiresAt = expiresAtFrom(data.expires_in);
  if (expiresAt) credentials.expiresAt = expiresAt;
  return credentials;
}

/** `base` with the query parameters appended (the consent page URL). */
export function urlWithQuery(base: string, query: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/** The credential a connection cannot work without; a missing one is an auth problem the user must fix. */
export function requiredCredential(credentials: ConnectorCredentials, key: string, platform: string, displayName: string): string {
  const value = credentials[key];
  if (!value) throw new MissingCredentialError(platform, displayName, key);
  return value;
}

/**
 * The credentials after a refresh-token grant made by `refresh`: the new tokens over the stored ones,
 * keeping the stored refresh token unless a new one came (Google keeps it, Microsoft rotates it).
 */
export async function refreshedCredentials(
  credentials: ConnectorCredentials,
  wording: { platform: string; displayName: string },
  refresh: (refreshToken: string) => Promise<ConnectorCredentials>,
): Promise<ConnectorCredentials> {
  const refreshToken = requiredCredential(credentials, 'refreshToken', wording.platform, wording.displayName);
  const tokens = await refresh(refreshToken);
  return { ...credentials, ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
}

export class MissingCredentialError extends ConnectorAuthError {
  constructor(platform: string, displayName: string, key: string) {
    super(platform, `The ${displayName} connection is missing its ${key}; reconnect ${displayName}.`);
  }
}
