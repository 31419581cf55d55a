import type { FastifyInstance } from 'fastify';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { ResolvedConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../../scripts/precompress.ts';
import { appServingClientDist, type ClientDistApp } from '../../../test/client-dist-app.ts';
import { COMPRESSED_REQUEST_MESSAGE } from './compression.ts';

let served: ClientDistApp;
let app: FastifyInstance;
let distDir: string;
const script = `export const figures = [${Array.from({ length: 400 }, (_, i) => i).join(', ')}];\n`;

beforeAll(async () => {
  // A client build as vite writes it, then the build's precompress step over it.
  served = await appServingClientDist(
    {
      'index.html': `<!doctype html><title>StorePulse</title><div id="root"></div>${'<!-- padding -->'.repeat(100)}`,
      'assets/index-abc123.js': script,
      'assets/tiny-abc123.js': 'export {};',
    },
    async (root) => {
      const plugin = precompress();
      (plugin.configResolved as (config: ResolvedConfig) => void)({ root, build: { outDir: '.' } } as ResolvedConfig);
      await (plugin.closeBundle as () => Promise<void>)();
    },
  );
  ({ app, distDir } = served);
});
afterAll(() => served.close());

describe('compression', () => {
  it('writes .br and .gz beside each built text file of 1 KB or more, not beside tiny ones', async () => {
    const assets = (await readdir(path.join(distDir, 'assets'))).sort();
    expect(assets).toEqual(['index-abc123.js', 'index-abc123.js.br', 'index-abc123.js.gz', 'tiny-abc123.js']);
    expect(await readdir(distDir)).toEqual(expect.arrayContaining(['index.html.br', 'index.html.gz']));
  });

  it('serves the precompressed brotli or gzip file with Content-Encoding and Vary: Accept-Encoding', async () => {
    const br = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.rawPayload.length).toBeLessThan(script.length / 2);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    // The build's file itself (quality 11), not a compression made per request.
    expect(br.rawPayload.equals(await readFile(path.join(distDir, 'assets', 'index-abc123.js.br')))).toBe(true);

    const gz = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toMatch(/accept-encoding/i);
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);
    expect(gz.rawPayload.equals(await readFile(path.join(distDir, 'assets', 'index-abc123.js.gz')))).toBe(true);

    const plain = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('serves the page (index.html for a page path) precompressed too', async () => {
    const page = await app.inject({ url: '/dashboard', headers: { 'accept-encoding': 'br' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(page.rawPayload).toString()).toContain('<div id="root">');
  });

  it('compresses API answers of 1 KB or more, and leaves small ones as they are', async () => {
    const big = await app.inject({ url: '/api/openapi.json', headers: { 'accept-encoding': 'br, gzip' } });
    expect(big.statusCode).toBe(200);
    expect(big.headers['content-encoding']).toBe('br');
    expect(big.headers['vary']).toMatch(/accept-encoding/i);
    expect(JSON.parse(brotliDecompressSync(big.rawPayload).toString())).toHaveProperty('paths');

    const gz = await app.inject({ url: '/api/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toHaveProperty('paths');

    const small = await app.inject({ url: '/api/unknown', headers: { 'accept-encoding': 'br, gzip' } });
    expect(small.statusCode).toBe(404);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ message: 'Not found' });
  });

  it('refuses a compressed request body with 415 and a clear message', async () => {
    for (const url of ['/trpc/auth.login', '/api/auth/login']) {
      const answer = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', host: 'localhost', origin: 'http://localhost' },
        payload: gzipSync(JSON.stringify({ email: 'a@example.com', password: 'x' })),
      });
      expect(answer.statusCode, url).toBe(415);
      expect(answer.json(), url).toEqual({ message: COMPRESSED_REQUEST_MESSAGE });
    }
    // The server still answers afterwards.
    expect((await app.inject({ url: '/api/unknown' })).statusCode).toBe(404);
  });
});
