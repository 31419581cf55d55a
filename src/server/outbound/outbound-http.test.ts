import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectToLoopbackOnly } from '../../../test/loopback-only.ts';
import { loadConfig } from '../config.ts';
import { isAllowListed, nonPublicReason, parseAllowList } from './address-policy.ts';
import {
  allowedAddresses,
  allowOutboundHosts,
  configureOutbound,
  literalRefusal,
  OutboundBodyTooLargeError,
  outboundFetch,
  outboundPolicy,
  OutboundRefusedError,
  OutboundTimeoutError,
  openOutboundStream,
  type OutboundPolicy,
  type Resolver,
} from './outbound-http.ts';

// The outbound module against hostile targets. Only loopback servers of this file are ever connected
// to: every other address below is refused before a connection is attempted, which the table checks
// with the module's own address checks (the ones its connector runs for every connection) rather than
// by sending packets to private networks.

// Addresses named below are refused before connecting; should that ever break, nothing leaves loopback.
connectToLoopbackOnly();
const SECRET = 'internal-secret-7f3a';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

/** A loopback HTTP server that records what reached it. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void, host = '127.0.0.1', port = 0): Promise<{ server: Server; url: string; port: number; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((request, response) => {
    requests.push({ method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers });
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const actual = (server.address() as AddressInfo).port;
  return { server, url: `http://${host}:${actual}`, port: actual, requests };
}

const servers: Server[] = [];
async function started(...args: Parameters<typeof serve>) {
  const result = await serve(...args);
  servers.push(result.server);
  return result;
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A resolver that answers from a table, counting the questions; unknown names do not resolve. */
function tableResolver(table: Record<string, string[][]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const answered = new Map<string, number>();
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const index = answered.get(hostname) ?? 0;
    answered.set(hostname, index + 1);
    // Each further question gets the next answer (the last one repeats): a rebinding name.
    return answers[Math.min(index, answers.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

function policy(allow: string, extra: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return { allow: parseAllowList(allow), resolve: tableResolver({}), ...extra };
}

const secretServer = () =>
  started((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(SECRET);
  });

describe('hostile targets', () => {
  // URL spelling -> the address it means (WHATWG URL parsing, which every request goes through) -> why it is refused.
  const table: [string, string, RegExp][] = [
    ['http://2130706433/', '127.0.0.1', /loopback/],
    ['http://0177.0.0.1/', '127.0.0.1', /loopback/],
    ['http://0x7f.0.0.1/', '127.0.0.1', /loopback/],
    ['http://127.1/', '127.0.0.1', /loopback/],
    ['http://[::1]/', '::1', /loopback/],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', /IPv4-mapped/],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', /IPv4-mapped/],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', /link-local.*metadata/],
    ['http://10.0.0.1/', '10.0.0.1', /private network/],
    ['http://10.255.255.254/', '10.255.255.254', /private network/],
    ['http://172.16.0.1/', '172.16.0.1', /private network/],
    ['http://172.31.255.254/', '172.31.255.254', /private network/],
    ['http://192.168.1.1/', '192.168.1.1', /private network/],
    ['http://100.64.0.1/', '100.64.0.1', /carrier-grade NAT/],
    ['http://100.127.255.254/', '100.127.255.254', /carrier-grade NAT/],
    ['http://0.0.0.0/', '0.0.0.0', /unspecified/],
    ['http://0/', '0.0.0.0', /unspecified/],
    ['http://[fc00::1]/', 'fc00::1', /unique local/],
    ['http://[fd12:3456:789a::1]/', 'fd12:3456:789a::1', /unique local/],
    ['http://[fe80::1]/', 'fe80::1', /link-local/],
    ['http://224.0.0.1/', '224.0.0.1', /multicast/],
    ['http://239.255.255.250/', '239.255.255.250', /multicast/],
    ['http://[ff02::1]/', 'ff02::1', /multicast/],
    ['http://255.255.255.255/', '255.255.255.255', /broadcast/],
    ['http://[64:ff9b::a00:1]/', '64:ff9b::a00:1', /NAT64/],
    ['http://[2002:a00:1::]/', '2002:a00:1::', /6to4/],
  ];

  it.each(table)('%s is refused before any connection (%s)', (spelling, address, reason) => {
    const url = new URL(spelling);
    const noAllowList = policy('');
    // The request layer's check (every hop of a redirect chain goes through it)...
    const refused = literalRefusal(url, noAllowList);
    expect(refused).toMatch(reason);
    expect(refused).toContain(address);
    // ...and the connection layer's, which the connector of every connection runs.
    return expect(allowedAddresses(url.hostname, 80, noAllowList)).rejects.toThrow(reason);
  });

  it('public addresses pass the same checks', async () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::6810:84e5', '100.128.0.1', '172.32.0.1', '192.169.0.1']) {
      expect(nonPublicReason(address), address).toBeNull();
    }
    expect(await allowedAddresses('8.8.8.8', 443, policy(''))).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('the loopback spellings are refused end to end: the server holding the secret is never asked', async () => {
    const secret = await secretServer();
    const spellings = [
      `http://2130706433:${secret.port}/`,
      `http://0177.0.0.1:${secret.port}/`,
      `http://0x7f.0.0.1:${secret.port}/`,
      `http://127.1:${secret.port}/`,
      `http://127.0.0.1:${secret.port}/`,
      `http://localhost:${secret.port}/`,
    ];
    for (const spelling of spellings) {
      await expect(outboundFetch(spelling, {}, { policy: policy('') }), spelling).rejects.toBeInstanceOf(OutboundRefusedError);
      await expect(openOutboundStream(spelling, {}, { policy: policy('') }), spelling).rejects.toBeInstanceOf(OutboundRefusedError);
    }
    expect(secret.requests).toHaveLength(0);
  });

  it('a host name that resolves to loopback (or to a private address among public ones) is refused', async () => {
    const secret = await secretServer();
    const resolve = tableResolver({ 'shop.example': [['127.0.0.1']], 'mixed.example': [['93.184.215.14', '127.0.0.1']], 'meta.example': [['169.254.169.254']] });
    const hostile = { allow: [], resolve };
    await expect(outboundFetch(`http://shop.example:${secret.port}/`, {}, { policy: hostile })).rejects.toThrow('shop.example (127.0.0.1) is a loopback address');
    await expect(outboundFetch(`http://mixed.example:${secret.port}/`, {}, { policy: hostile })).rejects.toThrow('mixed.example (127.0.0.1) is a loopback address');
    await expect(allowedAddresses('meta.example', 80, hostile)).rejects.toThrow('meta.example (169.254.169.254) is a link-local address');
    expect(secret.requests).toHaveLength(0);
  });

  it('only http and https, and no credentials in the address', async () => {
    for (const spelling of ['ftp://example.com/file', 'file:///etc/passwd', 'gopher://example.com/', 'data:text/plain,hello']) {
      await expect(outboundFetch(spelling, {}, { policy: policy('') }), spelling).rejects.toThrow(/Only http and https/);
    }
    await expect(outboundFetch('https://user:password@example.com/', {}, { policy: policy('') })).rejects.toThrow(/user name or password/);
  });
});

describe('the allow-list', () => {
  it('reads host and host:port entries, IPv6 in brackets, and refuses anything else', () => {
    expect(parseAllowList(' 127.0.0.1:4611, [::1]:8080 ,Woo.Internal,127.1 ')).toEqual([
      { host: '127.0.0.1', port: 4611 },
      { host: '::1', port: 8080 },
      { host: 'woo.internal' },
      { host: '127.0.0.1' },
    ]);
    expect(parseAllowList(undefined)).toEqual([]);
    for (const bad of ['http://127.0.0.1', '127.0.0.1/path', 'user@host', '127.0.0.1:0', '127.0.0.1:70000']) expect(() => parseAllowList(bad), bad).toThrow(/OUTBOUND_ALLOW_HOSTS/);
    expect(() => loadConfig({ OUTBOUND_ALLOW_HOSTS: 'http://127.0.0.1' })).toThrow('Invalid environment: OUTBOUND_ALLOW_HOSTS');
  });

  it('an entry with a port allows that port only', () => {
    const entries = parseAllowList('127.0.0.1:4611');
    expect(isAllowListed(entries, { hostname: '127.0.0.1', address: '127.0.0.1', port: 4611 })).toBe(true);
    expect(isAllowListed(entries, { hostname: '127.0.0.1', address: '127.0.0.1', port: 4612 })).toBe(false);
  });

  it('is empty unless OUTBOUND_ALLOW_HOSTS names hosts, in every mode', () => {
    // Production also needs PUBLIC_URL (config.ts refuses to start without it).
    const PUBLIC_URL = 'https://app.example.com';
    for (const NODE_ENV of ['development', 'production', 'test']) expect(loadConfig({ NODE_ENV, PUBLIC_URL }).outboundAllowHosts).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL, OUTBOUND_ALLOW_HOSTS: '10.0.0.5:443' }).outboundAllowHosts).toEqual([{ host: '10.0.0.5', port: 443 }]);
  });

  it('the demo and benchmarks may add their own fakes, except in production where only OUTBOUND_ALLOW_HOSTS can', () => {
    try {
      configureOutbound({ allowHosts: [], env: 'development' });
      allowOutboundHosts('127.0.0.1:4999');
      expect(outboundPolicy().allow).toEqual([{ host: '127.0.0.1', port: 4999 }]);

      configureOutbound({ allowHosts: [], env: 'production' });
      expect(() => allowOutboundHosts('127.0.0.1:4999')).toThrow('Set OUTBOUND_ALLOW_HOSTS=127.0.0.1:4999 to allow it explicitly');
      expect(outboundPolicy().allow).toEqual([]);

      // Named explicitly (any port, or this one): nothing to refuse.
      configureOutbound({ allowHosts: parseAllowList('127.0.0.1:4999'), env: 'production' });
      expect(() => allowOutboundHosts('127.0.0.1:4999')).not.toThrow();
      expect(() => allowOutboundHosts('127.0.0.1')).toThrow('Set OUTBOUND_ALLOW_HOSTS=127.0.0.1 to allow it explicitly');
      configureOutbound({ allowHosts: parseAllowList('127.0.0.1'), env: 'production' });
      expect(() => allowOutboundHosts('127.0.0.1:4999, 127.0.0.1')).not.toThrow();
    } finally {
      configureOutbound({ allowHosts: loadConfig().outboundAllowHosts, env: 'test' });
    }
  });
});

describe('redirects', () => {
  it('a redirect from an allowed host to a private one is not followed, and the secret is never fetched', async () => {
    const internal = await secretServer();
    const store = await started((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${internal.port}/secret` });
      response.end();
    });
    // The store stands for a public host: allow-listed by its port; the internal service is not.
    const rules = policy(`127.0.0.1:${store.port}`);
    await expect(outboundFetch(`${store.url}/wp-json/`, {}, { policy: rules })).rejects.toThrow(`127.0.0.1 is a loopback address`);
    await expect(openOutboundStream(`${store.url}/bulk.jsonl`, {}, { policy: rules })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(store.requests).toHaveLength(2);
    expect(internal.requests).toHaveLength(0);
  });

  it('a redirect to a name that resolves to a private address is refused when connecting', async () => {
    const internal = await secretServer();
    const store = await started((_request, response) => {
      response.writeHead(307, { location: `http://intranet.example:${internal.port}/` });
      response.end();
    });
    const rules = { allow: parseAllowList(`127.0.0.1:${store.port}`), resolve: tableResolver({ 'intranet.example': [['127.0.0.1']] }) };
    await expect(outboundFetch(store.url, {}, { policy: rules })).rejects.toThrow('intranet.example (127.0.0.1) is a loopback address');
    expect(internal.requests).toHaveLength(0);
  });

  it('follows at most 5 redirects', async () => {
    // /hop/n redirects to /hop/n+1 until n = limit, which answers.
    const chain = (limit: number) =>
      started((request, response) => {
        const hop = Number(/\/hop\/(\d+)/.exec(request.url ?? '')?.[1] ?? 0);
        if (hop >= limit) {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end(`arrived after ${hop}`);
          return;
        }
        response.writeHead(301, { location: `/hop/${hop + 1}` });
        response.end();
      });
    const five = await chain(5);
    const answer = await outboundFetch(`${five.url}/hop/0`, {}, { policy: policy(`127.0.0.1:${five.port}`) });
    expect(await answer.text()).toBe('arrived after 5');

    const endless = await chain(1000);
    await expect(outboundFetch(`${endless.url}/hop/0`, {}, { policy: policy(`127.0.0.1:${endless.port}`) })).rejects.toThrow('redirected more than 5 times');
    // The first request and 5 redirects followed: 6 requests, none more.
    expect(endless.requests.map((request) => request.url)).toEqual(['/hop/0', '/hop/1', '/hop/2', '/hop/3', '/hop/4', '/hop/5']);
  });

  it('does not send Authorization to another origin, and a 303 after a POST is a GET without body', async () => {
    const other = await started((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    const first = await started((_request, response) => {
      response.writeHead(303, { location: `${other.url}/done` });
      response.end();
    });
    const rules = policy(`127.0.0.1:${first.port}, 127.0.0.1:${other.port}`);
    const answer = await outboundFetch(first.url, { method: 'POST', headers: { authorization: 'Basic c2VjcmV0', 'content-type': 'application/json' }, body: '{"a":1}' }, { policy: rules });
    expect(answer.status).toBe(200);
    expect(first.requests[0]).toMatchObject({ method: 'POST', headers: { authorization: 'Basic c2VjcmV0' } });
    expect(other.requests[0]!.method).toBe('GET');
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
    expect(other.requests[0]!.headers['content-type']).toBeUndefined();
  });
});

describe('https', () => {
  let directory: string;
  let ca: Buffer;
  let secure: { url: string; port: number; requests: Recorded[] };
  let plain: Awaited<ReturnType<typeof secretServer>>;

  beforeAll(async () => {
    // A throw-away self-signed certificate for the name secure.example and 127.0.0.1, made for this run.
    directory = mkdtempSync(path.join(os.tmpdir(), 'outbound-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-keyout', path.join(directory, 'key.pem'), '-out', path.join(directory, 'cert.pem'),
      '-subj', '/CN=secure.example', '-addext', 'subjectAltName=DNS:secure.example,IP:127.0.0.1',
    ], { stdio: 'ignore' });
    ca = readFileSync(path.join(directory, 'cert.pem'));
    plain = await secretServer();
    const requests: Recorded[] = [];
    const server = createHttpsServer({ key: readFileSync(path.join(directory, 'key.pem')), cert: ca }, (request, response) => {
      requests.push({ method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers });
      if (request.url === '/downgrade') {
        response.writeHead(302, { location: `http://127.0.0.1:${plain.port}/` });
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('hello over tls');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const port = (server.address() as AddressInfo).port;
    secure = { url: `https://127.0.0.1:${port}`, port, requests };
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('connects to the pinned address and still checks the certificate against the name', async () => {
    const resolve = tableResolver({ 'secure.example': [['127.0.0.1']], 'other.example': [['127.0.0.1']] });
    const rules: OutboundPolicy = { allow: parseAllowList(`127.0.0.1:${secure.port}`), resolve, ca };
    const answer = await outboundFetch(`https://secure.example:${secure.port}/`, {}, { policy: rules });
    expect(await answer.text()).toBe('hello over tls');
    // Same address, but the certificate does not name other.example: refused by TLS.
    await expect(outboundFetch(`https://other.example:${secure.port}/`, {}, { policy: rules })).rejects.toThrow(/altnames|Hostname\/IP does not match/);
  });

  it('never follows a redirect from https to http', async () => {
    // Both servers allowed: only the downgrade is at fault.
    const rules: OutboundPolicy = { allow: parseAllowList(`127.0.0.1:${secure.port}, 127.0.0.1:${plain.port}`), resolve: tableResolver({}), ca };
    await expect(outboundFetch(`${secure.url}/downgrade`, {}, { policy: rules })).rejects.toThrow('redirected from https to plain http');
    expect(plain.requests).toHaveLength(0);
  });
});

describe('limits', () => {
  it('refuses a body over the cap, with or without Content-Length, and a compressed one that grows past it', async () => {
    const big = 'x'.repeat(300_000);
    const server = await started((request, response) => {
      if (request.url === '/declared') response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) });
      else if (request.url === '/gzip') response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      else response.writeHead(200, { 'content-type': 'text/plain' }); // chunked
      response.end(request.url === '/gzip' ? gzipSync(big) : big);
    });
    const limits = { policy: policy(`127.0.0.1:${server.port}`), maxBodyBytes: 100_000 };
    await expect(outboundFetch(`${server.url}/declared`, {}, limits)).rejects.toBeInstanceOf(OutboundBodyTooLargeError);
    await expect(outboundFetch(`${server.url}/chunked`, {}, limits)).rejects.toThrow('larger than 100,000 bytes');
    // 300,000 bytes of "x" gzip to a few hundred: the cap counts what they decode to.
    expect(gzipSync(big).length).toBeLessThan(1000);
    await expect(outboundFetch(`${server.url}/gzip`, {}, limits)).rejects.toBeInstanceOf(OutboundBodyTooLargeError);
    // Under the cap the same answers are read whole (and decoded).
    expect(await (await outboundFetch(`${server.url}/gzip`, {}, { ...limits, maxBodyBytes: 400_000 })).text()).toBe(big);

    const stream = await openOutboundStream(`${server.url}/chunked`, {}, limits);
    const read = (async () => {
      for await (const _chunk of stream.body) void _chunk;
    })();
    await expect(read).rejects.toBeInstanceOf(OutboundBodyTooLargeError);
  });

  it('gives up on a server that does not answer in time, or stops sending the body', async () => {
    const server = await started((request, response) => {
      if (request.url === '/trickle') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('first part');
      }
      // Otherwise: never answers.
    });
    const limits = { policy: policy(`127.0.0.1:${server.port}`), timeoutMs: 300 };
    await expect(outboundFetch(`${server.url}/silent`, {}, limits)).rejects.toBeInstanceOf(OutboundTimeoutError);
    await expect(outboundFetch(`${server.url}/trickle`, {}, limits)).rejects.toThrow('No complete answer within 300 ms');
    await expect(openOutboundStream(`${server.url}/silent`, {}, limits)).rejects.toBeInstanceOf(OutboundTimeoutError);
  });

  it('a cancelled request ends with the caller reason, not as a timeout', async () => {
    const server = await started(() => undefined);
    const controller = new AbortController();
    const pending = outboundFetch(server.url, { signal: controller.signal }, { policy: policy(`127.0.0.1:${server.port}`) });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort(new Error('sync cancelled'));
    await expect(pending).rejects.toThrow('sync cancelled');
  });
});

describe('DNS pinning', () => {
  it('connects to the address it checked, whatever the name resolves to afterwards', async () => {
    // Two servers on one port: 127.0.0.1 (allowed) says "good", 127.0.0.2 (not allowed) holds the secret.
    const good = await started((_request, response) => response.end('good'));
    const internal = await started((_request, response) => response.end(SECRET), '127.0.0.2', good.port);
    const resolve = tableResolver({ 'rebind.example': [['127.0.0.1'], ['127.0.0.2']] });
    const rules: OutboundPolicy = { allow: parseAllowList(`127.0.0.1:${good.port}`), resolve };
    const answer = await outboundFetch(`http://rebind.example:${good.port}/`, {}, { policy: rules });
    expect(await answer.text()).toBe('good');
    // One question for the connection: the check and the connection used the same answer.
    expect(resolve.calls).toEqual(['rebind.example']);
    expect(internal.requests).toHaveLength(0);

    // Asked the other way round, the name is refused and nothing connects to the secret's server.
    const reversed = { allow: parseAllowList(`127.0.0.1:${good.port}`), resolve: tableResolver({ 'rebind.example': [['127.0.0.2'], ['127.0.0.1']] }) };
    await expect(outboundFetch(`http://rebind.example:${good.port}/`, {}, { policy: reversed })).rejects.toThrow('rebind.example (127.0.0.2) is a loopback address');
    expect(internal.requests).toHaveLength(0);
  });
});
