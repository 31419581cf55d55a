import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { openGuardedPage, type GuardedPage } from './browser-route.ts';
import { startTestServer, type TestServer } from './test-servers.ts';

// The SSRF test with the real (Debian) Chromium: a page served on loopback (allowed for its port only,
// as a public site would be) embeds a canary server on another loopback port and 169.254.169.254 in
// every way a page can: an image, an iframe, fetch(), a redirect chain, a preconnect, a WebSocket.
// The canary must receive nothing, and the refused list must name each attempt.

let canary: TestServer;
let site: TestServer;
let guarded: GuardedPage;

beforeAll(async () => {
  canary = await startTestServer((_request, response) => response.end('canary'));
  site = await startTestServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/') {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><html><head><title>review me</title>
<link rel="preconnect" href="http://127.0.0.1:${canary.port}">
</head><body>
<img src="http://127.0.0.1:${canary.port}/img.png">
<iframe src="http://127.0.0.1:${canary.port}/frame"></iframe>
<iframe src="/hop1"></iframe>
<script>
  // Each attempt is bounded, so that a guard that let one through makes the assertions fail instead of a hang.
  const bounded = (attempt) => Promise.race([attempt, new Promise((resolve) => setTimeout(resolve, 30000))]);
  Promise.allSettled([
    fetch('http://169.254.169.254/latest/meta-data/'),
    fetch('http://127.0.0.1:${canary.port}/fetch'),
    new Promise((resolve) => { const ws = new WebSocket('ws://127.0.0.1:${canary.port}/ws'); ws.onclose = resolve; ws.onerror = resolve; }),
  ].map(bounded)).then(() => { document.body.dataset.done = 'yes'; });
</script></body></html>`);
    } else if (path === '/hop1') {
      response.writeHead(302, { location: '/hop2' });
      response.end();
    } else if (path === '/hop2') {
      response.writeHead(302, { location: `http://127.0.0.1:${canary.port}/redirected` });
      response.end();
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  const policy: OutboundPolicy = { allow: [{ host: '127.0.0.1', port: site.port }] };
  guarded = await openGuardedPage({ policy });
});

afterAll(async () => {
  await guarded?.close();
  await site?.close();
  await canary?.close();
});

it("refuses every request a reviewed page makes to loopback or metadata addresses; the canary receives nothing", async () => {
  await guarded.page.goto(`${site.origin}/`);
  // No time limit of its own (Vitest's hang guard is one): the page bounds each attempt.
  await guarded.page.locator('body[data-done="yes"]').waitFor({ timeout: 0 });
  // goto waited for the load event (the images and iframes), data-done for the script's requests: every
  // refusal is recorded by now, so a guard that let a request through fails here rather than being waited for.
  expect(guarded.refused.map((entry) => entry.url).sort()).toEqual(
    [
      `http://127.0.0.1:${canary.port}/img.png`,
      `http://127.0.0.1:${canary.port}/frame`,
      `http://127.0.0.1:${canary.port}/fetch`,
      `http://${site.origin.slice(7)}/hop1`,
      'http://169.254.169.254/latest/meta-data/',
      `ws://127.0.0.1:${canary.port}/ws`,
    ].sort(),
  );
  const reasons = Object.fromEntries(guarded.refused.map((entry) => [entry.url, entry.reason]));
  expect(reasons['http://169.254.169.254/latest/meta-data/']).toBe('unsafe_address');
  expect(reasons[`http://127.0.0.1:${canary.port}/img.png`]).toBe('unsafe_address');
  // The redirect chain is refused at its last hop (the module follows it and checks each one).
  expect(guarded.refused.find((entry) => entry.url.endsWith('/hop1'))?.message).toContain(`127.0.0.1`);
  expect(await guarded.page.title()).toBe('review me');
  expect(canary.requests).toEqual([]);
  expect(canary.connections).toBe(0);
});
