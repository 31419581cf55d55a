// Where e2e/integrations.spec.ts starts its platform fakes, and the OAuth apps those fakes know. The
// server reads these at start (playwright.config.ts passes them to it), so the ports are fixed per run:
// 1000, 2000 and 3000 above the server's own port, so that suites started side by side with
// different E2E_PORTs (several people or jobs on one machine) never ask for the same port.

/** The port of the server the Playwright tests start (E2E_PORT, 4310 by default). */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 4310);
if (!Number.isInteger(E2E_PORT) || E2E_PORT < 1024 || E2E_PORT + 3000 > 65_535) {
  throw new Error(`E2E_PORT must be a port from 1024 to 62535 (the platform fakes listen 1000, 2000 and 3000 above it), got ${JSON.stringify(process.env.E2E_PORT)}`);
}

export const INTEGRATION_FAKE_PORTS = { shopify: E2E_PORT + 1000, metaads: E2E_PORT + 2000, klaviyo: E2E_PORT + 3000 } as const;

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
