import robotsParserModule from 'robots-parser';
import { loadConfig } from '../../config.ts';
import { OutboundBodyTooLargeError, OutboundRefusedError, OutboundTimeoutError, openOutboundStream, outboundFetch, type OutboundPolicy } from '../../outbound/outbound-http.ts';

// Fetching web pages for the AI tools (landing-page reviewer, competitor price tracker) through the one
// outbound module (src/server/outbound/): its address checks (DNS resolved once, loopback/private/
// link-local/metadata refused, every redirect re-checked) apply to every page and every robots.txt.
// On top of them, for crawling: our user agent, HTML only, a 5 MB cap counted while streaming, a
// timeout, robots.txt (RFC 9309) for scheduled checks, and the per-domain pace (politeness.ts).

/** The product token robots.txt rules are matched against. */
export const ROBOTS_AGENT_TOKEN = 'StorePulseBot';

/** Who we are, in every request the fetcher sends: the token, and where a site owner finds us (the app's PUBLIC_URL, when set). */
export function fetcherUserAgent(publicUrl: string | undefined): string {
  return publicUrl ? `${ROBOTS_AGENT_TOKEN}/1.0 (+${publicUrl})` : `${ROBOTS_AGENT_TOKEN}/1.0`;
}

let configuredUserAgent: string | undefined;
function userAgent(): string {
  configuredUserAgent ??= fetcherUserAgent(loadConfig().publicUrl);
  return configuredUserAgent;
}
export const MAX_PAGE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_PAGE_TIMEOUT_MS = 20_000;
const ACCEPTED_TYPES = new Set(['text/html', 'application/xhtml+xml']);

// robots-parser is CommonJS (module.exports = the function); its types declare an ES default export.
interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => Robots;

export type PageFetchReason = 'robots' | 'unsafe_address' | 'http_status' | 'content_type' | 'too_large' | 'timeout' | 'network';

/** Why a page was not fetched; `reason` is what the screens translate. */
export class PageFetchError extends Error {
  readonly reason: PageFetchReason;
  readonly status: number | undefined;
  constructor(reason: PageFetchReason, message: string, status?: number) {
    super(message);
    this.reason = reason;
    this.status = status;
    this.name = 'PageFetchError';
  }
}

export interface FetchPageOptions {
  /** Scheduled checks: refuse what the site's robots.txt disallows for StorePulseBot. */
  respectRobots?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Another address policy than the app's (tests). */
  policy?: OutboundPolicy;
  signal?: AbortSignal;
}

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  charset: string;
  html: string;
  bytes: number;
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The charset from Content-Type, else from a <meta> in the first 1024 bytes (as the HTML standard's prescan), else UTF-8. */
export function detectCharset(contentType: string | null, head: Buffer): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  const prefix = head.subarray(0, 1024).toString('latin1');
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(prefix)?.[1];
  const label = (fromHeader ?? fromMeta ?? 'utf-8').toLowerCase();
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return 'utf-8';
  }
}

/** Turns the outbound module's errors into the fetcher's typed ones. */
export function pageFetchErrorOf(error: unknown, timedOut: boolean): PageFetchError {
  if (error instanceof PageFetchError) return error;
  if (error instanceof OutboundRefusedError) return new PageFetchError('unsafe_address', error.message);
  if (error instanceof OutboundBodyTooLargeError) return new PageFetchError('too_large', error.message);
  if (error instanceof OutboundTimeoutError || timedOut) return new PageFetchError('timeout', error instanceof Error && !timedOut ? error.message : 'No complete answer in time.');
  return new PageFetchError('network', `The page could not be fetched (${error instanceof Error ? error.message : String(error)}).`);
}

/** Fetches one HTML page for crawling by the rules above; throws PageFetchError. */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<FetchedPage> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_PAGE_BYTES;
  if (options.respectRobots) {
    const verdict = await robotsVerdict(url, { policy: options.policy, timeoutMs });
    if (!verdict.allowed) throw new PageFetchError('robots', `${new URL(url).host}'s robots.txt does not allow StorePulseBot to read ${new URL(url).pathname} (${verdict.why}).`);
  }
  const timer = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timer, options.signal]) : timer;
  try {
    const answer = await openOutboundStream(
      url,
      { headers: { 'user-agent': userAgent(), accept: 'text/html,application/xhtml+xml;q=0.9' }, signal },
      { timeoutMs, maxBodyBytes: maxBytes, ...(options.policy ? { policy: options.policy } : {}) },
    );
    const contentType = answer.headers.get('content-type');
    if (answer.status < 200 || answer.status > 299) {
      answer.body.destroy();
      throw new PageFetchError('http_status', `${new URL(answer.url).host} answered HTTP ${answer.status}.`, answer.status);
    }
    if (!ACCEPTED_TYPES.has(mediaType(contentType))) {
      answer.body.destroy();
      throw new PageFetchError('content_type', `${new URL(answer.url).host} sent ${mediaType(contentType) || 'no content type'}, not an HTML page.`);
    }
    const chunks: Buffer[] = [];
    // The outbound stream errors past maxBytes however the body arrives (a Content-Length above the cap
    // is refused before reading; a lying or absent one is caught by counting).
    for await (const chunk of answer.body as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const charset = detectCharset(contentType, body);
    return { url: answer.url, status: answer.status, contentType: mediaType(contentType), charset, html: new TextDecoder(charset).decode(body), bytes: body.length };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw pageFetchErrorOf(error, timer.aborted);
  }
}

// ---------------------------------------------------------------------------------------------
// robots.txt (RFC 9309, https://www.rfc-editor.org/rfc/rfc9309)

/** Section 2.4: a crawler SHOULD NOT use a cached robots.txt for more than 24 hours. */
export const ROBOTS_CACHE_MS = 24 * 60 * 60 * 1000;
/** An unreachable robots.txt (5xx, network error, timeout) means disallow-all (section 2.3.1.4); asked again sooner. */
export const ROBOTS_RETRY_MS = 10 * 60 * 1000;
/** Section 2.5: parse at least the first 500 KiB. */
const ROBOTS_MAX_BYTES = 512 * 1024;

interface RobotsEntry {
  robots: Robots | 'allow-all' | 'disallow-all';
  why: string;
  expires: number;
}

const robotsCache = new Map<string, RobotsEntry>();

/** Forgets every cached robots.txt (tests). */
export function clearRobotsCache(): void {
  robotsCache.clear();
}

async function loadRobots(origin: string, options: { policy?: OutboundPolicy; timeoutMs: number }, now: number): Promise<RobotsEntry> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    // Redirects are followed (at most 5, section 2.3.1.2), each hop through the address checks.
    const answer = await outboundFetch(robotsUrl, { headers: { 'user-agent': userAgent() } }, { timeoutMs: options.timeoutMs, maxBodyBytes: ROBOTS_MAX_BYTES, ...(options.policy ? { policy: options.policy } : {}) });
    if (answer.status >= 200 && answer.status < 300) return { robots: robotsParser(robotsUrl, await answer.text()), why: 'robots.txt rules', expires: now + ROBOTS_CACHE_MS };
    // Section 2.3.1.3: 400-499 "unavailable" -> the crawler MAY access any resource.
    if (answer.status >= 400 && answer.status < 500) return { robots: 'allow-all', why: `robots.txt answered HTTP ${answer.status}`, expires: now + ROBOTS_CACHE_MS };
    // Section 2.3.1.4: 500-599 "unreachable" -> complete disallow.
    return { robots: 'disallow-all', why: `robots.txt answered HTTP ${answer.status}, so nothing may be read`, expires: now + ROBOTS_RETRY_MS };
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw new PageFetchError('unsafe_address', error.message);
    return { robots: 'disallow-all', why: 'robots.txt could not be read, so nothing may be read', expires: now + ROBOTS_RETRY_MS };
  }
}

/** Whether StorePulseBot may read `url` by its site's robots.txt (cached per origin). */
export async function robotsVerdict(url: string, options: { policy?: OutboundPolicy; timeoutMs?: number; now?: number } = {}): Promise<{ allowed: boolean; why: string }> {
  const target = new URL(url);
  const now = options.now ?? Date.now();
  let entry = robotsCache.get(target.origin);
  if (!entry || entry.expires <= now) {
    entry = await loadRobots(target.origin, { policy: options.policy, timeoutMs: options.timeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS }, now);
    robotsCache.set(target.origin, entry);
  }
  if (entry.robots === 'allow-all') return { allowed: true, why: entry.why };
  if (entry.robots === 'disallow-all') return { allowed: false, why: entry.why };
  return { allowed: entry.robots.isAllowed(target.href, ROBOTS_AGENT_TOKEN) !== false, why: entry.why };
}
