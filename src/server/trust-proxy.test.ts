import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, GENEROUS_AUTH_LIMITS, testServices, uniqueUser, useTestDatabase } from '../../test/harness.ts';
import { loadConfig, parseTrustProxy } from './config.ts';

// TRUST_PROXY decides whose X-Forwarded-For names the client, and so which address the per-address
// rate limits count. A client writes its own X-Forwarded-For; a proxy appends the address it
// received the request from (nginx's $proxy_add_x_forwarded_for), so only the entries added by our
// own proxies, counted from the right, can be believed.
// Fastify: https://fastify.dev/docs/latest/Reference/Server/#trustproxy

const database = useTestDatabase();
const PROXY = '10.0.0.2';

const started: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of started.splice(0)) await app.close();
});

/** An app behind TRUST_PROXY='trustProxy' allowing 2 sign-in attempts per client address. */
async function appTrusting(trustProxy: string): Promise<FastifyInstance> {
  const app = await createTestApp(database.orm, testServices({ ...GENEROUS_AUTH_LIMITS, loginPerIp: { max: 2, windowMs: 15 * 60_000 } }), { TRUST_PROXY: trustProxy });
  started.push(app);
  return app;
}

/** A sign-in that reaches the app from 'socket' with this X-Forwarded-For. */
function signInVia(app: FastifyInstance, socket: string, forwardedFor: string | null) {
  return new ApiClient(app, { remoteAddress: socket }).request(
    'POST',
    '/api/login',
    { username: 'nobody-in-particular', password: 'wrong-password' },
    forwardedFor === null ? {} : { 'x-forwarded-for': forwardedFor },
  );
}

describe('TRUST_PROXY', () => {
  it.each([
    ['false', false],
    ['', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['YES', true],
    ['1', { hops: 1 }],
    ['2', { hops: 2 }],
    ['10.0.0.2', { addresses: ['10.0.0.2'] }],
    [' 10.0.0.0/8, fd00::/8 ,loopback, 192.168.0.0/255.255.0.0', { addresses: ['10.0.0.0/8', 'fd00::/8', 'loopback', '192.168.0.0/255.255.0.0'] }],
  ])('reads %j as %j', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
    expect(loadConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it.each([
    ['proxy.internal', '"proxy.internal" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal'],
    ['10.0.0.0/33', '"10.0.0.0/33" is not an IP address'],
    ['10.0.0.1, 300.1.1.1', '"300.1.1.1" is not an IP address'],
    ['11', '11 proxy hops is more than any set-up has'],
  ])('refuses %j with a clear error', (raw, message) => {
    expect(() => loadConfig({ TRUST_PROXY: raw })).toThrow(message);
  });

  it('as a hop count (1): a client behind the proxy cannot dodge its per-address limit by writing X-Forwarded-For', async () => {
    const app = await appTrusting('1');
    // The client sends a made-up X-Forwarded-For each time; the proxy appends the client's real address.
    expect((await signInVia(app, PROXY, '198.51.100.1, 203.0.113.11')).status).toBe(401);
    expect((await signInVia(app, PROXY, '198.51.100.2, 203.0.113.11')).status).toBe(401);
    expect((await signInVia(app, PROXY, '198.51.100.3, 203.0.113.11')).status).toBe(429);
    // Another client behind the same proxy has its own 2 attempts.
    expect((await signInVia(app, PROXY, '203.0.113.10')).status).toBe(401);
  });

  it('as a hop count (2, a CDN in front of the load balancer): the entry the CDN appended names the client', async () => {
    const app = await appTrusting('2');
    // client -> CDN (appends 203.0.113.12) -> load balancer (appends the CDN's 172.16.5.5; the app's TCP peer) -> app.
    expect((await signInVia(app, PROXY, '198.51.100.1, 203.0.113.12, 172.16.5.5')).status).toBe(401);
    expect((await signInVia(app, PROXY, '198.51.100.2, 203.0.113.12, 172.16.5.5')).status).toBe(401);
    expect((await signInVia(app, PROXY, '203.0.113.12, 172.16.5.5')).status).toBe(429);
  });

  it('as the proxy address: believed only from the proxy; a direct connection is counted as itself', async () => {
    const app = await appTrusting(PROXY);
    expect((await signInVia(app, PROXY, '198.51.100.1, 203.0.113.13')).status).toBe(401);
    expect((await signInVia(app, PROXY, '198.51.100.2, 203.0.113.13')).status).toBe(401);
    expect((await signInVia(app, PROXY, '198.51.100.3, 203.0.113.13')).status).toBe(429);
    // Straight to the app's port from 198.51.100.50, claiming to be a fresh address: counted as 198.51.100.50.
    expect((await signInVia(app, '198.51.100.50', '192.0.2.200')).status).toBe(401);
    expect((await signInVia(app, '198.51.100.50', '192.0.2.201')).status).toBe(401);
    expect((await signInVia(app, '198.51.100.50', '192.0.2.202')).status).toBe(429);
  });

  it('off (the default): X-Forwarded-For is ignored and the TCP peer is the client', async () => {
    const app = await appTrusting('false');
    expect((await signInVia(app, '198.51.100.60', '192.0.2.210')).status).toBe(401);
    expect((await signInVia(app, '198.51.100.60', '192.0.2.211')).status).toBe(401);
    expect((await signInVia(app, '198.51.100.60', '192.0.2.212')).status).toBe(429);
  });

  it('true keeps its old meaning: the first X-Forwarded-For entry, which the client chooses (README warns)', async () => {
    const app = await appTrusting('true');
    for (const spoofed of ['192.0.2.220', '192.0.2.221', '192.0.2.222']) expect((await signInVia(app, PROXY, `${spoofed}, 203.0.113.14`)).status).toBe(401);
  });

  it('as a hop count: the proxy\'s X-Forwarded-Proto https marks the session cookie Secure', async () => {
    const app = await appTrusting('1');
    const answer = await new ApiClient(app, { remoteAddress: PROXY }).request('POST', '/api/register', uniqueUser('https'), {
      'x-forwarded-for': '203.0.113.15',
      'x-forwarded-proto': 'https',
    });
    expect(answer.status).toBe(201);
    expect(answer.headers['set-cookie']).toMatch(/; Secure/);
  });
});
