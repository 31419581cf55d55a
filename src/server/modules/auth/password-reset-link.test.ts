import { describe, expect, it } from 'vitest';
import { ApiClient, signedInClient, testServices, useTestDatabase } from '../../../../test/harness.ts';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';

const database = useTestDatabase();

async function resetLinkFor(email: string): Promise<string> {
  const sent = await database.orm.em.fork().findOneOrFail(OutboundEmail, { toAddress: email, template: 'password_reset' }, { orderBy: { id: 'desc' } });
  return /(\S*\/reset-password\?token=\S+)/.exec(sent.textBody)![1]!;
}

describe('links in e-mails', () => {
  it('use PUBLIC_URL, whatever Host header the request carried', async () => {
    const app = await buildApp({
      config: { ...loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: 'https://app.storepulse.example/' }), sessionSecret: 's'.repeat(40) },
      orm: database.orm,
      services: testServices(),
      logger: false,
    });
    try {
      const { credentials } = await signedInClient(app, 'poison');
      const answer = await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, { host: 'evil.example' });
      expect(answer.status).toBe(200);
      expect(await resetLinkFor(credentials.email)).toMatch(/^https:\/\/app\.storepulse\.example\/reset-password\?token=/);
    } finally {
      await app.close();
    }
  });

  it('fall back to the request origin without PUBLIC_URL', async () => {
    const app = await buildApp({
      config: { ...loadConfig({ LOG_LEVEL: 'silent' }), sessionSecret: 's'.repeat(40) },
      orm: database.orm,
      services: testServices(),
      logger: false,
    });
    try {
      const { credentials } = await signedInClient(app, 'origin');
      await new ApiClient(app).request('POST', '/api/forgot-password', { email: credentials.email }, { host: 'localhost:3000' });
      expect(await resetLinkFor(credentials.email)).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=/);
    } finally {
      await app.close();
    }
  });
});
