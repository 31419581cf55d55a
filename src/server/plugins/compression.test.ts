import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { ResolvedConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../../scripts/precompress.ts';
import { createTestDatabase, testServices } from '../../../test/harness.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { COMPRESSED_REQUEST_MESSAGE } from './compression.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let distDir: string;
const script = `export const figures = [${Array.from({ length: 400 }, (_, i) => i).join(', ')}];\n`;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = database.orm;
  // A client build as vite writes it, then the build's precompress step over it.
  distDir = await mkdtemp(path.join(os.tmpdir(), 'storepulse-dist-'));
  await mkdir(path.join(distDir, 'assets'));
  await writeFile(path.join(distDir, 'index.html'), `<!doctype html><title>StorePulse</title><div id="root"></div>${'<!-- padding -->'.repeat(100)}`);
  await writeFile(path.join(distDir, 'assets', 'index-abc123.js'), script);
  await writeFile(path.join(distDir, 'assets', 'tiny-abc123.js'), 'export {};');
  const plugin = precompress();
  (plugin.configResolved as (config: ResolvedConfig) => void)({ root: distDir, build: { outDir: '.' } } as ResolvedConfig);
  await (plugin.closeBundle as () => Promise<void>)();
  app = await buildApp({
    config: { ...loadConfig({ LOG_LEVEL: 'silent' }), sessionSecret: 's'.repeat(40), clientDistDir: distDir },
    orm,
    services: testServices(),
    logger: false,
  });
});
afterAll(async () => {
  await app.close();
  await database.close();
  await rm(distDir, { recursive: true, force: true });
});

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
