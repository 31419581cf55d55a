import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ownerWithStore } from '../../../../test/guests.ts';
import { ApiClient, signedInClient, testServices, uniqueUser, useTestDatabase } from '../../../../test/harness.ts';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';

const database = useTestDatabase();

async function latestLink(email: string, template: 'password_reset' | 'guest_invitation'): Promise<string> {
  const sent = await database.orm.em.fork().findOneOrFail(OutboundEmail, { toAddress: email, template }, { orderBy: { id: 'desc' } });
  return /(\S*\/(?:reset-password|accept-invite)\?token=\S+)/.exec(sent.textBody)![1]!;
}

async function appWith(env: Record<string, string>): Promise<FastifyInstance> {
  return buildApp({
    config: { ...loadConfig({ LOG_LEVEL: 'silent', ...env }), sessionSecret: 's'.repeat(40) },
    orm: database.orm,
    services: testServices(),
    logger: false,
  });
}

async function withApp(env: Record<string, string>, body: (app: FastifyInstance) => Promise<void>): Promise<void> {
  const app = await appWith(env);
  try {
    await body(app);
  } finally {
    await app.close();
  }
}

const EVIL = { host: 'evil.test' };

// The tests run in order on one database: the first-seen origin is stored by the second one.
describe('links in e-mails', () => {
  it('use PUBLIC_URL, whatever Host header the request carried', async () => {
    await withApp({ PUBLIC_URL: 'https://app.storepulse.example/' }, async (app) => {
      const { credentials } = await signedInClient(app, 'poison');
      const answer = await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, EVIL);
      expect(answer.status).toBe(200);
      expect(await latestLink(credentials.email, 'password_reset')).toMatch(/^https:\/\/app\.storepulse\.example\/reset-password\?token=/);
    });
  });

  it('without PUBLIC_URL use the origin of the first registration or sign-in, never a stranger\'s earlier request or a later Host header (reset and invitation links)', async () => {
    await withApp({}, async (app) => {
      // Strangers reach the installation first with a forged Host: a scanner's GET, a failed sign-in.
      // Neither is a registration or a sign-in, so neither chooses where links lead.
      expect((await new ApiClient(app).request('GET', '/api/user', undefined, EVIL)).status).toBe(401);
      expect((await new ApiClient(app).request('POST', '/api/login', { username: 'nobody-here', password: 'wrong password' }, EVIL)).status).toBe(401);

      // The first registration comes to localhost:3000: that origin is stored.
      const first = new ApiClient(app);
      const credentials = uniqueUser('first');
      expect((await first.request('POST', '/api/register', credentials, { host: 'localhost:3000' })).status).toBe(201);

      // Someone asks for the victim's reset link with Host: evil.test; the link still points here.
      expect((await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, EVIL)).status).toBe(200);
      expect(await latestLink(credentials.email, 'password_reset')).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=[A-Za-z0-9_-]{43}$/);

      // An invitation sent through a request with another Host: the same origin.
      const owner = await ownerWithStore(app, database.orm, 'Origin shop');
      const invitee = uniqueUser('invitee');
      const invited = await owner.client.request('POST', '/api/guests/invitations', { storeId: owner.store.id, email: invitee.email }, EVIL);
      expect(invited.status, JSON.stringify(invited.body)).toBe(201);
      expect(await latestLink(invitee.email, 'guest_invitation')).toMatch(/^http:\/\/localhost:3000\/accept-invite\?token=/);
    });

    // Stored in the database: a restarted server keeps it.
    await withApp({}, async (app) => {
      const { credentials } = await signedInClient(app, 'restart');
      await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, EVIL);
      expect(await latestLink(credentials.email, 'password_reset')).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=/);
    });
  });

  it('with ALLOWED_HOSTS refuse any other Host with 400 before anything is sent, and link to the allowed one used', async () => {
    await withApp({ ALLOWED_HOSTS: 'app.example.test, 192.168.1.20:3000' }, async (app) => {
      const allowed = { host: 'app.example.test:8080' };
      const client = new ApiClient(app);
      const credentials = uniqueUser('allowed');
      expect((await client.request('POST', '/api/register', credentials, allowed)).status).toBe(201);

      const before = await database.orm.em.fork().count(OutboundEmail, { toAddress: credentials.email });
      const refused = await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, EVIL);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ message: 'This server does not answer for that host name' });
      expect(await database.orm.em.fork().count(OutboundEmail, { toAddress: credentials.email })).toBe(before);
      // An entry with a port allows that port only.
      expect((await new ApiClient(app).request('GET', '/api/subscription/plans', undefined, { host: '192.168.1.20:4000' })).status).toBe(400);
      expect((await new ApiClient(app).request('GET', '/api/subscription/plans', undefined, { host: '192.168.1.20:3000' })).status).toBe(200);
      // The health check answers whatever name a probe uses.
      expect((await new ApiClient(app).request('GET', '/healthz', undefined, EVIL)).status).toBe(200);

      expect((await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, allowed)).status).toBe(200);
      expect(await latestLink(credentials.email, 'password_reset')).toMatch(/^http:\/\/app\.example\.test:8080\/reset-password\?token=/);
    });
  });
});
