import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { loadConfig } from '../../config.ts';
import { clearRobotsCache, fetchPage, fetcherUserAgent, MAX_PAGE_BYTES, PageFetchError } from './page-fetcher.ts';
import { DomainPacer } from './politeness.ts';
import { startTestServer, type TestServer } from './test-servers.ts';

// Real loopback servers; the policy allows only the site's own port, as a public site would be, so the
// canary (another loopback port) and 169.254.169.254 are refused like any private address.

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PageFetchError) return error.reason;
    throw error;
  }
  return 'fetched';
}

let canary: TestServer;
let site: TestServer;
let policy: OutboundPolicy;
const robotsStatus = { value: 200 };

beforeAll(async () => {
  canary = await startTestServer((_request, response) => response.end('<html>canary</html>'));
  site = await startTestServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') {
      if (robotsStatus.value !== 200) {
        response.statusCode = robotsStatus.value;
        response.end('no');
        return;
      }
      response.setHeader('content-type', 'text/plain');
      response.end('User-agent: *\nAllow: /\n\nUser-agent: StorePulseBot\nDisallow: /private\n');
      return;
    }
    if (path === '/page' || path === '/private') {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<html><head><title>Price</title></head><body>19,99 €</body></html>');
    } else if (path === '/latin1') {
      response.setHeader('content-type', 'text/html');
      response.end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body>'), Buffer.from([0xe9]), Buffer.from('</body></html>')]));
    } else if (path === '/moved') {
      response.writeHead(302, { location: '/page' });
      response.end();
    } else if (path === '/to-canary') {
      response.writeHead(302, { location: `${canary.origin}/secret` });
      response.end();
    } else if (path === '/to-metadata') {
      response.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    } else if (path === '/json') {
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    } else if (path === '/missing') {
      response.statusCode = 404;
      response.setHeader('content-type', 'text/html');
      response.end('<html>not found</html>');
    } else if (path === '/declared-huge') {
      // Announces more than the cap: refused before the body is read.
      response.writeHead(200, { 'content-type': 'text/html', 'content-length': String(MAX_PAGE_BYTES + 1) });
      response.write('<html>');
    } else if (path === '/chunked-huge') {
      // No Content-Length at all (chunked): only counting the bytes can stop it.
      response.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let sent = 0;
      const push = (): void => {
        while (sent <= MAX_PAGE_BYTES + chunk.length && !response.destroyed) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', push);
        }
        response.end();
      };
      push();
    } else if (path === '/silent') {
      // Never answers.
    } else {
      response.statusCode = 500;
      response.end();
    }
  });
  policy = { allow: [{ host: '127.0.0.1', port: site.port }] };
});

afterAll(async () => {
  await site.close();
  await canary.close();
});

beforeEach(() => {
  clearRobotsCache();
  robotsStatus.value = 200;
});

describe('fetchPage', () => {
  it('names itself with the robots token and, when PUBLIC_URL is set, where site owners find us', () => {
    expect(fetcherUserAgent('https://app.example.com')).toBe('StorePulseBot/1.0 (+https://app.example.com)');
    expect(fetcherUserAgent(undefined)).toBe('StorePulseBot/1.0');
  });

  it('fetches an HTML page with our user agent, reports the final URL after redirects and the charset', async () => {
    const page = await fetchPage(`${site.origin}/moved`, { policy });
    expect(page.url).toBe(`${site.origin}/page`);
    expect(page.html).toContain('19,99 €');
    expect(page.charset).toBe('utf-8');
    expect(site.requests.at(-1)).toEqual({ url: '/page', userAgent: fetcherUserAgent(loadConfig().publicUrl) });
    const latin = await fetchPage(`${site.origin}/latin1`, { policy });
    expect(latin.charset).toBe('windows-1252');
    expect(latin.html).toContain('<body>é</body>');
  });

  it('refuses what is not HTML and HTTP errors', async () => {
    expect(await reasonOf(fetchPage(`${site.origin}/json`, { policy }))).toBe('content_type');
    expect(await reasonOf(fetchPage(`${site.origin}/missing`, { policy }))).toBe('http_status');
  });

  it('caps the body at 5 MB: by the announced length, and by counting when there is none', async () => {
    expect(await reasonOf(fetchPage(`${site.origin}/declared-huge`, { policy }))).toBe('too_large');
    expect(await reasonOf(fetchPage(`${site.origin}/chunked-huge`, { policy }))).toBe('too_large');
  });

  it('gives up after the timeout', async () => {
    expect(await reasonOf(fetchPage(`${site.origin}/silent`, { policy, timeoutMs: 300 }))).toBe('timeout');
  });

  it('refuses redirects to 127.0.0.1 and 169.254.169.254, and never reaches the canary', async () => {
    expect(await reasonOf(fetchPage(`${site.origin}/to-canary`, { policy }))).toBe('unsafe_address');
    expect(await reasonOf(fetchPage(`${site.origin}/to-metadata`, { policy }))).toBe('unsafe_address');
    expect(await reasonOf(fetchPage(`${canary.origin}/direct`, { policy }))).toBe('unsafe_address');
    expect(canary.connections).toBe(0);
  });
});

describe('robots.txt', () => {
  it("honours our user agent's rules when respectRobots is set", async () => {
    expect(await reasonOf(fetchPage(`${site.origin}/private`, { policy, respectRobots: true }))).toBe('robots');
    expect(await reasonOf(fetchPage(`${site.origin}/page`, { policy, respectRobots: true }))).toBe('fetched');
    // Without it (a user's one-off review), robots.txt is not consulted.
    expect(await reasonOf(fetchPage(`${site.origin}/private`, { policy }))).toBe('fetched');
    // Cached per origin: robots.txt was read once for the two checks.
    expect(site.requests.filter((request) => request.url === '/robots.txt')).toHaveLength(1);
  });

  it('treats a 5xx robots.txt as disallow-all and a 4xx one as allow-all (RFC 9309 2.3.1.3-4)', async () => {
    robotsStatus.value = 503;
    expect(await reasonOf(fetchPage(`${site.origin}/page`, { policy, respectRobots: true }))).toBe('robots');
    clearRobotsCache();
    robotsStatus.value = 404;
    expect(await reasonOf(fetchPage(`${site.origin}/private`, { policy, respectRobots: true }))).toBe('fetched');
  });

  it("reads robots.txt through the same address checks: a site on a refused address is not asked for it", async () => {
    // The canary's port is not in the policy: its robots.txt must be refused like any page of it.
    expect(await reasonOf(fetchPage(`${canary.origin}/page`, { policy, respectRobots: true }))).toBe('unsafe_address');
    expect(canary.connections).toBe(0);
  });
});

describe('DomainPacer', () => {
  it('spaces requests to one domain by the interval, other domains independently', () => {
    let now = 1_000_000;
    const pacer = new DomainPacer(10_000, () => now);
    expect(pacer.reserve('https://shop.example/a')).toBe(0);
    expect(pacer.reserve('https://shop.example/b')).toBe(10_000);
    expect(pacer.reserve('https://SHOP.example/c')).toBe(20_000);
    expect(pacer.reserve('https://other.example/a')).toBe(0);
    now += 25_000;
    expect(pacer.reserve('https://shop.example/d')).toBe(5_000);
  });
});
