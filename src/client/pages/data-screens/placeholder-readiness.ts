/**
 * Whether a placeholder screen may still tell its user to connect something: only when the store
 * really lacks what the screen needs. A store with orders (a synced shop or the demo data) or a
 * connected shop is never told to "Connect your store".
 */

/** What a screen works from: the store's orders, or one ad platform's data (with or without orders). */
export type ScreenNeeds = 'store' | 'metaads' | 'storeAndGoogleads';

export interface StoreFacts {
  /** Counting orders over all time (commerce.dataStatus). */
  orders: number;
  /** Ad platforms that have reported metrics (commerce.dataStatus). */
  adPlatforms: readonly string[];
  /** Platforms connected right now (connections.status). */
  connected: readonly string[];
}

const SHOP_PLATFORMS = ['shopify', 'woocommerce'];

function hasShop(facts: StoreFacts): boolean {
  return facts.orders > 0 || facts.connected.some((platform) => SHOP_PLATFORMS.includes(platform));
}

function hasAdPlatform(facts: StoreFacts, platform: string): boolean {
  return facts.adPlatforms.includes(platform) || facts.connected.includes(platform);
}

/** 'connect': the store lacks what the screen needs; 'ready': it has it (the screen itself is still to come). */
export function placeholderReadiness(needs: ScreenNeeds, facts: StoreFacts): 'connect' | 'ready' {
  switch (needs) {
    case 'store':
      return hasShop(facts) ? 'ready' : 'connect';
    case 'metaads':
      return hasAdPlatform(facts, 'metaads') ? 'ready' : 'connect';
    case 'storeAndGoogleads':
      return hasShop(facts) && hasAdPlatform(facts, 'googleads') ? 'ready' : 'connect';
  }
}
