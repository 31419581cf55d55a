import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { pipeline, Transform, type Readable } from 'node:stream';
import { brotliDecompressSync, createBrotliDecompress, createGunzip, createInflate, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { Agent, buildConnector, request as undiciRequest, type Dispatcher } from 'undici';
import { loadConfig } from '../config.ts';
import { formatAllowList, isAllowListed, isLocalhostName, nonPublicReason, normalizedAddress, parseAllowList, unbracket, type AllowEntry } from './address-policy.ts';

// The one way the server sends an HTTP request to an address a user or a platform can influence: a
// WooCommerce store address, a Shopify bulk file URL, every connector's API root, later the AI tools
// and the exchange-rate loader. Nothing else in src/server calls `fetch` with such a URL.
//
// - http and https only; no credentials in the URL.
// - The connection itself is checked: undici's Agent connects through our connector, which resolves
//   the host name once, refuses it when any address it resolves to is not a public internet address
//   (address-policy.ts) unless the allow-list names it, and connects to exactly the address it
//   checked (the TLS certificate is still verified against the host name). A second resolution that
//   would answer differently (DNS rebinding) is never made. IP literals are checked the same way.
// - Redirects are followed by hand, at most 5, never from https to http; every hop connects through
//   the same check. Authorization and Cookie headers are not sent to another origin.
// - A time limit on the whole exchange, and a cap on the body (decompressed).
//
// The allow-list (OUTBOUND_ALLOW_HOSTS, config.ts) exists for the platform fakes on 127.0.0.1 in tests,
// the demo and the benchmarks, and for an operator who deliberately reaches a shop on their own network.

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface OutboundPolicy {
  /** Addresses that are not public but may be reached anyway (the fakes in tests). */
  allow: readonly AllowEntry[];
  /** Resolves host names (default: the system resolver, as dns.lookup). Tests answer with their own. */
  resolve?: Resolver;
  /** Certificates to trust besides the system's (tests: a self-signed loopback server). */
  ca?: string | Buffer;
}

/** The request was not sent, or not followed further, because of where it was going. */
export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** The other side took longer than the time limit. */
export class OutboundTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundTimeoutError';
  }
}

/** The answer's body is larger than the cap. */
export class OutboundBodyTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundBodyTooLargeError';
  }
}

export const MAX_REDIRECTS = 5;
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Connector answers are JSON pages, ZIP reports and token answers: a few MB at most. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Streamed downloads (Shopify bulk files: hundreds of MB for 100,000 orders). */
export const DEFAULT_MAX_STREAM_BYTES = 16 * 1024 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;
const STREAM_IDLE_TIMEOUT_MS = 300_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Sent only to the origin they were meant for (as the Fetch standard drops Authorization on a cross-origin redirect). */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

// ---------------------------------------------------------------------------------------------
// The policy in force

let configured: OutboundPolicy | null = null;
let environment: string | undefined;
let defaultAgent: Dispatcher | null = null;
const agentsByPolicy = new WeakMap<OutboundPolicy, Dispatcher>();

/**
 * The app's allow-list (config.ts's OUTBOUND_ALLOW_HOSTS), set when the app starts (integrations.routes.ts);
 * `resolve` replaces the system resolver (tests).
 */
export function configureOutbound(settings: { allowHosts: readonly AllowEntry[]; env?: string; resolve?: Resolver }): void {
  configured = { allow: [...settings.allowHosts], ...(settings.resolve ? { resolve: settings.resolve } : {}) };
  environment = settings.env;
  // Pooled connections were checked against the old policy: none of them is reused under the new one.
  void defaultAgent?.close();
  defaultAgent = null;
}

/** The policy in force: as configured, or read from the environment on first use (jobs, scripts). */
export function outboundPolicy(): OutboundPolicy {
  if (!configured) {
    const config = loadConfig();
    configureOutbound({ allowHosts: config.outboundAllowHosts, env: config.env });
  }
  return configured!;
}

/**
 * Adds hosts ("127.0.0.1", "127.0.0.1:4611", as OUTBOUND_ALLOW_HOSTS writes them) to the allow-list:
 * the demo and the benchmarks reach the platform fakes they started on loopback ports. In production it
 * refuses what OUTBOUND_ALLOW_HOSTS does not already name: there an exception to the address rules is
 * only ever made explicitly.
 */
export function allowOutboundHosts(hosts: string): void {
  const policy = outboundPolicy();
  const added: AllowEntry[] = [];
  for (const entry of parseAllowList(hosts)) {
    const covered = policy.allow.some((allowed) => allowed.host === entry.host && (allowed.port === undefined || allowed.port === entry.port));
    if (covered) continue;
    if (environment === 'production') {
      throw new Error(`NODE_ENV=production: ${formatAllowList([entry])} is not a public address and OUTBOUND_ALLOW_HOSTS does not name it. Set OUTBOUND_ALLOW_HOSTS=${formatAllowList([entry])} to allow it explicitly.`);
    }
    added.push(entry);
  }
  if (added.length > 0) configureOutbound({ allowHosts: [...policy.allow, ...added], env: environment, resolve: policy.resolve });
}

function systemResolve(hostname: string): Promise<{ address: string; family: number }[]> {
  return dnsLookup(hostname, { all: true });
}

// ---------------------------------------------------------------------------------------------
// Addresses

/** "shop.example (10.0.0.5)" or "10.0.0.5": how a refusal names the target, never with its path or query. */
function describeTarget(hostname: string, address: string): string {
  const bare = unbracket(hostname);
  return normalizedAddress(bare) === address ? address : `${bare} (${address})`;
}

function refusal(hostname: string, address: string, reason: string): OutboundRefusedError {
  return new OutboundRefusedError(`${describeTarget(hostname, address)} is ${reason}; StorePulse only connects to public internet addresses.`);
}

/**
 * The addresses a connection to hostname:port may use (all of them allowed), resolved once.
 * Throws OutboundRefusedError when any address the name resolves to is not allowed.
 */
export async function allowedAddresses(hostname: string, port: number, policy: OutboundPolicy = outboundPolicy()): Promise<{ address: string; family: number }[]> {
  const bare = unbracket(hostname);
  const literal = normalizedAddress(bare);
  let answers: { address: string; family: number }[];
  if (literal !== null) answers = [{ address: literal, family: isIP(literal) }];
  else {
    answers = await (policy.resolve ?? systemResolve)(bare);
    if (answers.length === 0) throw new Error(`${bare} has no address`);
  }
  for (const answer of answers) {
    const reason = nonPublicReason(answer.address);
    if (reason !== null && !isAllowListed(policy.allow, { hostname: bare, address: answer.address, port })) throw refusal(bare, normalizedAddress(answer.address) ?? answer.address, reason);
  }
  return answers.map((answer) => ({ address: normalizedAddress(answer.address) ?? answer.address, family: answer.family }));
}

/**
 * What can be said about a URL without connecting: its scheme, and a host that is a non-public IP
 * address or a localhost name (and not allow-listed). Returns the refusal's text, or null.
 */
export function literalRefusal(url: URL, policy: OutboundPolicy = outboundPolicy()): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https addresses can be used (not ${url.protocol})`;
  const host = unbracket(url.hostname);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const literal = normalizedAddress(host);
  if (literal !== null) {
    const reason = nonPublicReason(literal);
    return reason !== null && !isAllowListed(policy.allow, { hostname: host, address: literal, port }) ? refusal(host, literal, reason).message : null;
  }
  if (isLocalhostName(host) && !isAllowListed(policy.allow, { hostname: host, address: host, port })) {
    return `${host} is this server itself; StorePulse only connects to public internet addresses.`;
  }
  return null;
}

/** Connection failures after which the next address of the name is worth trying. */
const TRY_NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL']);

/** undici's connector, with every connection's address resolved once, checked, and used as checked. */
function checkedConnector(policy: () => OutboundPolicy): buildConnector.connector {
  const current = policy();
  const base = buildConnector({ timeout: CONNECT_TIMEOUT_MS, ...(current.ca ? { ca: current.ca } : {}) });
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    allowedAddresses(options.hostname, port, policy()).then(
      (addresses) => {
        // TLS still checks the certificate against the name (servername), not against the address.
        const servername = options.servername || (isIP(options.hostname) ? undefined : options.hostname);
        const attempt = (index: number) => {
          base({ ...options, hostname: addresses[index]!.address, ...(servername ? { servername } : {}) }, (...result) => {
            const [error] = result;
            if (error && index + 1 < addresses.length && TRY_NEXT_ADDRESS.has((error as NodeJS.ErrnoException).code ?? '')) return attempt(index + 1);
            callback(...result);
          });
        };
        attempt(0);
      },
      (error: Error) => callback(error, null),
    );
  };
}

function agentFor(policy: OutboundPolicy | undefined): Dispatcher {
  if (policy) {
    let agent = agentsByPolicy.get(policy);
    if (!agent) {
      agent = new Agent({ connect: checkedConnector(() => policy) });
      agentsByPolicy.set(policy, agent);
    }
    return agent;
  }
  defaultAgent ??= new Agent({ connect: checkedConnector(outboundPolicy) });
  return defaultAgent;
}

// Content-Encoding (RFC 9110 section 8.4.1, https://www.rfc-editor.org/rfc/rfc9110#section-8.4.1):
// asked for as fetch does, undone here, the body cap counting the decoded bytes.
const DECODERS = {
  gzip: { whole: gunzipSync, stream: createGunzip },
  'x-gzip': { whole: gunzipSync, stream: createGunzip },
  deflate: { whole: inflateSync, stream: createInflate },
  br: { whole: brotliDecompressSync, stream: createBrotliDecompress },
} as const satisfies Record<string, { whole: (buffer: Buffer, options: ZlibOptions) => Buffer; stream: () => Transform }>;

function decoderOf(headers: Dispatcher.ResponseData['headers']): (typeof DECODERS)[keyof typeof DECODERS] | null {
  const encoding = headers['content-encoding'];
  if (typeof encoding !== 'string') return null;
  return DECODERS[encoding.trim().toLowerCase() as keyof typeof DECODERS] ?? null;
}

/** The answer's headers as the caller sees its body: decoded, so without Content-Encoding and the encoded length. */
function decodedHeaders(data: Dispatcher.ResponseData, decoded: boolean): Headers {
  const headers = toHeaders(data.headers);
  if (decoded) {
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  return headers;
}

// ---------------------------------------------------------------------------------------------
// Requests

export interface OutboundInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | Buffer | URLSearchParams | null;
  /** Cancels the request (a user cancelling a sync, shutdown). */
  signal?: AbortSignal | null;
}

export interface OutboundLimits {
  /** The whole exchange for outboundFetch; connecting and the answer's headers for openOutboundStream. */
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** At most MAX_REDIRECTS. */
  maxRedirects?: number;
  /** Another policy than the app's (tests). */
  policy?: OutboundPolicy;
}

function headerRecord(headers: OutboundInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (record[name] = value));
  else for (const [name, value] of Object.entries(headers ?? {})) record[name.toLowerCase()] = value;
  delete record.host;
  return record;
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function targetOf(input: string | URL, policy: OutboundPolicy | undefined): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundRefusedError('The address is not a valid URL.');
  }
  if (url.username || url.password) throw new OutboundRefusedError(`The address of ${url.host} carries a user name or password; send credentials in headers instead.`);
  const refused = literalRefusal(url, policy ?? outboundPolicy());
  if (refused) throw new OutboundRefusedError(refused.charAt(0).toUpperCase() + refused.slice(1));
  return url;
}

interface Sent {
  url: URL;
  data: Dispatcher.ResponseData;
}

/** Sends the request and follows redirects by the rules above; the final answer's body is unread. */
async function sendFollowingRedirects(input: string | URL, init: OutboundInit, limits: OutboundLimits, timeouts: { headersTimeout: number; bodyTimeout: number }, signal: AbortSignal | undefined): Promise<Sent> {
  const maxRedirects = Math.min(limits.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS);
  const dispatcher = agentFor(limits.policy);
  let url = targetOf(input, limits.policy);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = headerRecord(init.headers);
  let body: string | Buffer | undefined;
  if (init.body instanceof URLSearchParams) {
    body = init.body.toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
  } else if (typeof init.body === 'string') {
    body = init.body;
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
  } else body = init.body ?? undefined;
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  headers['user-agent'] ??= 'StorePulse';

  for (let redirects = 0; ; redirects++) {
    const data = await undiciRequest(url, { dispatcher, method: method as Dispatcher.HttpMethod, headers, body, signal, ...timeouts });
    const location = data.headers.location;
    if (!REDIRECT_STATUSES.has(data.statusCode) || typeof location !== 'string') return { url, data };
    await data.body.dump();
    if (redirects >= maxRedirects) throw new OutboundRefusedError(`${url.host} redirected more than ${maxRedirects} times; the redirects were not followed further.`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new OutboundRefusedError(`${url.host} redirected to an address that is not a valid URL.`);
    }
    if (url.protocol === 'https:' && next.protocol === 'http:') throw new OutboundRefusedError(`${url.host} redirected from https to plain http (${next.host}); the redirect was not followed.`);
    next = targetOf(next, limits.policy);
    if (next.origin !== url.origin) for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
    // RFC 9110 section 15.4: 303 turns any method but HEAD into GET; browsers do the same with POST on 301 and 302.
    if ((data.statusCode === 303 && method !== 'GET' && method !== 'HEAD') || ((data.statusCode === 301 || data.statusCode === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
      delete headers['content-length'];
    }
    url = next;
  }
}

const UNDICI_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function timedSignal(timeoutMs: number, signal: AbortSignal | null | undefined): { signal: AbortSignal; timer: AbortSignal } {
  const timer = AbortSignal.timeout(timeoutMs);
  return { signal: signal ? AbortSignal.any([timer, signal]) : timer, timer };
}

function tooLarge(url: URL, maxBytes: number): OutboundBodyTooLargeError {
  return new OutboundBodyTooLargeError(`The answer from ${url.host} is larger than ${maxBytes.toLocaleString('en')} bytes; it was not read.`);
}

function declaredLength(data: Dispatcher.ResponseData): number | null {
  const value = data.headers['content-length'];
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * A fetch for addresses users and platforms influence: the rules above, the body read whole (at most
 * `maxBodyBytes`), everything within `timeoutMs`. Refusals throw OutboundRefusedError, a late answer
 * OutboundTimeoutError, an oversized one OutboundBodyTooLargeError; a cancelled `signal` its reason.
 */
export async function outboundFetch(input: string | URL, init: OutboundInit = {}, limits: OutboundLimits = {}): Promise<Response> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = limits.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { signal, timer } = timedSignal(timeoutMs, init.signal);
  try {
    // undici's own timers are a safety net behind the signal, which bounds the whole exchange.
    const { url, data } = await sendFollowingRedirects(input, init, limits, { headersTimeout: timeoutMs + 1000, bodyTimeout: timeoutMs + 1000 }, signal);
    if ((declaredLength(data) ?? 0) > maxBytes) {
      data.body.destroy();
      throw tooLarge(url, maxBytes);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of data.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        data.body.destroy();
        throw tooLarge(url, maxBytes);
      }
      chunks.push(chunk);
    }
    const decoder = decoderOf(data.headers);
    let bytes = Buffer.concat(chunks);
    if (decoder && bytes.length > 0) {
      try {
        bytes = decoder.whole(bytes, { maxOutputLength: maxBytes });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(url, maxBytes);
        throw new Error(`The answer from ${url.host} could not be decoded (${(error as Error).message})`);
      }
    }
    const nullBody = data.statusCode === 204 || data.statusCode === 205 || data.statusCode === 304;
    return new Response(nullBody ? null : bytes, { status: data.statusCode, headers: decodedHeaders(data, decoder !== null) });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    if (timer.aborted || UNDICI_TIMEOUTS.has((error as { code?: string }).code ?? '')) throw new OutboundTimeoutError(`No complete answer within ${seconds(timeoutMs)}.`);
    throw error;
  }
}

/** A fetch-compatible form of outboundFetch (PlatformHttp's transport). */
export function outboundFetchWith(limits: OutboundLimits): (input: string | URL, init?: OutboundInit) => Promise<Response> {
  return (input, init) => outboundFetch(input, init, limits);
}

export interface OutboundStream {
  /** The URL answered, after redirects. */
  url: string;
  status: number;
  headers: Headers;
  /** The body as it arrives; errors with OutboundBodyTooLargeError past the cap. Destroy it to stop reading. */
  body: Readable;
}

/**
 * A download read as a stream (Shopify bulk files), by the same rules: `timeoutMs` bounds connecting
 * and the answer's headers, then the body may take as long as it needs as long as data keeps coming
 * (it fails after 5 minutes without any while it is being read), up to `maxBodyBytes`.
 */
export async function openOutboundStream(input: string | URL, init: OutboundInit = {}, limits: OutboundLimits = {}): Promise<OutboundStream> {
  const timeoutMs = limits.timeoutMs ?? 120_000;
  const maxBytes = limits.maxBodyBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const { url, data } = await sendFollowingRedirects(input, init, limits, { headersTimeout: timeoutMs, bodyTimeout: STREAM_IDLE_TIMEOUT_MS }, init.signal ?? undefined).catch((error: unknown) => {
    if (UNDICI_TIMEOUTS.has((error as { code?: string }).code ?? '')) throw new OutboundTimeoutError(`No answer within ${seconds(timeoutMs)}.`);
    throw error;
  });
  if ((declaredLength(data) ?? 0) > maxBytes) {
    data.body.destroy();
    throw tooLarge(url, maxBytes);
  }
  let size = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(size > maxBytes ? tooLarge(url, maxBytes) : null, chunk);
    },
  });
  // Destroying `capped` (a reader that stops early) closes the connection too; an error anywhere ends them all.
  const decoder = decoderOf(data.headers);
  if (decoder) pipeline(data.body, decoder.stream(), capped, () => undefined);
  else pipeline(data.body, capped, () => undefined);
  return { url: url.href, status: data.statusCode, headers: decodedHeaders(data, decoder !== null), body: capped };
}
