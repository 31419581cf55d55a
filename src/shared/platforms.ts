export const PLATFORM_KEYS = [
  'woocommerce',
  'shopify',
  'googleads',
  'metaads',
  'bingads',
  'tiktokads',
  'omnisend',
  'klaviyo',
  'mailchimp',
  'email',
] as const;

export type PlatformKey = (typeof PLATFORM_KEYS)[number];

/** What the product calls each platform (integrations screen, sync messages). */
export const PLATFORM_NAMES: Readonly<Record<PlatformKey, string>> = {
  woocommerce: 'WooCommerce',
  shopify: 'Shopify',
  googleads: 'Google Ads',
  metaads: 'Meta Ads',
  bingads: 'Bing Ads',
  tiktokads: 'TikTok Ads',
  omnisend: 'Omnisend',
  klaviyo: 'Klaviyo',
  mailchimp: 'Mailchimp',
  email: 'E-mail (CSV upload)',
};

/** The platforms the header's connection widget names; any other key shows as it is. */
const NAMED_IN_HEADER: ReadonlySet<string> = new Set<PlatformKey>(['woocommerce', 'shopify', 'googleads', 'metaads', 'bingads', 'klaviyo', 'omnisend']);

/** Display name of a platform key in the header's connection widget; keys without one show as they are. */
export function platformDisplayName(key: string): string {
  return NAMED_IN_HEADER.has(key) ? PLATFORM_NAMES[key as PlatformKey] : key;
}
