import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, grantTestPlan, uniqueUser } from '../../../test/harness.ts';
import { API_FETCH_URL_REQUIRED, API_REQUEST_URL_REQUIRED, apiRequest, getQueryFn, isLoopbackHost, resolveApiUrl } from './api.ts';
import { createQueryClient } from './query-client.ts';

/**
 * The REST fetcher against the real server (buildApp listening on a loopback port). Node's fetch
 * keeps no cookies, so a small jar plays the browser's part; every request the fetcher makes is
 * recorded to check its headers and options.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let base: string;

const realFetch = globalThis.fetch;
const jar = new Map<string, string>();
const sent: { url: string; init: RequestInit }[] = [];

function browserLikeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = String(input);
  sent.push({ url, init });
  const headers = new Headers(init.headers);
  if (init.credentials === 'include' && jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
  return realFetch(url, { ...init, headers }).then((response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!.trim(), value.join('='));
    }
    return response;
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  orm = database.orm;
  app = await createTestApp(orm);
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  globalThis.fetch = browserLikeFetch as typeof fetch;
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await app.close();
  await database.close();
});
afterEach(() => {
  sent.length = 0;
  jar.clear();
});

function headersOf(index: number): Record<string, string> {
  return Object.fromEntries(new Headers(sent[index]!.init.headers).entries());
}

describe('apiRequest', () => {
  it('refuses a missing URL with "API request URL is required"', async () => {
    await expect(apiRequest('GET', '')).rejects.toThrow(API_REQUEST_URL_REQUIRED);
    expect(API_REQUEST_URL_REQUIRED).toBe('API request URL is required');
    expect(sent).toHaveLength(0);
  });

  it('GETs with cookies and Accept: application/json, and no content type without a body', async () => {
    const response = await apiRequest('GET', `${base}/api/subscription/plans`);
    expect(response.status).toBe(200);
    const plans = (await response.json()) as { name: string }[];
    expect(plans.map((plan) => plan.name)).toEqual(['Basic', 'Professional', 'Business', 'Enterprise']);
    expect(sent[0]!.init.credentials).toBe('include');
    expect(sent[0]!.init.method).toBe('GET');
    expect(sent[0]!.init.body).toBeUndefined();
    expect(headersOf(0)).toEqual({ accept: 'application/json' });
  });

  it('sends a body as JSON with its content type, and the session cookie comes back on later calls', async () => {
    const credentials = uniqueUser('fetcher');
    const registered = await apiRequest('POST', `${base}/api/register`, credentials);
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ username: credentials.username, isAdmin: false });
    expect(headersOf(0)).toEqual({ accept: 'application/json', 'content-type': 'application/json' });
    expect(JSON.parse(String(sent[0]!.init.body))).toEqual(credentials);

    const me = await apiRequest('GET', `${base}/api/user`);
    expect(await me.json()).toMatchObject({ username: credentials.username });
  });

  it("turns an error answer into an Error carrying the JSON body's message", async () => {
    await expect(apiRequest('GET', `${base}/api/user`)).rejects.toThrow(/^You must be signed in to do that$/);

    await apiRequest('POST', `${base}/api/register`, uniqueUser('validation'));
    await expect(apiRequest('POST', `${base}/api/stores`, { name: '   ' })).rejects.toThrow(/^Store name is required$/);
  });

  it('answers 403 with the dashboard limit text once no dashboard remains', async () => {
    const credentials = uniqueUser('limit');
    await apiRequest('POST', `${base}/api/register`, credentials);
    await grantTestPlan(orm, credentials.username, 'basic');
    expect((await apiRequest('POST', `${base}/api/stores`, { name: 'First' })).status).toBe(201);
    await expect(apiRequest('POST', `${base}/api/stores`, { name: 'Second' })).rejects.toThrow(
      "You've reached your dashboard limit. Please upgrade your plan to create more dashboards.",
    );
  });

  it('uses "status: body text" when the body is not JSON, and the status text when it is empty', async () => {
    // This test server has no client build: page paths answer 503 in plain text.
    await expect(apiRequest('GET', `${base}/some-page`)).rejects.toThrow(/^503: The client is not built\. Run "npm run build"\.$/);
    await expect(apiRequest('HEAD', `${base}/some-page`)).rejects.toThrow(/^503: Service Unavailable$/);
  });
});

describe('the default query function', () => {
  it('GETs the first element of the query key and returns the parsed JSON', async () => {
    const queryClient = createQueryClient();
    const plans = await queryClient.fetchQuery<{ tier: string }[]>({ queryKey: [`${base}/api/subscription/plans`, 'ignored'] });
    expect(plans.map((plan) => plan.tier)).toEqual(['basic', 'professional', 'business', 'enterprise']);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(`${base}/api/subscription/plans`);
    expect(sent[0]!.init.credentials).toBe('include');
    expect(headersOf(0)).toEqual({ accept: 'application/json' });
  });

  it('refuses a key without a URL with "API fetch URL is required"', async () => {
    const queryFn = getQueryFn({ on401: 'throw' });
    const context = (queryKey: unknown[]) => ({ queryKey, signal: new AbortController().signal, meta: undefined }) as never;
    await expect(queryFn(context(['']))).rejects.toThrow(API_FETCH_URL_REQUIRED);
    await expect(queryFn(context([]))).rejects.toThrow('API fetch URL is required');
    expect(sent).toHaveLength(0);
  });

  it('throws the server message on 401, or answers null when asked to', async () => {
    const context = { queryKey: [`${base}/api/user`], signal: new AbortController().signal, meta: undefined } as never;
    await expect(getQueryFn({ on401: 'throw' })(context)).rejects.toThrow('You must be signed in to do that');
    await expect(getQueryFn({ on401: 'returnNull' })(context)).resolves.toBeNull();
  });
});

describe('resolveApiUrl', () => {
  it('resolves a path against the page origin', () => {
    expect(resolveApiUrl('/api/user', 'https://app.example.com')).toBe('https://app.example.com/api/user');
  });

  it('upgrades http to https except on loopback hosts', () => {
    expect(resolveApiUrl('/api/user', 'http://app.example.com')).toBe('https://app.example.com/api/user');
    expect(resolveApiUrl('http://shop.example.com:8080/api/x')).toBe('https://shop.example.com:8080/api/x');
    expect(resolveApiUrl('/api/user', 'http://localhost:3000')).toBe('http://localhost:3000/api/user');
    expect(resolveApiUrl('http://127.0.0.1:4000/api/user')).toBe('http://127.0.0.1:4000/api/user');
    expect(resolveApiUrl('http://[::1]:4000/api/user')).toBe('http://[::1]:4000/api/user');
  });

  it('knows the loopback hosts', () => {
    expect(['localhost', 'app.localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::1'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '127.0.0.1.nip.io'].some(isLoopbackHost)).toBe(false);
  });
});
