import { describe, expect, it } from 'vitest';
import { signedInAdmin, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { runAdminCommand } from '../../../scripts/admin-commands.ts';
import { fillPlaceholders, sendEmail } from './email.service.ts';

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
