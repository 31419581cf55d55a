import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiClient, signedInClient, useTestApp } from '../../../../test/harness.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { PasswordResetToken } from './password-reset-token.entity.ts';

const testApp = useTestApp();

const NEUTRAL = { message: "If an account exists for that email, we've sent a link to reset your password." };
const INVALID_LINK = 'This reset link is invalid or has expired.';
const NEW_PASSWORD = 'my-new-reset-passphrase';

// The request limiter lives for the whole process (5 per IP per 15 min): each test asks from its own address.
let addressCounter = 0;
function freshClient(): ApiClient {
  addressCounter += 1;
  return new ApiClient(testApp.app, { remoteAddress: `10.1.${Math.floor(addressCounter / 250)}.${addressCounter % 250}` });
}

async function emailsTo(address: string) {
  return testApp.orm.em.fork().find(OutboundEmail, { toAddress: address }, { orderBy: { id: 'desc' } });
}

/** Asks for a link and reads the token out of the e-mail, as the user would. */
async function requestLink(email: string): Promise<{ token: string; url: string }> {
  const answer = await freshClient().post('/api/forgot-password', { email });
  expect(answer.status).toBe(200);
  const [latest] = await emailsTo(email);
  const url = /(\S*\/reset-password\?token=(\S+))/.exec(latest!.textBody);
  expect(url).not.toBeNull();
  return { url: url![1]!, token: decodeURIComponent(url![2]!) };
}

describe('POST /api/forgot-password', () => {
  it('e-mails a reset link valid for 60 minutes and stores only the SHA-256 of its token', async () => {
    const { credentials, user } = await signedInClient(testApp.app, 'forgot');
    const before = Date.now();
    const answer = await freshClient().post('/api/forgot-password', { email: `  ${credentials.email.toUpperCase()} ` });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(NEUTRAL);

    const emails = await emailsTo(credentials.email);
    expect(emails).toHaveLength(1);
    const email = emails[0]!;
    expect(email).toMatchObject({ template: 'password_reset', subject: 'Reset your StorePulse password', status: 'logged', userId: user.id });
    expect(email.textBody).toContain(`Hello ${credentials.username},`);
    expect(email.textBody).toContain('within 60 minutes');
    const match = /(http:\/\/localhost(?::80)?)\/reset-password\?token=([A-Za-z0-9_-]{43})\s/.exec(email.textBody);
    expect(match).not.toBeNull();
    const token = match![2]!;

    const rows = await testApp.orm.em.fork().find(PasswordResetToken, { user: user.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(rows[0]!.tokenHash).not.toContain(token);
    expect(rows[0]!.usedAt).toBeNull();
    const validFor = rows[0]!.expiresAt.getTime() - before;
    expect(validFor).toBeGreaterThan(59 * 60_000);
    expect(validFor).toBeLessThanOrEqual(60 * 60_000 + 5_000);
  });

  it('gives the same answer for an unknown address, and sends nothing', async () => {
    const address = 'nobody-at-all@example.com';
    const answer = await freshClient().post('/api/forgot-password', { email: address });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(NEUTRAL);
    expect(await emailsTo(address)).toHaveLength(0);
  });

  it('refuses an address that is not an e-mail with 400', async () => {
    const answer = await freshClient().post('/api/forgot-password', { email: 'not-an-email' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('Enter a valid email address');
  });

  it('answers 429 with Retry-After after 5 requests from one address in 15 minutes', async () => {
    const client = freshClient();
    for (let i = 0; i < 5; i += 1) {
      expect((await client.post('/api/forgot-password', { email: `someone${i}@example.com` })).status).toBe(200);
    }
    const blocked = await client.post('/api/forgot-password', { email: 'someone-else@example.com' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.message).toMatch(/^Too many password reset requests\. Please try again in \d+ minutes?\.$/);
    expect((await freshClient().post('/api/forgot-password', { email: 'someone-else@example.com' })).status).toBe(200);
  });

  it('answers 429 after 3 requests for one e-mail in an hour, from whatever address, and mails only 3 links', async () => {
    const { credentials } = await signedInClient(testApp.app, 'flood');
    for (let i = 0; i < 3; i += 1) expect((await freshClient().post('/api/forgot-password', { email: credentials.email })).status).toBe(200);
    const blocked = await freshClient().post('/api/forgot-password', { email: credentials.email.toUpperCase() });
    expect(blocked.status).toBe(429);
    expect(await emailsTo(credentials.email)).toHaveLength(3);
  });
});

describe('POST /api/reset-password', () => {
  it('sets the new password, spends the link, signs the account out everywhere and audits it', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'reset');
    const { token } = await requestLink(credentials.email);

    const answer = await freshClient().post('/api/reset-password', { token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true });

    expect((await client.get('/api/user')).status).toBe(401);
    expect((await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: credentials.password })).status).toBe(401);
    const login = await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: NEW_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.id).toBe(user.id);

    const again = await freshClient().post('/api/reset-password', { token, newPassword: 'yet-another-password', confirmPassword: 'yet-another-password' });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(INVALID_LINK);

    const audit = await testApp.orm.em.fork().find(AuditLogEntry, { targetUserId: user.id, action: 'password.reset' });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorUserId).toBe(user.id);
  });

  it('spends every other open link of the account too', async () => {
    const { credentials, user } = await signedInClient(testApp.app, 'twolinks');
    const first = await requestLink(credentials.email);
    const second = await requestLink(credentials.email);
    expect(first.token).not.toBe(second.token);

    expect((await freshClient().post('/api/reset-password', { token: second.token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })).status).toBe(200);
    const stale = await freshClient().post('/api/reset-password', { token: first.token, newPassword: 'other-password-123', confirmPassword: 'other-password-123' });
    expect(stale.status).toBe(400);
    expect(stale.body.message).toBe(INVALID_LINK);
    const rows = await testApp.orm.em.fork().find(PasswordResetToken, { user: user.id });
    expect(rows.every((row) => row.usedAt !== null)).toBe(true);
  });

  it('refuses an expired link and keeps the password', async () => {
    const { credentials, user } = await signedInClient(testApp.app, 'expired');
    const { token } = await requestLink(credentials.email);
    await testApp.orm.em.fork().nativeUpdate(PasswordResetToken, { user: user.id }, { expiresAt: new Date(Date.now() - 1000) });

    const answer = await freshClient().post('/api/reset-password', { token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ message: INVALID_LINK, errors: [{ field: 'token', message: INVALID_LINK }] });
    expect((await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: credentials.password })).status).toBe(200);
  });

  it.each([['an unknown token', 'A'.repeat(43)], ['an empty token', ''], ['a missing token', undefined]])(
    'refuses %s with the invalid-link text',
    async (_label, token) => {
      const answer = await freshClient().post('/api/reset-password', { token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe(INVALID_LINK);
    },
  );

  it("refuses a confirmation that differs with 'Passwords do not match', and the link still works afterwards", async () => {
    const { credentials } = await signedInClient(testApp.app, 'resetmismatch');
    const { token } = await requestLink(credentials.email);
    const answer = await freshClient().post('/api/reset-password', { token, newPassword: NEW_PASSWORD, confirmPassword: 'something-else-entirely' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ message: 'Passwords do not match', errors: [{ field: 'confirmPassword', message: 'Passwords do not match' }] });

    const short = await freshClient().post('/api/reset-password', { token, newPassword: 'short', confirmPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe('Password must be at least 10 characters');

    expect((await freshClient().post('/api/reset-password', { token, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })).status).toBe(200);
  });

  it('lets only one of two simultaneous uses of a link through', async () => {
    const { credentials } = await signedInClient(testApp.app, 'race');
    const { token } = await requestLink(credentials.email);
    const answers = await Promise.all(
      ['first-racing-password', 'second-racing-password'].map((password) =>
        freshClient().post('/api/reset-password', { token, newPassword: password, confirmPassword: password }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });
});
