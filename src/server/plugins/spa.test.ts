import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestDatabase, testServices } from '../../../test/harness.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;
let distDir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = database.orm;
  distDir = await mkdtemp(path.join(os.tmpdir(), 'storepulse-dist-'));
  await mkdir(path.join(distDir, 'assets'));
  await writeFile(path.join(distDir, 'index.html'), '<!doctype html><title>StorePulse</title><div id="root"></div>');
  await writeFile(path.join(distDir, 'assets', 'index-abc123.js'), 'console.log("app")');
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

describe('serving the built client', () => {
  it('answers every page path with index.html, not cached', async () => {
    for (const url of ['/', '/dashboard', '/stores/12/settings', '/auth?redirect=%2Fdashboard']) {
      const answer = await new ApiClient(app).get(url);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/text\/html/);
      expect(answer.body).toContain('<div id="root">');
      expect(answer.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves hashed assets with a year-long immutable cache', async () => {
    const answer = await new ApiClient(app).get('/assets/index-abc123.js');
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers a missing asset with 404 instead of the page', async () => {
    expect((await new ApiClient(app).get('/assets/index-missing.js')).status).toBe(404);
  });

  it('keeps /api answers JSON', async () => {
    const answer = await new ApiClient(app).get('/api/unknown');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: 'Not found' });
  });
});
