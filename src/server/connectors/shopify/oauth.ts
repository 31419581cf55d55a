import { ConnectorAuthError, type OAuthSettings } from '../connector.ts';
import { SHOPIFY, SHOPIFY_DEFAULT_SCOPES, normalizeShopDomain } from './client.ts';
import { hmacMatches } from '../store-common.ts';

// The consent page URL and the check of Shopify's signed callback (platform-apis.md 1.2).

/** How old a callback may be; Shopify's own app libraries refuse older ones too. */
const CALLBACK_MAX_AGE_SECONDS = 3600;

/**
 * `settings.authorizeBaseUrl` may contain `{shop}` (e.g. "https://{shop}"): Shopify's consent page
 * lives on each shop's own domain. Without it the URL is used as it is (a proxy, the fake).
 */
export function shopifyAuthorizeUrl(settings: OAuthSettings, state: string, shopInput: string | undefined): string {
  if (!shopInput) throw new ConnectorAuthError(SHOPIFY, 'Enter the Shopify store address (your-store.myshopify.com) to connect it.');
  const shop = normalizeShopDomain(shopInput);
  const base = (settings.authorizeBaseUrl || 'https://{shop}').replace('{shop}', shop).replace(/\/+$/, '');
  const url = new URL(`${base}/admin/oauth/authorize`);
  url.searchParams.set('client_id', settings.clientId);
  url.searchParams.set('scope', (settings.scopes ?? SHOPIFY_DEFAULT_SCOPES).join(','));
  url.searchParams.set('redirect_uri', settings.redirectUri);
  url.searchParams.set('state', state);
  return url.toString();
}

/** The message Shopify signs: every query parameter except `hmac` (and the legacy `signature`), sorted, as key=value joined by &. */
export function shopifyCallbackMessage(query: Record<string, string>): string {
  return Object.keys(query)
    .filter((key) => key !== 'hmac' && key !== 'signature')
    .sort()
    .map((key) => `${key}=${query[key]}`)
    .join('&');
}

/**
 * Throws ConnectorAuthError unless the callback's query (all its parameters) carries a valid `hmac`
 * (hex HMAC-SHA256 with the app's client secret), a Shopify shop domain and a recent timestamp.
 * The `state` is checked by the caller, which knows the one it issued. Returns the shop domain.
 */
export function verifyShopifyCallback(query: Record<string, string>, clientSecret: string, now: number = Date.now()): string {
  if (!hmacMatches(shopifyCallbackMessage(query), clientSecret, query.hmac, 'hex')) {
    throw new ConnectorAuthError(SHOPIFY, 'The answer from Shopify was not signed correctly; start connecting again.');
  }
  const shop = normalizeShopDomain(query.shop ?? '');
  const timestamp = Number(query.timestamp);
  if (query.timestamp !== undefined && (!Number.isFinite(timestamp) || Math.abs(now / 1000 - timestamp) > CALLBACK_MAX_AGE_SECONDS)) {
    throw new ConnectorAuthError(SHOPIFY, 'The answer from Shopify is too old; start connecting again.');
  }
  return shop;
}
