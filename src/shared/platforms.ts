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

const DISPLAY_NAMES: Partial<Record<string, string>> = {
  woocommerce: 'WooCommerce',
  shopify: 'Shopify',
  googleads: 'Google Ads',
  metaads: 'Meta Ads',
  bingads: 'Bing Ads',
  klaviyo: 'Klaviyo',
  omnisend: 'Omnisend',
};

/** Display name of a platform key; keys without one show as they are. */
export function platformDisplayName(key: string): string {
  return DISPLAY_NAMES[key] ?? key;
}
