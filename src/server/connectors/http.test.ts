import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FakeServer } from '../../../test/fakes/fake-server.ts';
import { connectToLoopbackOnly } from '../../../test/loopback-only.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from './connector.ts';
import { OutboundRefusedError } from '../outbound/outbound-http.ts';
import { errorSummary, PlatformHttp, retryAfterMs, sleepFor } from './http.ts';

// Addresses named below are refused before connecting; should that ever break, nothing leaves loopback.
connectToLoopbackOnly();
const fake = new FakeServer();
const LEAK = 'sk9-leaked-3141';
let calls = 0;

beforeAll(async () => {
  fake.route('GET', '/items', (request) => {
    calls++;
    const fault = fake.takeFault(request);
    if (fault === 'rate_limit') return { status: 429, headers: { 'retry-after': '7' }, body: { error: 'slow down' } };
    if (fault === 'server_error') return { status: 503, body: { error: 'unavailable' } };
    if (fault === 'malformed') return { status: 200, body: '<html>maintenance</html>' };
    if (fault === 'expired_token') return { status: 401, body: { error: 'token expired' } };
    return { body: { items: [1, 2, 3], token: request.headers['x-token'] ?? null } };
  });
  fake.route('GET', '/graphql-throttled', () => ({ body: { errors: [{ extensions: { code: 'THROTTLED' } }] } }));
  // An address that led somewhere it should not: its error bodies carry what must never reach a user.
  fake.route('GET', '/leaky', (request) => {
    calls++;
    if (request.query.get('as') === 'text') return { status: 400, body: `db_password=${LEAK}` };
    if (request.query.get('as') === 'html') return { status: 200, body: `<html>${LEAK}</html>` };
    return { status: 418, body: { code: 'teapot_refused', message: `internal token ${LEAK}`, error: LEAK } };
  });
  fake.route('GET', '/elsewhere', () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }));
  await fake.start();
});
afterAll(() => fake.close());

const itemsSchema = z.object({ items: z.array(z.number()), token: z.string().nullable() });

function client(waits: number[], extra: ConstructorParameters<typeof PlatformHttp>[0] extends infer O ? Partial<O> : never = {}) {
  return new PlatformHttp({ platform: 'testplatform', sleep: async (ms) => void waits.push(ms), maxAttempts: 4, ...extra });
}

describe('PlatformHttp', () => {
  it('waits as long as Retry-After says after a 429, then returns the answer', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit');
    const { data } = await client(waits).json(`${fake.url}/items`, itemsSchema, { headers: { 'x-token': 'abc' } });
    expect(data).toEqual({ items: [1, 2, 3], token: 'abc' });
    expect(waits).toEqual([7000]);
  });

  it('retries server errors with growing backoff and gives up after the last attempt', async () => {
    const waits: number[] = [];
    fake.injectFault('server_error', { times: 2 });
    await expect(client(waits).json(`${fake.url}/items`, itemsSchema)).resolves.toBeTruthy();
    expect(waits).toHaveLength(2);
    expect(waits[1]!).toBeGreaterThanOrEqual(500);

    const before = calls;
    fake.injectFault('server_error', { times: 10 });
    await expect(client([]).request(`${fake.url}/items`)).rejects.toThrow(ConnectorRequestError);
    expect(calls - before).toBe(4);
    fake.clearFaults();
  });

  it('turns a refused credential into ConnectorAuthError without retrying', async () => {
    const before = calls;
    fake.injectFault('expired_token');
    const error = await client([]).request(`${fake.url}/items`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect(calls - before).toBe(1);
  });

  it('reports a page that is not the documented format', async () => {
    fake.injectFault('malformed');
    await expect(client([]).json(`${fake.url}/items`, itemsSchema)).rejects.toThrow(MalformedResponseError);
    await expect(client([]).json(`${fake.url}/items`, z.object({ items: z.array(z.string()) }))).rejects.toThrow(/items\.0/);
  });

  it("lets a platform read its own throttling signal (HTTP 200 with THROTTLED)", async () => {
    const waits: number[] = [];
    const http = client(waits, {
      maxAttempts: 2,
      classify: (response) => (response.text.includes('THROTTLED') ? { kind: 'retry', reason: 'throttled', afterMs: 1500 } : undefined),
    });
    await expect(http.request(`${fake.url}/graphql-throttled`)).rejects.toThrow(/gave up after 2 attempts: throttled/);
    expect(waits).toEqual([1500]);
  });

  it('stops waiting when the sync is cancelled', async () => {
    const controller = new AbortController();
    fake.injectFault('rate_limit');
    const sleeps: string[] = [];
    const http = new PlatformHttp({
      platform: 'testplatform',
      signal: controller.signal,
      // The real sleep, watched: did the 7 s wait end by itself or was it cut short?
      sleep: (ms, signal) => sleepFor(ms, signal).then(
        () => void sleeps.push(`slept ${ms} ms`),
        (reason: unknown) => {
          sleeps.push(`interrupted the ${ms} ms wait`);
          throw reason;
        },
      ),
      // The sync is cancelled once the client has started the wait Retry-After asks for (after this
      // call, in the same turn: the wait's promise is already listening for the abort).
      onRetry: () => queueMicrotask(() => controller.abort(new Error('sync cancelled'))),
    });
    await expect(http.request(`${fake.url}/items`)).rejects.toThrow('sync cancelled');
    expect(sleeps).toEqual(['interrupted the 7000 ms wait']);
    fake.clearFaults();
  });

  it("never repeats an error answer's text: its status and documented code only", async () => {
    const coded = (await client([]).request(`${fake.url}/leaky`).catch((caught: unknown) => caught)) as ConnectorRequestError;
    expect(coded).toBeInstanceOf(ConnectorRequestError);
    expect(coded.detail).toBe('The platform answered HTTP 418 (teapot_refused)');
    const text = (await client([]).request(`${fake.url}/leaky?as=text`).catch((caught: unknown) => caught)) as ConnectorRequestError;
    expect(text.detail).toBe('The platform answered HTTP 400');
    const html = (await client([]).json(`${fake.url}/leaky?as=html`, itemsSchema).catch((caught: unknown) => caught)) as MalformedResponseError;
    expect(html).toBeInstanceOf(MalformedResponseError);
    for (const error of [coded, text, html]) expect(error.message).not.toContain(LEAK);
    // A code with digits may be a token: it is left out.
    expect(errorSummary({ status: 401, text: JSON.stringify({ code: 'AKIA1234EXAMPLE' }) })).toBe('HTTP 401');
    expect(errorSummary({ status: 400, text: JSON.stringify({ error: { code: 190, message: 'x' } }) })).toBe('HTTP 400 (190)');
  });

  it('a refused address fails at once, without retrying, and the refusal stays readable', async () => {
    const error = (await client([]).request(`${fake.url}/elsewhere`).catch((caught: unknown) => caught)) as ConnectorRequestError;
    expect(error).toBeInstanceOf(ConnectorRequestError);
    expect(error.cause).toBeInstanceOf(OutboundRefusedError);
    expect(error.detail).toBe('169.254.169.254 is a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer); StorePulse only connects to public internet addresses.');
    // One request to the redirecting address: a refusal is not retried (maxAttempts is 4).
    expect(fake.requests.filter((request) => request.path === '/elsewhere')).toHaveLength(1);
    await expect(client([]).request('http://10.1.2.3/items')).rejects.toThrow('10.1.2.3 is a private network address');
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2.5' }))).toBe(2500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sat, 21 Nov 2026 07:00:10 GMT' }), Date.parse('2026-11-21T07:00:00Z'))).toBe(10_000);
    expect(retryAfterMs(new Headers())).toBeNull();
  });
});
