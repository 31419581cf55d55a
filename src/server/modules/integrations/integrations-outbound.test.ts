import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownerWithStore } from '../../../../test/guests.ts';
import { useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { connectToLoopbackOnly } from '../../../../test/loopback-only.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import { loadConfig, type PlatformSettings } from '../../config.ts';
import { parseAllowList } from '../../outbound/address-policy.ts';
import { configureOutbound } from '../../outbound/outbound-http.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from './integrations-runtime.ts';
import { EMAIL_CSV_MEDIA_TYPE_MESSAGE } from './integrations.routes.ts';

// What a user sees when a connection's address leads somewhere it must not (issue 15): the WooCommerce
// store address is the one a user types, so it is where a loopback, private or metadata address would
// come in. Plus the connectors' low findings: a Mailchimp key without its data centre and the e-mail
// CSV upload's bad amounts and content types.

// Addresses named below are refused before connecting; should that ever break, nothing leaves loopback.
connectToLoopbackOnly();
const testApp = useTestApp();
const SECRET = 'internal-secret-9c21';

/** A loopback server answering every request with `answer`, counting requests. */
async function server(answer: (url: string) => { status: number; headers?: Record<string, string>; body: string }) {
  let requests = 0;
  const instance: Server = createServer((request, response) => {
    requests++;
    const { status, headers, body } = answer(request.url ?? '/');
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  const port = (instance.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => (instance.closeAllConnections(), instance.close(() => resolve()))),
  };
}

type LoopbackServer = Awaited<ReturnType<typeof server>>;
let internal: LoopbackServer;
let leaky: LoopbackServer;
let redirecting: LoopbackServer;

function settingsWith(overrides: Partial<Record<PlatformKey, PlatformSettings>>): IntegrationsSettings {
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, overrides[key] ?? {}])) as Record<PlatformKey, PlatformSettings>;
  return integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-outbound-test'), platforms });
}

beforeAll(async () => {
  // An internal service holding a secret, as a metadata service or admin panel would.
  internal = await server(() => ({ status: 404, headers: { 'content-type': 'text/plain' }, body: `not here: ${SECRET}` }));
  // A store whose errors carry text that must not be repeated (a proxy's page, a misconfigured plugin).
  leaky = await server((url) =>
    url.includes('/orders')
      ? { status: 400, body: JSON.stringify({ code: 'rest_invalid_param', message: `Invalid parameter: ${SECRET}`, data: { status: 400 } }) }
      : { status: 401, body: JSON.stringify({ code: 'woocommerce_rest_cannot_view', message: SECRET, data: { status: 401 } }) },
  );
  // A store that sends every request on to the internal service (the audit's finding).
  redirecting = await server(() => ({ status: 302, headers: { location: `${internal.url}/latest/meta-data/` }, body: '' }));
  setIntegrationJobSender(async () => undefined);
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await Promise.all([internal.close(), leaky.close(), redirecting.close()]);
});
afterEach(() => {
  // Back to the harness's allow-list (vitest.config.ts).
  configureOutbound({ allowHosts: loadConfig().outboundAllowHosts, env: 'test' });
});

function connectWoo(client: ApiClient, storeUrl: string) {
  return client.post('/trpc/integrations.connect', { platform: 'woocommerce', credentials: { storeUrl, consumerKey: 'ck_1', consumerSecret: 'cs_1' } });
}

describe('WooCommerce store addresses that are not public', () => {
  beforeEach(() => {
    // The store address itself is contacted (no PLATFORM_BASE_URL_WOOCOMMERCE), and nothing is allow-listed.
    configureIntegrations(settingsWith({}));
    configureOutbound({ allowHosts: [], env: 'test', resolve: async (hostname) => (hostname === 'shop.intranet.example' ? [{ address: '10.20.30.40', family: 4 }] : []) });
  });

  it.each([
    [`https://127.0.0.1:${4443}/`, 'The store address cannot be used: 127.0.0.1 is a loopback address (this server itself); StorePulse only connects to public internet addresses.'],
    ['https://localhost/', 'The store address cannot be used: localhost is this server itself; StorePulse only connects to public internet addresses.'],
    ['https://169.254.169.254/', 'The store address cannot be used: 169.254.169.254 is a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer); StorePulse only connects to public internet addresses.'],
    ['https://2130706433/', 'The store address cannot be used: 127.0.0.1 is a loopback address (this server itself); StorePulse only connects to public internet addresses.'],
    ['https://[::ffff:10.0.0.1]/shop', 'The store address cannot be used: ::ffff:a00:1 is an IPv4-mapped IPv6 address (::ffff:0:0/96); StorePulse only connects to public internet addresses.'],
    ['https://shop.intranet.example/', 'The store address cannot be used: shop.intranet.example (10.20.30.40) is a private network address; StorePulse only connects to public internet addresses.'],
  ])('%s is refused with a clear message and nothing is stored', async (storeUrl, message) => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Intranet shop');
    const answer = await connectWoo(owner.client, storeUrl);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe(message);
    expect(await testApp.orm.em.fork().findOne(PlatformConnection, { store: owner.store.id, platform: 'woocommerce' })).toBeNull();
  });
});

describe("a store's error answers", () => {
  it('a 4xx body with secret text never appears in the error shown', async () => {
    configureIntegrations(settingsWith({ woocommerce: { baseUrl: leaky.url } }));
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Leaky shop');
    const answer = await connectWoo(owner.client, 'https://shop.example.com');
    expect(answer.status).toBe(400);
    // The platform's documented code stands in for its message (HTTP 400, code rest_invalid_param).
    expect(answer.body.error.message).toBe('WooCommerce answered HTTP 400 (rest_invalid_param). Try again in a moment.');
    expect(JSON.stringify(answer.body)).not.toContain(SECRET);
  });

  it('a store address that redirects to an internal service is refused; the service is never asked', async () => {
    configureIntegrations(settingsWith({ woocommerce: { baseUrl: redirecting.url } }));
    // The redirecting store stands for a public host (allow-listed by port); the internal service is not allowed.
    configureOutbound({ allowHosts: parseAllowList(`127.0.0.1:${redirecting.port}`), env: 'test' });
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Redirecting shop');
    const answer = await connectWoo(owner.client, 'https://shop.example.com');
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe('The store address cannot be used: 127.0.0.1 is a loopback address (this server itself); StorePulse only connects to public internet addresses.');
    expect(JSON.stringify(answer.body)).not.toContain(SECRET);
    expect(internal.requests).toBe(0);
    // Refused once, not retried.
    expect(redirecting.requests).toBe(1);
  });
});

describe('Mailchimp', () => {
  it('a key without its data centre answers 400 with what to do', async () => {
    // No PLATFORM_BASE_URL_MAILCHIMP: the API root comes from the key's "-us21" suffix.
    configureIntegrations(settingsWith({}));
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Mailchimp shop');
    const answer = await owner.client.post('/trpc/integrations.connect', { platform: 'mailchimp', credentials: { apiKey: '0123456789abcdef0123456789abcdef' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe('This does not look like a Mailchimp API key: it should end in its data centre, like "-us21". Copy the whole key from Mailchimp.');
  });
});

describe('the e-mail CSV upload', () => {
  beforeEach(() => configureIntegrations(settingsWith({})));

  it('a 400-digit amount answers 400 naming the row and the column', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Huge amount shop');
    const huge = '9'.repeat(400);
    const csvText = `day,campaign_id,sends,revenue,cost\n2026-10-01,c1,10,12.50,1.00\n2026-10-02,c1,10,${huge},1.00\n2026-10-03,c1,${huge},1.00,${huge}.5\n`;
    const answer = await owner.client.request('POST', '/api/integrations/email-csv', { fileName: 'huge.csv', csvText });
    expect(answer.status).toBe(400);
    // 2^53 - 1 = 9007199254740991 pence = 90071992547409.91 GBP (the store's currency: the file has no currency column), the largest amount kept exactly.
    expect(answer.body.message).toBe(
      [
        '"huge.csv" cannot be imported:',
        'Line 3: revenue "99999999999999999999…" is too large (at most 90071992547409.91 GBP)',
        'Line 4: sends "99999999999999999999…" is too large',
        'Line 4: cost "99999999999999999999…" is too large (at most 90071992547409.91 GBP)',
      ].join('\n'),
    );
  });

  it('accepts only the JSON it documents: other content types answer 415, broken JSON 400', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Content type shop');
    const body = JSON.stringify({ fileName: 'ok.csv', csvText: 'day,campaign_id\n2026-10-01,c1\n' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/csv', 'multipart/form-data; boundary=x']) {
      const answer = await owner.client.request('POST', '/api/integrations/email-csv', body, { 'content-type': type });
      expect(answer.status, type).toBe(415);
      expect(typeof answer.body.message, type).toBe('string');
    }
    const plain = await owner.client.request('POST', '/api/integrations/email-csv', body, { 'content-type': 'text/plain' });
    expect(plain.body.message).toBe(EMAIL_CSV_MEDIA_TYPE_MESSAGE);
    const broken = await owner.client.request('POST', '/api/integrations/email-csv', '{"fileName": ', { 'content-type': 'application/json; charset=utf-8' });
    expect(broken.status).toBe(400);
    expect(await testApp.orm.em.fork().findOne(PlatformConnection, { store: owner.store.id, platform: 'email' })).toBeNull();
    const good = await owner.client.request('POST', '/api/integrations/email-csv', body, { 'content-type': 'application/json; charset=utf-8' });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
  });
});
