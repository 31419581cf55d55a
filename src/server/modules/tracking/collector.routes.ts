import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type pg from 'pg';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import type { AppConfig } from '../../config.ts';
import {
  campaignOf,
  countDrop as drop,
  commerceOf,
  DroppedEvent,
  MAX_FUTURE_MS,
  MAX_PIXEL_EVENT_AGE_MS,
  pixelBatchSchema,
  pixelEventSchema,
  reasonOf,
  serverBatchSchema,
  serverEventRows,
  sha256Hex,
  type EventRow,
} from './event-schema.ts';
import { EventWriter, type DropCount } from './event-writer.ts';
import { buildPixel } from './pixel.ts';
import { botReason, DailySalt, visitorHash } from './privacy.ts';
import { SharedRateLimits, WindowCounter } from './rate-limit.ts';
import { HSTS_VALUE, UNKNOWN_HOST_MESSAGE } from '../../plugins/security.ts';
import { isAllowedHost } from '../../public-origin.ts';
import { isAllowedDomain, readTrackingSettings, sameSecret, storeIdOfKey, type TrackingSettings } from './tracking-settings.service.ts';

// The collector (README, "Tracking: the collector"):
// - POST /p/e: the pixel's batches, text/plain JSON (a "simple" request: no CORS pre-flight), checked
//   against the store key and the store's allowed domains;
// - POST /api/tracking/events: the same for backends, with the store's secret key;
// - GET /p.js: the pixel.
// Each event is validated on its own: a bad one is counted under its reason and dropped, its
// neighbours are stored. The answer goes out only once the group commit holding the batch has
// committed (event-writer.ts).

export const COLLECTOR_PATH = '/p/e';
export const SERVER_EVENTS_PATH = '/api/tracking/events';
export const PIXEL_PATH = '/p.js';
export const MAX_BATCH_BYTES = 64 * 1024;
export const ID_COOKIE = '_sp_id';
/** 400 days: the longest lifetime browsers accept for a cookie (RFC 6265bis). */
export const ID_COOKIE_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;
const SETTINGS_CACHE_MS = 10_000;
const RECHECK_MS = 100;
/** The security headers helmet would give these answers (JSON or empty): no sniffing, not embeddable elsewhere. */
const COLLECTOR_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin' } as const;

/** Paths the cross-origin check leaves alone: shops on other sites post to them (security.ts). */
export function isCollectorPath(url: string): boolean {
  return url === COLLECTOR_PATH || url.startsWith(`${COLLECTOR_PATH}?`) || url === SERVER_EVENTS_PATH || url.startsWith(`${SERVER_EVENTS_PATH}?`);
}

class SettingsCache {
  private entries = new Map<number, { at: number; settings: Promise<TrackingSettings | null> }>();
  private readonly orm: MikroORM;
  constructor(orm: MikroORM) {
    this.orm = orm;
  }

  /** `maxAgeMs`: a key that does not match is checked again against settings at most 100 ms old (a key just rotated). */
  get(storeId: number, maxAgeMs = SETTINGS_CACHE_MS): Promise<TrackingSettings | null> {
    const now = Date.now();
    const entry = this.entries.get(storeId);
    if (entry && now - entry.at < maxAgeMs) return entry.settings;
    const settings = readTrackingSettings(this.orm.em.fork(), storeId);
    this.entries.set(storeId, { at: now, settings });
    settings.catch(() => this.entries.delete(storeId));
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    return settings;
  }
}

function hostOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The Domain attribute for the id cookie when this server is reached under the shop's own site (a
 * path its reverse proxy forwards, or a CNAME subdomain), so that the cookie is first-party and set
 * by the server (Safari keeps it longer than one set by script); null when the request went to
 * another site, where a cookie would be third-party and is not set. '' means a host-only cookie.
 */
export function firstPartyCookieDomain(pageHost: string, requestHost: string): string | null {
  const page = pageHost.toLowerCase().split('.');
  const served = requestHost.toLowerCase().replace(/:\d+$/, '').split('.');
  if (page.join('.') === served.join('.')) return '';
  let common = 0;
  while (common < page.length && common < served.length && page[page.length - 1 - common] === served[served.length - 1 - common]) common += 1;
  return common >= 2 ? page.slice(-common).join('.') : null;
}


function dropList(storeId: number, drops: Map<string, number>): DropCount[] {
  return [...drops].map(([reason, count]) => ({ storeId, reason, count }));
}

const truthy = (value: boolean | 0 | 1 | undefined) => value === true || value === 1;

function parseBody(body: unknown): unknown {
  if (typeof body === 'string') return JSON.parse(body);
  if (Buffer.isBuffer(body)) return JSON.parse(body.toString('utf8'));
  return body;
}

/** GET /p.js (registered with the app's other routes: helmet's headers, compression). */
export const trackingPixelPlugin = fp(async (app: FastifyInstance) => {
  let pixel: Promise<{ code: string; gzip: Buffer; etag: string }> | null = null;
  app.get(PIXEL_PATH, async (request, reply) => {
    pixel ??= buildPixel().then((code) => ({ code, gzip: gzipSync(code, { level: 9 }), etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 16)}"` }));
    const built = await pixel.catch((error: unknown) => {
      pixel = null;
      throw error;
    });
    reply
      .header('Content-Type', 'text/javascript; charset=utf-8')
      // A day in caches, and a week more while revalidating in the background: a fixed script URL in
      // every shop's pages cannot carry a version, so a new pixel reaches browsers within a day.
      .header('Cache-Control', 'public, max-age=86400, stale-while-revalidate=604800')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('ETag', built.etag)
      .header('Vary', 'Accept-Encoding');
    if (request.headers['if-none-match'] === built.etag) return reply.code(304).send();
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('Content-Encoding', 'gzip').send(built.gzip);
    return reply.send(built.code);
  });
});

/**
 * POST /p/e and POST /api/tracking/events in a context of their own, a sibling of the one holding the
 * rest of the app (app.ts), so that none of the hooks the rest passes through (helmet, the answer
 * cache, sessions and their cookie signing, compression) run on the collector's requests: about half
 * of the server's CPU time per request at batch size 1 before (BENCHMARKS.md, "i17-collector2"). What
 * of them the collector's answers need is set here: ALLOWED_HOSTS, nosniff, the resource policy, HSTS
 * over https. Not wrapped in fastify-plugin, so that its hook stays in this context.
 */
export async function trackingCollectorPlugin(app: FastifyInstance, options: { config: AppConfig; orm: MikroORM }): Promise<void> {
  const { config, orm } = options;
  const pool = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
  const writer = new EventWriter(pool);
  const settingsCache = new SettingsCache(orm);
  const salt = new DailySalt(() => orm.em.fork());
  const perIp = new WindowCounter(config.tracking.requestsPerIpPerSecond, Date.now, config.tracking.rateWindowSeconds);
  const perStore = new WindowCounter(config.tracking.eventsPerStorePerSecond, Date.now, config.tracking.rateWindowSeconds);
  // The limits hold over all app processes on the database (rate-limit.ts).
  const shared = new SharedRateLimits(pool, { ip: perIp, store: perStore }, (error) => app.log.warn({ err: error }, 'Could not share the collector’s rate-limit counts'));
  shared.start();
  app.addHook('onClose', async () => {
    await shared.stop();
    await writer.close();
  });
  const allowedHosts = config.allowedHosts;
  app.addHook('onRequest', async (request, reply) => {
    if (allowedHosts && !isAllowedHost(request.host, allowedHosts)) return reply.code(400).send({ message: UNKNOWN_HOST_MESSAGE });
    reply.headers(COLLECTOR_HEADERS);
    if (request.protocol === 'https') reply.header('Strict-Transport-Security', HSTS_VALUE);
  });

  const limited = (reply: FastifyReply, retryAfterSeconds: number) =>
    reply.code(429).header('Retry-After', String(retryAfterSeconds)).send({ message: 'Too many tracking requests; try again shortly' });

  app.post(COLLECTOR_PATH, { bodyLimit: MAX_BATCH_BYTES }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const ipDecision = perIp.take(request.ip);
    if (!ipDecision.allowed) return limited(reply, ipDecision.retryAfterSeconds);
    let batch;
    try {
      batch = pixelBatchSchema.parse(parseBody(request.body));
    } catch {
      return reply.code(400).send({ message: 'The body must be a JSON batch of events with a store key' });
    }
    const storeId = storeIdOfKey(batch.key, 'public');
    let settings = storeId === null ? null : await settingsCache.get(storeId);
    if (storeId !== null && (!settings || !sameSecret(batch.key, settings.storeKey))) settings = await settingsCache.get(storeId, RECHECK_MS);
    if (!settings || !sameSecret(batch.key, settings.storeKey)) return reply.code(403).send({ message: 'Unknown store key' });
    const drops = new Map<string, number>();

    const firstUrl = (batch.events[0] as { url?: unknown } | undefined)?.url;
    const pageHost = hostOf(request.headers.origin) ?? hostOf(request.headers.referer) ?? hostOf(typeof firstUrl === 'string' ? firstUrl : undefined);
    if (settings.allowedDomains.length > 0 && (!pageHost || !isAllowedDomain(pageHost, settings.allowedDomains))) {
      drop(drops, 'domain not allowed', batch.events.length);
      await writer.write([], dropList(settings.storeId, drops));
      return reply.code(403).send({ message: 'This site is not one of the store’s allowed domains' });
    }
    const storeDecision = perStore.take(String(settings.storeId), batch.events.length);
    if (!storeDecision.allowed) return limited(reply, storeDecision.retryAfterSeconds);

    const userAgent = request.headers['user-agent'];
    const bot = botReason(userAgent, truthy(batch.wd));
    if (bot) {
      drop(drops, bot, batch.events.length);
      await writer.write([], dropList(settings.storeId, drops));
      return reply.code(204).send();
    }

    const gpc = truthy(batch.gpc) || request.headers['sec-gpc'] === '1';
    const consent = !(batch.consent === 0 || batch.consent === false) && !(gpc && settings.honourGpc);
    const cookieId = consent ? /(?:^|;\s*)_sp_id=([A-Za-z0-9_-]{8,64})/.exec(String(request.headers.cookie ?? ''))?.[1] : undefined;
    const anonymousId = consent ? (batch.aid ?? cookieId ?? null) : null;
    const hash = consent ? null : visitorHash(await salt.current(), settings.storeId, request.ip, userAgent ?? '');
    const country = countryOf(request, config);
    const receivedAt = Date.now();

    const rows: EventRow[] = [];
    for (const raw of batch.events) {
      const parsed = pixelEventSchema.safeParse(raw);
      if (!parsed.success) {
        drop(drops, reasonOf(parsed.error));
        continue;
      }
      const event = parsed.data;
      const age = batch.now - event.ts;
      if (age > MAX_PIXEL_EVENT_AGE_MS || age < -MAX_FUTURE_MS) {
        drop(drops, 'invalid ts: out of range');
        continue;
      }
      try {
        const commerce = commerceOf(event.name, event.props);
        rows.push({
          storeId: settings.storeId,
          occurredAt: new Date(receivedAt - Math.max(0, age)),
          eventId: event.name === 'purchase' ? commerce.orderId! : event.id,
          name: event.name,
          source: 'pixel',
          consent,
          anonymousId,
          visitorHash: hash,
          url: event.url,
          referrer: event.ref || null,
          title: event.title || null,
          ...campaignOf(event.url),
          screen: event.screen ?? null,
          language: event.lang ?? null,
          country,
          emailHash: consent ? (event.props?.email_hash ?? null) : null,
          customerId: consent ? (event.props?.customer_id ?? null) : null,
          checkoutToken: consent ? (event.props?.checkout_token ?? null) : null,
          ...commerce,
        });
      } catch (error) {
        if (!(error instanceof DroppedEvent)) throw error;
        drop(drops, error.reason);
      }
    }
    await writer.write(rows, dropList(settings.storeId, drops));

    if (anonymousId && pageHost) {
      const domain = firstPartyCookieDomain(pageHost, request.host);
      if (domain !== null) {
        const secure = request.protocol === 'https' ? '; Secure' : '';
        reply.header('Set-Cookie', `${ID_COOKIE}=${anonymousId}; Max-Age=${ID_COOKIE_MAX_AGE_SECONDS}; Path=/; SameSite=Lax${domain ? `; Domain=${domain}` : ''}${secure}`);
      }
    }
    return reply.code(204).send();
  });

  app.post(SERVER_EVENTS_PATH, { bodyLimit: MAX_BATCH_BYTES }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const secret = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1] ?? '';
    const storeId = storeIdOfKey(secret, 'secret');
    const hash = sha256Hex(secret);
    let settings = storeId === null ? null : await settingsCache.get(storeId);
    if (storeId !== null && (!settings?.secretKeyHash || !sameSecret(hash, settings.secretKeyHash))) settings = await settingsCache.get(storeId, RECHECK_MS);
    if (!settings?.secretKeyHash || !sameSecret(hash, settings.secretKeyHash)) {
      return reply.code(401).send({ message: 'A valid secret key is required (Authorization: Bearer <secret key>)' });
    }
    let batch;
    try {
      batch = serverBatchSchema.parse(parseBody(request.body));
    } catch {
      return reply.code(400).send({ message: 'The body must be a JSON object with an "events" array of 1 to 500 events' });
    }
    const storeDecision = perStore.take(String(settings.storeId), batch.events.length);
    if (!storeDecision.allowed) return limited(reply, storeDecision.retryAfterSeconds);

    const { rows, drops, dropped } = serverEventRows(settings.storeId, settings.retentionMonths, batch.events, Date.now());
    const result = await writer.write(rows, dropList(settings.storeId, drops));
    return reply.code(200).send({ stored: result.stored, duplicates: result.duplicates, dropped });
  });
}

/** The visitor's country from a trusted proxy's header (TRACKING_COUNTRY_HEADER); the address itself is never kept. */
function countryOf(request: FastifyRequest, config: AppConfig): string | null {
  const header = config.tracking.countryHeader;
  if (!header || config.trustProxy === false) return null;
  const value = String(request.headers[header] ?? '').toUpperCase();
  return /^[A-Z]{2}$/.test(value) && value !== 'XX' && value !== 'T1' ? value : null;
}
