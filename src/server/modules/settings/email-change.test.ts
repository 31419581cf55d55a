import { describe, expect, it } from 'vitest';
import { ApiClient, signedInClient, uniqueUser, useTestApp } from '../../../../test/harness.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { User } from '../users/user.entity.ts';
import { EmailChangeRequest } from './email-change-request.entity.ts';

const testApp = useTestApp();

const HOUR_MS = 60 * 60_000;
const INVALID_LINK = 'This confirmation link is invalid or has expired.';

async function sentTo(address: string, template: string) {
  return testApp.orm.em.fork().find(OutboundEmail, { toAddress: address, template }, { orderBy: { id: 'desc' } });
}

/** The token of the latest confirmation link e-mailed to this address. */
async function confirmationToken(address: string): Promise<string> {
  const [latest] = await sentTo(address, 'email_change_confirmation');
  const token = /\/confirm-email\?token=([A-Za-z0-9_-]{43})\n/.exec(latest?.textBody ?? '')?.[1];
  if (!token) throw new Error(`No confirmation link e-mailed to ${address}`);
  return token;
}

function confirm(token: string, client = new ApiClient(testApp.app)) {
  return client.post('/api/settings/email/confirm', { token });
}

async function emailOf(userId: number): Promise<string> {
  return (await testApp.orm.em.fork().findOneOrFail(User, { id: userId })).email;
}

describe('changing the e-mail address', () => {
  it('needs the current password, e-mails a link to the new address and a notice to the old one, and changes only when the link is opened', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'mover');
    const newEmail = uniqueUser('moved').email;

    const wrong = await client.post('/api/settings/email', { newEmail, currentPassword: 'stolen-session-no-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ message: 'Current password is incorrect', errors: [{ field: 'currentPassword', message: 'Current password is incorrect' }] });
    const missing = await client.post('/api/settings/email', { newEmail });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ field: 'currentPassword', message: 'Current password is required' }]);
    expect(await sentTo(newEmail, 'email_change_confirmation')).toHaveLength(0);

    const before = Date.now();
    const requested = await client.post('/api/settings/email', { newEmail, currentPassword: credentials.password });
    expect(requested.status, JSON.stringify(requested.body)).toBe(200);
    expect(requested.body.pendingEmail).toBe(newEmail);
    // The link works for 24 hours: 24 x 3,600,000 ms after the request.
    const expiresAt = Date.parse(requested.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);

    // Nothing changed yet; the settings say what is waiting.
    expect(await emailOf(user.id)).toBe(credentials.email);
    expect((await client.get('/api/settings')).body).toMatchObject({ email: credentials.email, pendingEmail: newEmail });
    const [notice] = await sentTo(credentials.email, 'email_change_notice');
    expect(notice?.textBody).toContain(`asked to change its e-mail address to ${newEmail}`);
    expect(notice?.textBody).not.toContain('token=');

    // Opened anywhere, even signed out: the account takes the new address, once.
    const token = await confirmationToken(newEmail);
    const confirmed = await confirm(token);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ email: newEmail });
    expect(await emailOf(user.id)).toBe(newEmail);
    expect((await client.get('/api/user')).body.email).toBe(newEmail);
    expect((await client.get('/api/settings')).body.pendingEmail).toBeNull();
    const again = await confirm(token);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(INVALID_LINK);

    // The new address signs in; the audit log has both steps.
    expect((await new ApiClient(testApp.app).post('/api/login', { username: newEmail, password: credentials.password })).status).toBe(200);
    const audit = await testApp.orm.em.fork().find(AuditLogEntry, { targetUserId: user.id }, { orderBy: { id: 'asc' } });
    expect(audit.map((entry) => [entry.action, entry.details])).toEqual([
      ['email.change_requested', { newEmail }],
      ['email.changed', { from: credentials.email, to: newEmail }],
    ]);
  });

  it('a link stops working after 24 hours, and when a newer request replaces it', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'expiry');
    const first = uniqueUser('first').email;
    expect((await client.post('/api/settings/email', { newEmail: first, currentPassword: credentials.password })).status).toBe(200);
    const firstToken = await confirmationToken(first);
    const second = uniqueUser('second').email;
    expect((await client.post('/api/settings/email', { newEmail: second, currentPassword: credentials.password })).status).toBe(200);
    expect((await confirm(firstToken)).body.message).toBe(INVALID_LINK);
    expect((await client.get('/api/settings')).body.pendingEmail).toBe(second);

    // A day later (the expiry moved into the past) the second link is dead too.
    await testApp.orm.em.fork().nativeUpdate(EmailChangeRequest, { user: user.id, usedAt: null }, { expiresAt: new Date(Date.now() - 1) });
    const expired = await confirm(await confirmationToken(second));
    expect(expired.status).toBe(400);
    expect(expired.body.message).toBe(INVALID_LINK);
    expect(await emailOf(user.id)).toBe(credentials.email);
    expect((await client.get('/api/settings')).body.pendingEmail).toBeNull();
  });

  it('changing the password, resetting it or withdrawing the request closes the link', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'owner');
    const attacker = uniqueUser('attacker').email;
    expect((await client.post('/api/settings/email', { newEmail: attacker, currentPassword: credentials.password })).status).toBe(200);
    const token = await confirmationToken(attacker);
    const newPassword = 'the-owner-takes-it-back';
    expect((await client.post('/api/settings/password', { currentPassword: credentials.password, newPassword, confirmPassword: newPassword })).status).toBe(200);
    expect((await confirm(token)).body.message).toBe(INVALID_LINK);
    expect(await emailOf(user.id)).toBe(credentials.email);

    const other = uniqueUser('other').email;
    expect((await client.post('/api/settings/email', { newEmail: other, currentPassword: newPassword })).status).toBe(200);
    expect((await new ApiClient(testApp.app).post('/api/forgot-password', { email: credentials.email })).status).toBe(200);
    const [reset] = await sentTo(credentials.email, 'password_reset');
    const resetToken = /\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(reset!.textBody)![1]!;
    expect((await new ApiClient(testApp.app).post('/api/reset-password', { token: resetToken, newPassword: 'reset-by-the-owner', confirmPassword: 'reset-by-the-owner' })).status).toBe(200);
    expect((await confirm(await confirmationToken(other))).body.message).toBe(INVALID_LINK);

    const signedIn = new ApiClient(testApp.app);
    expect((await signedIn.post('/api/login', { username: credentials.username, password: 'reset-by-the-owner' })).status).toBe(200);
    const third = uniqueUser('third').email;
    expect((await signedIn.post('/api/settings/email', { newEmail: third, currentPassword: 'reset-by-the-owner' })).status).toBe(200);
    const withdrawn = await signedIn.delete('/api/settings/email');
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.pendingEmail).toBeNull();
    expect((await confirm(await confirmationToken(third))).body.message).toBe(INVALID_LINK);
    expect(await emailOf(user.id)).toBe(credentials.email);
  });

  it("refuses the account's own address, and another account's (also when it is taken before the link is opened)", async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'taker');
    const { credentials: other } = await signedInClient(testApp.app, 'holder');
    const own = await client.post('/api/settings/email', { newEmail: credentials.email.toUpperCase(), currentPassword: credentials.password });
    expect(own.status).toBe(400);
    expect(own.body.errors).toEqual([{ field: 'newEmail', message: 'That is already your email address' }]);
    const taken = await client.post('/api/settings/email', { newEmail: other.email, currentPassword: credentials.password });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toEqual([{ field: 'newEmail', message: 'An account with that email already exists' }]);

    const wanted = uniqueUser('wanted');
    expect((await client.post('/api/settings/email', { newEmail: wanted.email, currentPassword: credentials.password })).status).toBe(200);
    const token = await confirmationToken(wanted.email);
    expect((await new ApiClient(testApp.app).post('/api/register', wanted)).status).toBe(201);
    const late = await confirm(token);
    expect(late.status).toBe(409);
    expect(late.body.message).toBe('An account with that email already exists');
  });
});
