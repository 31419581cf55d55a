import { describe, expect, it } from 'vitest';
import { ApiClient, signedInAdmin, signedInClient, uniqueUser, useTestApp } from '../../../../test/harness.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { Session } from '../sessions/session.entity.ts';
import { User } from '../users/user.entity.ts';

const testApp = useTestApp();

const NEW_PASSWORD = 'a-brand-new-passphrase';

/** A second browser of the same account. */
async function secondSignIn(username: string, password: string): Promise<ApiClient> {
  const other = new ApiClient(testApp.app, { remoteAddress: '10.9.9.9' });
  const answer = await other.post('/api/login', { username, password });
  expect(answer.status).toBe(200);
  return other;
}

describe('GET /api/settings', () => {
  it("answers the signed-in user's username, email and marketing preference", async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'settings');
    const answer = await client.get('/api/settings');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ username: credentials.username, email: credentials.email, marketingEmails: false, pendingEmail: null });
  });

  it('answers 401 when signed out', async () => {
    expect((await new ApiClient(testApp.app).get('/api/settings')).status).toBe(401);
  });
});

describe('PATCH /api/settings/account', () => {
  it('changes the username; the new username signs in', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'rename');
    const fresh = uniqueUser('renamed');
    const answer = await client.patch('/api/settings/account', { username: `  ${fresh.username} `, email: credentials.email });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ username: fresh.username, email: credentials.email, marketingEmails: false, pendingEmail: null });
    expect((await client.patch('/api/settings/account', { username: fresh.username })).status).toBe(200);

    const me = await client.get('/api/user');
    expect(me.body).toMatchObject({ id: user.id, username: fresh.username, email: credentials.email });
    const login = await new ApiClient(testApp.app).post('/api/login', { username: fresh.username, password: credentials.password });
    expect(login.status).toBe(200);
    expect((await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: credentials.password })).status).toBe(401);
  });

  it('refuses a new email address: a session alone cannot move the account (the address is changed by confirmation)', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'hijackme');
    const answer = await client.patch('/api/settings/account', { username: credentials.username, email: 'attacker@evil.test' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      message: 'To change your email address, confirm it with your password',
      errors: [{ field: 'email', message: 'To change your email address, confirm it with your password' }],
    });
    expect((await testApp.orm.em.fork().findOneOrFail(User, { id: user.id })).email).toBe(credentials.email);
  });

  it('keeps its own username and email in another case', async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'case');
    const answer = await client.patch('/api/settings/account', {
      username: credentials.username.toUpperCase(),
      email: credentials.email.toUpperCase(),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.username).toBe(credentials.username.toUpperCase());
    expect(answer.body.email).toBe(credentials.email.toUpperCase());
  });

  it("refuses another account's username (any case) with 409 and the registration text", async () => {
    const { credentials: taken } = await signedInClient(testApp.app, 'owner');
    const { client, credentials } = await signedInClient(testApp.app, 'taker');

    const sameName = await client.patch('/api/settings/account', { username: taken.username.toUpperCase(), email: credentials.email });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toEqual({
      message: 'That username is already taken',
      errors: [{ field: 'username', message: 'That username is already taken' }],
    });
    expect((await client.get('/api/settings')).body).toMatchObject({ username: credentials.username, email: credentials.email });
  });

  it.each([
    [{ username: 'ab' }, 'username', 'Username must be 3 to 32 characters'],
    [{ username: 'bad name!' }, 'username', 'Username may contain only letters, digits, underscores, dots and hyphens'],
    [{ email: 'not-an-email' }, 'email', 'Enter a valid email address'],
  ])('refuses %j with 400 and the registration field error', async (override, field, message) => {
    const { client, credentials } = await signedInClient(testApp.app, 'invalid');
    const answer = await client.patch('/api/settings/account', { username: credentials.username, email: credentials.email, ...override });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(message);
    expect(answer.body.errors).toContainEqual({ field, message });
  });
});

describe('PATCH /api/settings/preferences', () => {
  it('opts in and out of marketing e-mails, and the user record says so', async () => {
    const { client, user } = await signedInClient(testApp.app, 'prefs');
    const optIn = await client.patch('/api/settings/preferences', { marketingEmails: true });
    expect(optIn.status).toBe(200);
    expect(optIn.body.marketingEmails).toBe(true);
    expect((await client.get('/api/user')).body.marketingEmails).toBe(true);
    expect((await testApp.orm.em.fork().findOneOrFail(User, { id: user.id })).marketingEmails).toBe(true);

    expect((await client.patch('/api/settings/preferences', { marketingEmails: false })).body.marketingEmails).toBe(false);
    expect((await client.get('/api/settings')).body.marketingEmails).toBe(false);
  });

  it('refuses a value that is not a boolean', async () => {
    const { client } = await signedInClient(testApp.app, 'prefsbad');
    const answer = await client.patch('/api/settings/preferences', { marketingEmails: 'yes' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('Marketing emails must be true or false');
  });
});

describe('POST /api/settings/password', () => {
  it('refuses a wrong current password with 400 on currentPassword, and keeps the old one', async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'wrongcur');
    const answer = await client.post('/api/settings/password', {
      currentPassword: 'not-my-password',
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      message: 'Current password is incorrect',
      errors: [{ field: 'currentPassword', message: 'Current password is incorrect' }],
    });
    expect((await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: credentials.password })).status).toBe(200);
  });

  it("refuses a confirmation that differs with 400 'Passwords do not match' on confirmPassword", async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'mismatch');
    const answer = await client.post('/api/settings/password', {
      currentPassword: credentials.password,
      newPassword: NEW_PASSWORD,
      confirmPassword: `${NEW_PASSWORD}x`,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      message: 'Passwords do not match',
      errors: [{ field: 'confirmPassword', message: 'Passwords do not match' }],
    });
  });

  it('applies the registration rule to the new password (at least 10 characters)', async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'shortpw');
    const answer = await client.post('/api/settings/password', {
      currentPassword: credentials.password,
      newPassword: 'short',
      confirmPassword: 'short',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('Password must be at least 10 characters');
    expect(answer.body.errors).toContainEqual({ field: 'newPassword', message: 'Password must be at least 10 characters' });
  });

  it('changes the password, signs out the other sessions, keeps the caller signed in and audits it', async () => {
    const { client, credentials, user } = await signedInClient(testApp.app, 'change');
    const otherBrowser = await secondSignIn(credentials.username, credentials.password);
    expect((await otherBrowser.get('/api/user')).status).toBe(200);
    const cookieBefore = client.sessionCookie;

    const answer = await client.post('/api/settings/password', {
      currentPassword: credentials.password,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true });

    // The caller continues in a fresh session; the other browser is signed out.
    expect(client.sessionCookie).toBeTruthy();
    expect(client.sessionCookie).not.toBe(cookieBefore);
    expect((await client.get('/api/user')).body.id).toBe(user.id);
    expect((await otherBrowser.get('/api/user')).status).toBe(401);
    const stale = new ApiClient(testApp.app);
    stale.sessionCookie = cookieBefore;
    expect((await stale.get('/api/user')).status).toBe(401);

    const oldLogin = await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: credentials.password });
    expect(oldLogin.status).toBe(401);
    const newLogin = await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: NEW_PASSWORD });
    expect(newLogin.status).toBe(200);

    const row = await testApp.orm.em.fork().findOneOrFail(User, { id: user.id }, { populate: ['passwordHash'] });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    const audit = await testApp.orm.em.fork().find(AuditLogEntry, { targetUserId: user.id, action: 'password.changed' });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorUserId: user.id, ipAddress: '127.0.0.1' });
  });

  it("leaves other users' sessions alone", async () => {
    const bystander = await signedInClient(testApp.app, 'bystander');
    const { client, credentials } = await signedInClient(testApp.app, 'changer');
    await client.post('/api/settings/password', { currentPassword: credentials.password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect((await bystander.client.get('/api/user')).status).toBe(200);
    const sessions = await testApp.orm.em.fork().find(Session, {});
    expect(sessions.some((session) => session.data.userId === bystander.user.id)).toBe(true);
  });

  it('answers 429 after five wrong current passwords in a row', async () => {
    const { client, credentials } = await signedInClient(testApp.app, 'guess');
    const attempt = (currentPassword: string) =>
      client.post('/api/settings/password', { currentPassword, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    for (let i = 0; i < 5; i += 1) expect((await attempt(`guess-number-${i}`)).status).toBe(400);
    const blocked = await attempt(credentials.password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.message).toMatch(/^Too many incorrect passwords\. Please try again in \d+ minutes?\.$/);
  });
});

describe('guest mode', () => {
  it('lets an admin read the viewed user\'s settings but refuses every change', async () => {
    const viewed = await signedInClient(testApp.app, 'viewed');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: viewed.user.id })).status).toBe(200);

    expect((await admin.client.get('/api/settings')).body.username).toBe(viewed.credentials.username);
    const attempts = [
      await admin.client.patch('/api/settings/account', { username: 'hijacked_name', email: 'hijack@example.com' }),
      await admin.client.patch('/api/settings/preferences', { marketingEmails: true }),
      await admin.client.post('/api/settings/email', { newEmail: 'hijack@example.com', currentPassword: viewed.credentials.password }),
      await admin.client.post('/api/settings/password', {
        currentPassword: viewed.credentials.password,
        newPassword: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403);
      expect(attempt.body).toEqual({ message: 'Guest mode is read-only' });
    }
    expect((await viewed.client.get('/api/settings')).body).toEqual({
      username: viewed.credentials.username,
      email: viewed.credentials.email,
      marketingEmails: false,
      pendingEmail: null,
    });
  });
});
