import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CROSS_ORIGIN_REFUSED_MESSAGE = 'Cross-origin requests are not allowed';

/** Browsers send Origin (or at least Sec-Fetch-Site) with every cross-site POST; a mismatch is refused. */
export function isCrossOrigin(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = request.headers.origin;
  if (!origin) return false;
  try {
    // Through URL on both sides, so an explicit default port (":80", ":443") compares equal to none.
    return new URL(origin).host !== new URL(`${request.protocol}://${request.host}`).host;
  } catch {
    return true;
  }
}

export const securityPlugin = fp(async (app: FastifyInstance) => {
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

  app.addHook('onRequest', async (request, reply) => {
    if (SAFE_METHODS.has(request.method) || !isCrossOrigin(request)) return;
    return reply.code(403).send({ message: CROSS_ORIGIN_REFUSED_MESSAGE });
  });
});
