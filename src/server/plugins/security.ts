import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { redactSecrets } from '../modules/email/email.service.ts';
import { isAllowedHost } from '../public-origin.ts';
import { isCollectorPath } from '../modules/tracking/collector.routes.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CROSS_ORIGIN_REFUSED_MESSAGE = 'Cross-origin requests are not allowed';
export const UNKNOWN_HOST_MESSAGE = 'This server does not answer for that host name';
/**
 * A year, subdomains included (helmet's default value). Sent only on responses that went out over
 * https: RFC 6797 §7.2 forbids the header over plain http, and browsers ignore it there (§8.1).
 * https://www.rfc-editor.org/rfc/rfc6797#section-7.2
 */
export const HSTS_VALUE = 'max-age=31536000; includeSubDomains';

/** Browsers send Origin (or at least Sec-Fetch-Site) with every cross-site POST; a mismatch is refused. */
export function isCrossOrigin(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = request.headers.origin;
  if (!origin) return false;
  // A form POST from a page whose Referrer-Policy is no-referrer (ours: helmet's default) carries
  // "Origin: null" (Fetch standard, "append a request Origin header"); the browser's own Sec-Fetch-Site then says where it came from.
  if (origin === 'null') return request.headers['sec-fetch-site'] !== 'same-origin';
  try {
    // Through URL on both sides, so an explicit default port (":80", ":443") compares equal to none.
    return new URL(origin).host !== new URL(`${request.protocol}://${request.host}`).host;
  } catch {
    return true;
  }
}

/** What the server log keeps of a request: Fastify's usual fields, with the secrets of links blanked out. */
export function requestLogFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The app's logger serializers (app.ts): request lines without the secrets of links. */
export const LOG_SERIALIZERS = { req: requestLogFields };

function isApiPath(url: string): boolean {
  return url === '/trpc' || url.startsWith('/trpc/') || url.startsWith('/trpc?') || url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

export const securityPlugin = fp(async (app: FastifyInstance, options: { allowedHosts?: readonly string[] } = {}) => {
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // ApexCharts and daisyUI set inline styles.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    hsts: false,
  });

  const allowedHosts = options.allowedHosts;
  app.addHook('onRequest', async (request, reply) => {
    // ALLOWED_HOSTS: every other Host is refused (the health check answers whatever name a probe uses).
    if (allowedHosts && request.url !== '/healthz' && !isAllowedHost(request.host, allowedHosts)) {
      return reply.code(400).send({ message: UNKNOWN_HOST_MESSAGE });
    }
    // Behind a TLS-terminating proxy (TRUST_PROXY), request.protocol is what X-Forwarded-Proto says.
    if (request.protocol === 'https') reply.header('Strict-Transport-Security', HSTS_VALUE);
    // The tracking collector takes events from the shops' own sites: it checks their domains itself.
    if (SAFE_METHODS.has(request.method) || isCollectorPath(request.url) || !isCrossOrigin(request)) return;
    return reply.code(403).send({ message: CROSS_ORIGIN_REFUSED_MESSAGE });
  });

  // A signed-in user's data must not stay in a browser's or a shared proxy's cache.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.session?.userId === undefined || !isApiPath(request.url)) return payload;
    const current = reply.getHeader('cache-control');
    if (typeof current !== 'string' || !/\bno-store\b/.test(current)) reply.header('Cache-Control', 'no-store');
    return payload;
  });
});
