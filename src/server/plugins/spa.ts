import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { NOT_FOUND_MESSAGE } from './rest.ts';

const API_PREFIXES = ['/api/', '/api?', '/trpc/'];

function isApiPath(url: string): boolean {
  return url === '/api' || url === '/trpc' || API_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** Serves the built React app: hashed assets cached for a year, every other page path gets index.html. */
export const spaPlugin = fp(async (app: FastifyInstance, options: { clientDistDir: string }) => {
  const indexFile = path.join(options.clientDistDir, 'index.html');
  const built = existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, {
      root: options.clientDistDir,
      wildcard: false,
      index: false,
      // The build writes .br and .gz beside each file (vite.config.ts): sent as they are, with
      // Content-Encoding and Vary: Accept-Encoding, to clients that accept them.
      preCompressed: true,
      setHeaders(res, filePath) {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  } else {
    app.log.warn(`No client build at ${indexFile}; run "npm run build" to serve the app.`);
  }

  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    if (isApiPath(url) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return reply.code(404).send({ message: NOT_FOUND_MESSAGE });
    }
    if (!built) return reply.code(503).type('text/plain').send('The client is not built. Run "npm run build".');
    if (path.extname(url.split('?')[0]!) !== '') return reply.code(404).type('text/plain').send('Not found');
    return reply.header('Cache-Control', 'no-cache').sendFile('index.html');
  });
});
