// Where e2e/integrations.spec.ts starts its platform fakes, and the OAuth apps those fakes know. The
// server reads these at start (playwright.config.ts passes them to it), so the ports are fixed.

export const INTEGRATION_FAKE_PORTS = { shopify: 4611, metaads: 4612, klaviyo: 4613 } as const;

export const FAKE_SHOPIFY_APP = { clientId: 'fake-shopify-client-id', clientSecret: 'fake-shopify-client-secret' } as const;
/** The Meta fake's app id and secret (test/fakes/metaads.ts). */
export const FAKE_META_APP = { clientId: '1234567890123456', clientSecret: 'fake-client-secret' } as const;

const local = (port: number) => `http://127.0.0.1:${port}`;

export const INTEGRATION_FAKES_ENV: Record<string, string> = {
  PLATFORM_BASE_URL_SHOPIFY: local(INTEGRATION_FAKE_PORTS.shopify),
  SHOPIFY_AUTHORIZE_URL: local(INTEGRATION_FAKE_PORTS.shopify),
  SHOPIFY_CLIENT_ID: FAKE_SHOPIFY_APP.clientId,
  SHOPIFY_CLIENT_SECRET: FAKE_SHOPIFY_APP.clientSecret,
  PLATFORM_BASE_URL_METAADS: local(INTEGRATION_FAKE_PORTS.metaads),
  METAADS_AUTHORIZE_URL: local(INTEGRATION_FAKE_PORTS.metaads),
  METAADS_CLIENT_ID: FAKE_META_APP.clientId,
  METAADS_CLIENT_SECRET: FAKE_META_APP.clientSecret,
  PLATFORM_BASE_URL_KLAVIYO: `${local(INTEGRATION_FAKE_PORTS.klaviyo)}/api`,
  // The fakes are on loopback, which the server's outbound requests refuse unless named (src/server/outbound/).
  // Shopify's bulk files come from a second server of its fake on a port of its own: 127.0.0.1 as a whole.
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
};
