import type { QueryFunction } from '@tanstack/react-query';

/**
 * The REST fetcher of spec sections 7 and 8, for calls made outside tRPC (`/api/...` paths):
 * same origin, cookies included, JSON asked for, a JSON content type only when there is a body.
 */

export const API_REQUEST_URL_REQUIRED = 'API request URL is required';
export const API_FETCH_URL_REQUIRED = 'API fetch URL is required';

/** localhost (and *.localhost), 127.0.0.0/8 and ::1: plain http stays plain there. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

function pageOrigin(): string | undefined {
  return typeof location === 'undefined' ? undefined : location.origin;
}

/**
 * A path resolves against the page's own origin; an `http:` address is upgraded to `https:` unless
 * its host is a loopback address (a dev server on localhost has no certificate).
 */
export function resolveApiUrl(url: string, origin: string | undefined = pageOrigin()): string {
  const resolved = new URL(url, origin);
  if (resolved.protocol === 'http:' && !isLoopbackHost(resolved.hostname)) resolved.protocol = 'https:';
  return resolved.toString();
}

/** The error for a non-success answer: the JSON body's string `message`, else "status: body or status text". */
async function errorFromResponse(response: Response): Promise<Error> {
  const text = await response.text().catch(() => '');
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
      return new Error((body as { message: string }).message);
    }
  } catch {
    // Not JSON: fall through to the status line.
  }
  return new Error(`${response.status}: ${text || response.statusText}`);
}

async function throwIfNotOk(response: Response): Promise<void> {
  if (!response.ok) throw await errorFromResponse(response);
}

/** Sends one request and returns the successful Response; a non-success status throws (texts above). */
export async function apiRequest(method: string, url: string, data?: unknown): Promise<Response> {
  if (!url) throw new Error(API_REQUEST_URL_REQUIRED);
  const hasBody = data !== undefined;
  const response = await fetch(resolveApiUrl(url), {
    method,
    credentials: 'include',
    headers: hasBody ? { Accept: 'application/json', 'Content-Type': 'application/json' } : { Accept: 'application/json' },
    body: hasBody ? JSON.stringify(data) : undefined,
  });
  await throwIfNotOk(response);
  return response;
}

async function parseJson(response: Response): Promise<unknown> {
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export type UnauthorizedBehavior = 'throw' | 'returnNull';

/**
 * The query function that GETs the first element of the query key as a path and returns the parsed
 * JSON. With `on401: 'returnNull'` a 401 answers null (for "who is signed in" lookups).
 */
export function getQueryFn<T>({ on401 }: { on401: UnauthorizedBehavior }): QueryFunction<T> {
  return async ({ queryKey }) => {
    const [url] = queryKey;
    if (typeof url !== 'string' || !url) throw new Error(API_FETCH_URL_REQUIRED);
    const response = await fetch(resolveApiUrl(url), {
      method: 'GET',
      credentials: 'include',
      headers: { Accept: 'application/json' },
    });
    if (on401 === 'returnNull' && response.status === 401) return null as T;
    await throwIfNotOk(response);
    return (await parseJson(response)) as T;
  };
}

/** The default query function of the query client. */
export const defaultQueryFn: QueryFunction<unknown> = getQueryFn({ on401: 'throw' });
