import type { z } from 'zod';
import { DEFAULT_MAX_BODY_BYTES, OutboundBodyTooLargeError, outboundFetch, OutboundRefusedError, type OutboundInit } from '../outbound/outbound-http.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from './connector.ts';

// The one HTTP client of every connector: timeouts, retries with exponential backoff and jitter,
// Retry-After, cancellation, and each platform's own way of saying "slow down" (a `classify` hook:
// Shopify's THROTTLED GraphQL answer with status 200, Meta's error codes 4/17/613, Google's
// RESOURCE_EXHAUSTED with a retryDelay...). Requests go out through the outbound module
// (src/server/outbound/outbound-http.ts): only public addresses, checked on every redirect, with a
// time limit and a cap on the body. A refusal there is not retried.

/** How PlatformHttp sends one request (outboundFetch; tests may hand in their own). */
export type PlatformFetch = (input: URL, init: OutboundInit & { signal: AbortSignal }) => Promise<Response>;

export interface PlatformResponse {
  status: number;
  headers: Headers;
  /** The body as sent (ZIP reports and other binary downloads). */
  bytes: Buffer;
  /** The body decoded as UTF-8. */
  text: string;
  /** The body as JSON; throws MalformedResponseError when it is not JSON. */
  json(): unknown;
}

export type Verdict =
  | { kind: 'ok' }
  /** Try again after `afterMs` (or the backoff's own delay when absent). */
  | { kind: 'retry'; reason: string; afterMs?: number }
  | { kind: 'auth'; reason: string }
  | { kind: 'fail'; reason: string };

export interface PlatformHttpOptions {
  platform: string;
  /** The platform's reading of an answer; `undefined` falls back to the status-based default. */
  classify?: (response: PlatformResponse) => Verdict | undefined;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  timeoutMs?: number;
  /** The largest answer read (bytes); a larger one fails the request. */
  maxBodyBytes?: number;
  /** Cancels waiting and the request in flight (a user cancelling a sync, shutdown). */
  signal?: AbortSignal;
  fetch?: PlatformFetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock the sleeps above move (default Date.now). */
  now?: () => number;
  /** Told before every wait, e.g. to show "rate limited, retrying in 30 s" in the sync's progress. */
  onRetry?: (event: { attempt: number; waitMs: number; reason: string; url: string }) => void;
}

export interface PlatformRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Added to the URL's query string (undefined values are skipped). */
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (sets Content-Type) or a ready string/URLSearchParams. */
  json?: unknown;
  body?: string | URLSearchParams;
}

export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After as seconds ("30") or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | null {
  const value = headers.get('retry-after');
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The status-based reading every platform shares. */
export function defaultVerdict(response: PlatformResponse): Verdict {
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: 'ok' };
  if (status === 401) return { kind: 'auth', reason: 'The platform refused the credentials (401).' };
  if (status === 403) return { kind: 'auth', reason: 'The platform denied access (403): the app may have been uninstalled or lost a permission.' };
  if (status === 429) return { kind: 'retry', reason: 'rate limited (429)', afterMs: retryAfterMs(response.headers) ?? undefined };
  if (status === 408 || status >= 500) return { kind: 'retry', reason: `server error (${status})`, afterMs: retryAfterMs(response.headers) ?? undefined };
  return { kind: 'fail', reason: `The platform answered ${errorSummary(response)}` };
}

/** A code as platforms document them ("woocommerce_rest_cannot_view", "invalid_grant", "RESOURCE_EXHAUSTED", 190). */
function codeLike(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1_000_000) return String(value);
  // Letters, underscores, dots and hyphens only: a token, key or other secret almost always has digits.
  return typeof value === 'string' && /^[A-Za-z][A-Za-z_.-]{1,63}$/.test(value) ? value : null;
}

/**
 * An answer in a few words for messages users read: "HTTP 404" and, when the body is JSON with a
 * code-like `code`, `error`, `error_code` or `errors[0].code`, that code ("HTTP 404
 * (rest_no_route)"). The body's text itself is never repeated: it may come from wherever the address
 * led, and may hold anything.
 */
export function errorSummary(response: Pick<PlatformResponse, 'status' | 'text'>): string {
  let code: string | null = null;
  try {
    const body = JSON.parse(response.text) as Record<string, unknown> | null;
    if (body && typeof body === 'object') {
      const first = Array.isArray(body.errors) ? (body.errors[0] as Record<string, unknown> | undefined) : undefined;
      const nested = body.error && typeof body.error === 'object' ? (body.error as Record<string, unknown>) : undefined;
      code = [body.code, body.error, body.error_code, nested?.code, nested?.status, first?.code].map(codeLike).find((value) => value !== null) ?? null;
    }
  } catch {
    code = null;
  }
  return `HTTP ${response.status}${code ? ` (${code})` : ''}`;
}

/** An answer as connectors read it (also how tests hand a classifier a made-up answer). */
export function platformResponse(platform: string, status: number, headers: Headers, bytes: Buffer): PlatformResponse {
  const text = bytes.toString('utf8');
  return {
    status,
    headers,
    bytes,
    text,
    json() {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // Only its length and type: the text may come from wherever the address led.
        const type = /^[\w.+-]+\/[\w.+-]+/.exec(headers.get('content-type') ?? '')?.[0] ?? 'no content type';
        throw new MalformedResponseError(platform, `not JSON (status ${status}, ${type}, ${bytes.length} bytes)`);
      }
    },
  };
}

export class PlatformHttp {
  readonly platform: string;
  private readonly options: Required<Omit<PlatformHttpOptions, 'classify' | 'signal' | 'onRetry' | 'fetch'>> & Pick<PlatformHttpOptions, 'classify' | 'signal' | 'onRetry' | 'fetch'>;

  constructor(options: PlatformHttpOptions) {
    this.platform = options.platform;
    this.options = {
      maxAttempts: 6,
      baseDelayMs: 500,
      maxDelayMs: 120_000,
      timeoutMs: 60_000,
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      sleep: sleepFor,
      now: Date.now,
      ...options,
    };
  }

  /**
   * Waits `ms` with this client's sleep and cancellation (a connector pacing itself before a request,
   * e.g. Shopify's cost bucket, waits the way a retry would).
   */
  pause(ms: number): Promise<void> {
    return this.options.sleep(ms, this.options.signal);
  }

  /** The instant now, as this client's clock says (tests: a fake clock moved by the recorded sleeps). */
  now(): number {
    return this.options.now();
  }

  /** A copy with another classifier or signal (one client per sync, sharing the settings). */
  with(overrides: Partial<PlatformHttpOptions>): PlatformHttp {
    return new PlatformHttp({ ...this.options, ...overrides });
  }

  private backoffMs(attempt: number): number {
    const exponential = this.options.baseDelayMs * 2 ** (attempt - 1);
    return Math.min(this.options.maxDelayMs, exponential / 2 + Math.random() * (exponential / 2));
  }

  /** Sends the request, retrying what the platform says is temporary; returns the first accepted answer. */
  async request(url: string, request: PlatformRequest = {}): Promise<PlatformResponse> {
    const target = new URL(url);
    for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) target.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    let body: string | URLSearchParams | undefined = request.body;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] ??= 'application/json';
    }

    for (let attempt = 1; ; attempt++) {
      this.options.signal?.throwIfAborted();
      let verdict: Verdict;
      let response: PlatformResponse | null = null;
      try {
        const signal = AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), ...(this.options.signal ? [this.options.signal] : [])]);
        const send: PlatformFetch = this.options.fetch ?? ((input, init) => outboundFetch(input, init, { timeoutMs: this.options.timeoutMs, maxBodyBytes: this.options.maxBodyBytes }));
        const answer = await send(target, { method: request.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, signal });
        response = platformResponse(this.platform, answer.status, answer.headers, Buffer.from(await answer.arrayBuffer()));
        verdict = this.options.classify?.(response) ?? defaultVerdict(response);
      } catch (error) {
        if (this.options.signal?.aborted) throw this.options.signal.reason;
        if (error instanceof MalformedResponseError) throw error;
        // Where the request was going, or what came back, will not change by asking again.
        if (error instanceof OutboundRefusedError || error instanceof OutboundBodyTooLargeError) {
          const failure = new ConnectorRequestError(this.platform, 0, error.message);
          failure.cause = error;
          throw failure;
        }
        verdict = { kind: 'retry', reason: `network error: ${(error as Error).message}` };
      }

      if (verdict.kind === 'ok') return response!;
      if (verdict.kind === 'auth') throw new ConnectorAuthError(this.platform, verdict.reason);
      if (verdict.kind === 'fail' || attempt >= this.options.maxAttempts) {
        throw new ConnectorRequestError(this.platform, response?.status ?? 0, verdict.kind === 'retry' ? `gave up after ${attempt} attempts: ${verdict.reason}` : verdict.reason);
      }
      const waitMs = Math.min(this.options.maxDelayMs, verdict.afterMs ?? this.backoffMs(attempt));
      this.options.onRetry?.({ attempt, waitMs, reason: verdict.reason, url: target.pathname });
      await this.options.sleep(waitMs, this.options.signal);
    }
  }

  /** request() and the body checked against the platform's documented shape. */
  async json<T>(url: string, schema: z.ZodType<T>, request: PlatformRequest = {}): Promise<{ data: T; response: PlatformResponse }> {
    const response = await this.request(url, request);
    const parsed = schema.safeParse(response.json());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MalformedResponseError(this.platform, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'unexpected shape'}`);
    }
    return { data: parsed.data, response };
  }
}
