import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiClient, signedInClient, testServices, trpcQuery, useTestDatabase } from '../../../test/harness.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { HSTS_VALUE, LOG_SERIALIZERS } from './security.ts';

const database = useTestDatabase();

async function withApp(env: Record<string, string>, body: (app: FastifyInstance) => Promise<void>, logger: FastifyServerOptions['logger'] = false): Promise<void> {
  const app = await buildApp({
    config: { ...loadConfig({ LOG_LEVEL: 'silent', ...env }), sessionSecret: 's'.repeat(40) },
    orm: database.orm,
    services: testServices(),
    logger,
  });
  try {
    await body(app);
  } finally {
    await app.close();
  }
}

describe('request log', () => {
  it('keeps the method and path of requests, without the secrets of reset, invitation and OAuth links', async () => {
    const lines: string[] = [];
    const logger = { level: 'info', serializers: LOG_SERIALIZERS, stream: { write: (line: string) => void lines.push(line) } };
    await withApp(
      {},
      async (app) => {
        const client = new ApiClient(app);
        await client.get('/reset-password?token=ResetSecret123');
        await client.get('/api/invitations/InviteSecret456');
        await client.get('/api/integrations/oauth/shopify/callback?code=CodeSecret789&state=StateSecret000&shop=x.myshopify.com');
      },
      logger,
    );
    const log = lines.join('');
    expect(log).toContain('"url":"/reset-password?token=[redacted]"');
    expect(log).toContain('"url":"/api/invitations/[redacted]"');
    expect(log).toContain('"url":"/api/integrations/oauth/shopify/callback?code=[redacted]&state=[redacted]&shop=x.myshopify.com"');
    for (const secret of ['ResetSecret123', 'InviteSecret456', 'CodeSecret789', 'StateSecret000']) expect(log).not.toContain(secret);
  });
});

describe('Strict-Transport-Security', () => {
  it('is sent when the request came over https through a trusted proxy, and never over plain http', async () => {
    await withApp({ TRUST_PROXY: 'true' }, async (app) => {
      const overHttps = await new ApiClient(app).request('GET', '/healthz', undefined, { 'x-forwarded-proto': 'https' });
      expect(overHttps.headers['strict-transport-security']).toBe(HSTS_VALUE);
      expect(HSTS_VALUE).toBe('max-age=31536000; includeSubDomains');
      const overHttp = await new ApiClient(app).request('GET', '/healthz', undefined, { 'x-forwarded-proto': 'http' });
      expect(overHttp.headers['strict-transport-security']).toBeUndefined();
    });
  });

  it('is not sent on a forwarded https claim the server does not trust (no TRUST_PROXY)', async () => {
    await withApp({}, async (app) => {
      const answer = await new ApiClient(app).request('GET', '/healthz', undefined, { 'x-forwarded-proto': 'https' });
      expect(answer.headers['strict-transport-security']).toBeUndefined();
    });
  });
});

describe('Cache-Control on API answers', () => {
  it('is no-store on every /trpc and /api answer to a signed-in user', async () => {
    await withApp({}, async (app) => {
      const { client, credentials } = await signedInClient(app, 'nocache');
      for (const answer of [
        await trpcQuery(client, 'auth.me'),
        await trpcQuery(client, 'settings.get'),
        await trpcQuery(client, 'subscription.plans'),
        await client.get('/api/user'),
        await client.get('/api/settings'),
      ]) {
        expect(answer.status).toBe(200);
        expect(answer.headers['cache-control']).toMatch(/\bno-store\b/);
      }
      // The sign-in answer itself already carries the signed-in user.
      const login = await new ApiClient(app).post('/trpc/auth.login', { username: credentials.username, password: credentials.password });
      expect(login.status).toBe(200);
      expect(login.headers['cache-control']).toBe('no-store');
    });
  });

  it('leaves public answers to signed-out visitors alone', async () => {
    await withApp({}, async (app) => {
      const answer = await trpcQuery(new ApiClient(app), 'subscription.plans');
      expect(answer.status).toBe(200);
      expect(answer.headers['cache-control']).toBeUndefined();
    });
  });
});
