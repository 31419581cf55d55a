import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appServingClientDist, type ClientDistApp } from '../../../test/client-dist-app.ts';
import { ApiClient } from '../../../test/harness.ts';

let served: ClientDistApp;
let app: FastifyInstance;

beforeAll(async () => {
  served = await appServingClientDist({
    'index.html': '<!doctype html><title>StorePulse</title><div id="root"></div>',
    'assets/index-abc123.js': 'console.log("app")',
  });
  app = served.app;
});
afterAll(() => served.close());

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
