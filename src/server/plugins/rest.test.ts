import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, createTestDatabase, signedInClient } from '../../../test/harness.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;
let app: FastifyInstance;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = database.orm;
  app = await createTestApp(orm);
});
afterAll(async () => {
  await app.close();
  await database.close();
});

const STACK_TRACE = /\n\s+at |\.ts:\d+:\d+/;

describe('REST adapter', () => {
  it('answers unknown /api paths and methods with 404 JSON', async () => {
    const client = new ApiClient(app);
    for (const answer of [await client.get('/api/nothing-here'), await client.request('PUT', '/api/stores'), await client.get('/api')]) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ message: 'Not found' });
    }
  });

  it('never puts a stack trace in an error body', async () => {
    const { client } = await signedInClient(app, 'stack');
    const answers = [
      await client.post('/api/stores', { name: '' }),
      await client.patch('/api/stores/not-a-number', { name: 'x' }),
      await client.request('POST', '/api/stores', '{broken', { 'content-type': 'application/json' }),
      await new ApiClient(app).post('/api/login', { username: 'x', password: 'y' }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(typeof answer.body.message).toBe('string');
      expect(JSON.stringify(answer.body)).not.toMatch(STACK_TRACE);
    }
  });

  it('gives the same answer over /trpc as over /api, from the same procedure', async () => {
    const { client } = await signedInClient(app, 'both');
    await client.post('/api/stores', { name: 'Same' });
    const rest = await client.get('/api/stores');
    const trpc = await client.get('/trpc/stores.list');
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data).toEqual(rest.body);

    const trpcError = await client.request('POST', '/trpc/stores.create', { name: ' ' });
    expect(trpcError.status).toBe(400);
    expect(trpcError.body.error.message).toBe('Store name is required');
    expect(trpcError.body.error.data.fieldErrors).toEqual([{ field: 'name', message: 'Store name is required' }]);
    expect(JSON.stringify(trpcError.body)).not.toMatch(STACK_TRACE);
  });

  it('describes the REST surface in /api/openapi.json', async () => {
    const answer = await new ApiClient(app).get('/api/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toMatch(/^3\./);
    const paths = Object.keys(answer.body.paths);
    for (const path of [
      '/user', '/login', '/register', '/stores', '/stores/active', '/stores/{storeId}', '/stores/{id}',
      '/stores/dashboard-limits', '/subscription/current', '/connection-status', '/admin/guest-mode-status',
      '/admin/exit-guest-mode', '/admin/enter-guest-mode',
    ]) {
      expect(paths).toContain(path);
    }
    expect(Object.keys(answer.body.paths['/stores'])).toEqual(expect.arrayContaining(['get', 'post']));
  });

  it('answers page paths with a clear message when the client is not built', async () => {
    const answer = await new ApiClient(app).get('/dashboard');
    expect(answer.status).toBe(503);
  });
});
