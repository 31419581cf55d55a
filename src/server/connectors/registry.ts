import { PLATFORM_KEYS, type PlatformKey } from '../../shared/platforms.ts';
import { bingadsConnector } from './bingads/index.ts';
import type { Connector } from './connector.ts';
import { emailConnector } from './email/index.ts';
import { googleadsConnector } from './googleads/index.ts';
import { klaviyoConnector } from './klaviyo/index.ts';
import { mailchimpConnector } from './mailchimp/index.ts';
import { metaadsConnector } from './metaads/index.ts';
import { omnisendConnector } from './omnisend/index.ts';
import { shopifyConnector } from './shopify/index.ts';
import { tiktokadsConnector } from './tiktokads/index.ts';
import { woocommerceConnector } from './woocommerce/index.ts';

// Every platform the sync engine can connect, by platform key. A connector joins the integrations
// screen, the sync runner and the contract test (contract.test.ts) by being listed here.

export const CONNECTORS: Readonly<Record<PlatformKey, Connector>> = {
  woocommerce: woocommerceConnector,
  shopify: shopifyConnector,
  googleads: googleadsConnector,
  metaads: metaadsConnector,
  bingads: bingadsConnector,
  tiktokads: tiktokadsConnector,
  omnisend: omnisendConnector,
  klaviyo: klaviyoConnector,
  mailchimp: mailchimpConnector,
  email: emailConnector,
};

export function connectorFor(platform: PlatformKey): Connector {
  return CONNECTORS[platform];
}

export function registeredPlatforms(): PlatformKey[] {
  return PLATFORM_KEYS.filter((platform) => CONNECTORS[platform] !== undefined);
}
