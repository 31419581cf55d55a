import { describe, expect, it, vi } from 'vitest';
import { ApiClient, signedInAdmin, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { runAdminCommand } from '../../../scripts/admin-commands.ts';
import { fillPlaceholders, redactSecrets, sendEmail } from './email.service.ts';
import { OutboundEmail } from './outbound-email.entity.ts';

const testApp = useTestApp();

const quiet = () => {};

describe('e-mail templates and outbox', () => {
  it('fills {{placeholders}} and leaves unknown ones', () => {
    expect(fillPlaceholders('Hi {{ name }}, {{missing}} {{n}}', { name: 'Ann', n: 3 })).toBe('Hi Ann, {{missing}} 3');
  });

  it('records a sent e-mail in the outbox, rendered from the template in force', async () => {
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    await sendEmail(testApp.orm.em.fork(), { to: 'ann@example.com', template: 'contact_confirmation', variables: { name: 'Ann', message: 'Hello' } }, quiet);
    const outbox = await admin.client.get('/api/admin/emails?to=ann@example.com');
    expect(outbox.status).toBe(200);
    expect(outbox.body[0]).toMatchObject({ toAddress: 'ann@example.com', template: 'contact_confirmation', status: 'logged', subject: 'We received your message' });
    expect(outbox.body[0].textBody).toContain('Hello Ann,');

    const changed = await admin.client.request('PUT', '/api/admin/email-templates/contact_confirmation', { subject: 'Thanks, {{name}}!', textBody: 'Got it: {{message}}' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ customized: true, variables: ['name', 'message'] });
    await sendEmail(testApp.orm.em.fork(), { to: 'ann@example.com', template: 'contact_confirmation', variables: { name: 'Ann', message: 'Again' } }, quiet);
    const latest = (await admin.client.get('/api/admin/emails?to=ann@example.com&limit=1')).body;
    expect(latest).toEqual([expect.objectContaining({ subject: 'Thanks, Ann!', textBody: 'Got it: Again' })]);

    const reset = await admin.client.delete('/api/admin/email-templates/contact_confirmation');
    expect(reset.body).toMatchObject({ customized: false, subject: 'We received your message' });
    expect((await admin.client.request('PUT', '/api/admin/email-templates/nope', { subject: 'x', textBody: 'y' })).status).toBe(404);
    const blank = await admin.client.request('PUT', '/api/admin/email-templates/password_reset', { subject: ' ', textBody: 'y' });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe('Subject is required');

    expect(await runAdminCommand(['outbox', '--to', 'ann@example.com', '--limit', '1'], testApp.orm.em.fork())).toMatch(/to ann@example\.com\nSubject: Thanks, Ann!/);
  });

  it('is for admins only', async () => {
    const { client } = await signedInClient(testApp.app, 'notadmin');
    expect((await client.get('/api/admin/emails')).status).toBe(403);
    expect((await client.get('/api/admin/email-templates')).status).toBe(403);
  });
});

describe('links with tokens', () => {
  it('the stored e-mail keeps its working reset link; the server log and the admins\' outbox show it without the token', async () => {
    const { credentials } = await signedInClient(testApp.app, 'tokenowner');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'info').mockImplementation((message: unknown) => void logged.push(String(message)));
    try {
      expect((await new ApiClient(testApp.app).post('/api/forgot-password', { email: credentials.email })).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    const stored = await testApp.orm.em.fork().findOneOrFail(OutboundEmail, { toAddress: credentials.email, template: 'password_reset' });
    const token = /\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(stored.textBody)![1]!;

    // The link is live: it is what will be delivered.
    expect((await new ApiClient(testApp.app).post('/api/reset-password', { token, newPassword: 'a-fresh-passphrase', confirmPassword: 'a-fresh-passphrase' })).status).toBe(200);

    const log = logged.join('\n');
    expect(log).toContain(`[email] to ${credentials.email}: Reset your StorePulse password`);
    expect(log).toContain('/reset-password?token=[redacted]');
    expect(log).not.toContain(token);

    const outbox = await admin.client.get(`/api/admin/emails?to=${encodeURIComponent(credentials.email)}`);
    expect(outbox.status).toBe(200);
    expect(outbox.body[0].textBody).toContain('/reset-password?token=[redacted]');
    expect(JSON.stringify(outbox.body)).not.toContain(token);
    const overTrpc = await admin.client.get(`/trpc/email.outbox?input=${encodeURIComponent(JSON.stringify({ to: credentials.email }))}`);
    expect(JSON.stringify(overTrpc.body)).not.toContain(token);

    // Whoever runs the server (and holds its database) reads the whole link with the admin CLI.
    expect(await runAdminCommand(['outbox', '--to', credentials.email, '--limit', '1'], testApp.orm.em.fork())).toContain(`/reset-password?token=${token}`);
  });

  it('redactSecrets blanks token, code and state values and invitation tokens in API paths, and nothing else', () => {
    expect(redactSecrets('Open https://app.example/reset-password?token=abc_DEF-123 now')).toBe('Open https://app.example/reset-password?token=[redacted] now');
    expect(redactSecrets('/accept-invite?token=xyz&lang=en')).toBe('/accept-invite?token=[redacted]&lang=en');
    expect(redactSecrets('/api/integrations/oauth/shopify/callback?code=c0de&shop=x.myshopify.com&state=5747e&hmac=ab')).toBe(
      '/api/integrations/oauth/shopify/callback?code=[redacted]&shop=x.myshopify.com&state=[redacted]&hmac=ab',
    );
    expect(redactSecrets('/api/integrations/oauth/tiktokads/callback?auth_code=t1&state=s1')).toBe('/api/integrations/oauth/tiktokads/callback?auth_code=[redacted]&state=[redacted]');
    expect(redactSecrets('/api/invitations/SeCrEt/accept')).toBe('/api/invitations/[redacted]/accept');
    expect(redactSecrets('/api/stores?limit=5')).toBe('/api/stores?limit=5');
  });
});
