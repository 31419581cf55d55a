import type { Channel } from '../../../shared/commerce.ts';

/** What an order carries about where its buyer came from. */
export interface AttributionFields {
  landingSite?: string | null;
  referrer?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  utmContent?: string | null;
  utmTerm?: string | null;
  gclid?: string | null;
  fbclid?: string | null;
  msclkid?: string | null;
  ttclid?: string | null;
}

const QUERY_FIELDS = {
  utm_source: 'utmSource',
  utm_medium: 'utmMedium',
  utm_campaign: 'utmCampaign',
  utm_content: 'utmContent',
  utm_term: 'utmTerm',
  gclid: 'gclid',
  fbclid: 'fbclid',
  msclkid: 'msclkid',
  ttclid: 'ttclid',
} as const satisfies Record<string, keyof AttributionFields>;

function parseUrl(value: string | null | undefined): URL | null {
  if (!value) return null;
  try {
    // Shopify's landing_site is a path with a query ("/products/x?utm_source=..."); referrers are full URLs.
    return new URL(value, 'https://store.invalid');
  } catch {
    return null;
  }
}

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** The query string of a landing site ("/products/x?utm_source=...#reviews" -> "utm_source=..."), if it has one. */
function queryOf(landingSite: string | null | undefined): URLSearchParams | null {
  const question = landingSite?.indexOf('?') ?? -1;
  if (question < 0) return null;
  const hash = landingSite!.indexOf('#');
  if (hash >= 0 && hash < question) return null;
  return new URLSearchParams(landingSite!.slice(question + 1, hash < 0 ? undefined : hash));
}

/**
 * The order's fields completed from its landing site's query string: a field the platform sent
 * wins over the same parameter in the URL. Blank values become null.
 */
export function withLandingSiteParameters(fields: AttributionFields): Required<AttributionFields> {
  const query = queryOf(fields.landingSite);
  const result = {
    landingSite: blankToNull(fields.landingSite),
    referrer: blankToNull(fields.referrer),
  } as Required<AttributionFields>;
  for (const [parameter, key] of Object.entries(QUERY_FIELDS)) {
    result[key] = blankToNull(fields[key]) ?? blankToNull(query?.get(parameter));
  }
  return result;
}

const PAID_MEDIA = new Set(['cpc', 'ppc', 'cpm', 'cpv', 'cpa', 'paid', 'ads', 'ad', 'display', 'retargeting', 'remarketing', 'shopping', 'pmax']);

function isPaidMedium(medium: string): boolean {
  return PAID_MEDIA.has(medium) || medium.includes('paid') || medium.endsWith('_ads') || medium.endsWith('-ads');
}

const EMAIL_MEDIA = new Set(['email', 'e-mail', 'e_mail', 'newsletter', 'mail']);
const GOOGLE_SOURCES = new Set(['google', 'googleads', 'google_ads', 'google-ads', 'adwords', 'youtube']);
const META_SOURCES = new Set(['facebook', 'fb', 'instagram', 'ig', 'meta', 'metaads', 'meta_ads', 'facebook_ads', 'messenger', 'an']);
const BING_SOURCES = new Set(['bing', 'bingads', 'bing_ads', 'microsoft', 'microsoftads', 'msn']);
const TIKTOK_SOURCES = new Set(['tiktok', 'tiktokads', 'tiktok_ads']);
const EMAIL_PLATFORM_SOURCES = new Set(['klaviyo', 'omnisend', 'mailchimp'] as const);

function channelFromUtm(source: string | null, medium: string | null): Channel | null {
  const s = source?.toLowerCase() ?? '';
  const m = medium?.toLowerCase() ?? '';
  if (!s && !m) return null;
  const paid = isPaidMedium(m);
  if (GOOGLE_SOURCES.has(s)) return paid ? 'googleads' : m === 'email' ? 'email' : 'organic_search';
  if (META_SOURCES.has(s)) return paid ? 'metaads' : 'organic_social';
  if (BING_SOURCES.has(s)) return 'bingads';
  if (TIKTOK_SOURCES.has(s)) return 'tiktokads';
  if ((EMAIL_PLATFORM_SOURCES as Set<string>).has(s)) return s as Channel;
  if (EMAIL_MEDIA.has(m)) return 'email';
  if (m === 'organic' || m === 'seo') return 'organic_search';
  if (m === 'social' || m === 'social-media' || m === 'social_media') return 'organic_social';
  return null;
}

const SEARCH_HOSTS = [/(^|\.)google\.[a-z.]+$/, /(^|\.)bing\.com$/, /(^|\.)yahoo\.[a-z.]+$/, /(^|\.)duckduckgo\.com$/, /(^|\.)baidu\.com$/, /(^|\.)yandex\.[a-z.]+$/, /(^|\.)ecosia\.org$/, /^search\.brave\.com$/, /(^|\.)ask\.com$/, /(^|\.)qwant\.com$/, /(^|\.)startpage\.com$/];
const SOCIAL_HOSTS = [/(^|\.)facebook\.com$/, /(^|\.)fb\.com$/, /(^|\.)instagram\.com$/, /^t\.co$/, /(^|\.)twitter\.com$/, /(^|\.)x\.com$/, /(^|\.)linkedin\.com$/, /^lnkd\.in$/, /(^|\.)pinterest\.[a-z.]+$/, /^pin\.it$/, /(^|\.)reddit\.com$/, /(^|\.)tiktok\.com$/, /(^|\.)youtube\.com$/, /^youtu\.be$/, /(^|\.)threads\.net$/, /(^|\.)snapchat\.com$/, /(^|\.)bsky\.app$/];
const WEBMAIL_HOSTS = [/^mail\.google\.com$/, /^outlook\.(live|office|office365)\.com$/, /^mail\.yahoo\.com$/, /(^|\.)mail\.[a-z0-9-]+\.[a-z.]+$/];
/** Hosts a buyer passes through while paying: returning from them is not a referral. */
const CHECKOUT_HOSTS = [/(^|\.)paypal\.com$/, /^checkout\.stripe\.com$/, /^checkout\.shopify\.com$/, /(^|\.)klarna\.com$/, /^pay\.google\.com$/];

function channelFromReferrer(referrer: string | null, landingSite: string | null): Channel | null {
  const url = referrer ? parseUrl(referrer) : null;
  if (!url || url.hostname === 'store.invalid' || !url.hostname) return null;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const landingHost = parseUrl(landingSite)?.hostname.toLowerCase().replace(/^www\./, '');
  if (landingHost && landingHost !== 'store.invalid' && landingHost === host) return null;
  if (CHECKOUT_HOSTS.some((pattern) => pattern.test(host))) return null;
  if (WEBMAIL_HOSTS.some((pattern) => pattern.test(host))) return 'email';
  if (SEARCH_HOSTS.some((pattern) => pattern.test(host))) return 'organic_search';
  if (SOCIAL_HOSTS.some((pattern) => pattern.test(host))) return 'organic_social';
  return 'referral';
}

/**
 * The channel an order is attributed to (last click, as the order itself records it):
 * 1. a click id: gclid -> googleads, fbclid -> metaads, msclkid -> bingads, ttclid -> tiktokads;
 * 2. UTM source/medium: google + paid medium -> googleads, facebook/instagram/meta + paid -> metaads,
 *    bing -> bingads, tiktok -> tiktokads, klaviyo/omnisend/mailchimp -> themselves, medium email -> email
 *    (google or facebook with an unpaid medium -> organic_search / organic_social);
 * 3. the referrer's host: search engines -> organic_search, social networks -> organic_social,
 *    webmail -> email, any other site -> referral (the store's own host and payment pages are ignored);
 * 4. tagged with an unknown UTM source -> referral; nothing at all -> direct.
 * Fields missing on the order are read from its landing site's query string.
 */
export function channelOf(order: AttributionFields): Channel {
  return channelOfCompleted(withLandingSiteParameters(order));
}

/** channelOf for fields that withLandingSiteParameters has completed already. */
export function channelOfCompleted(fields: Required<AttributionFields>): Channel {
  if (fields.gclid) return 'googleads';
  if (fields.fbclid) return 'metaads';
  if (fields.msclkid) return 'bingads';
  if (fields.ttclid) return 'tiktokads';
  const fromUtm = channelFromUtm(fields.utmSource, fields.utmMedium);
  if (fromUtm) return fromUtm;
  const fromReferrer = channelFromReferrer(fields.referrer, fields.landingSite);
  if (fromReferrer) return fromReferrer;
  return fields.utmSource ? 'referral' : 'direct';
}
