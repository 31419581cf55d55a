import { describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, signedInClient, testServices, uniqueUser, useTestApp } from '../../../../test/harness.ts';
import { User } from '../users/user.entity.ts';

const testApp = useTestApp();

describe('POST /api/register', () => {
  it('creates the account, answers 201 with the user and signs them in', async () => {
    const client = new ApiClient(testApp.app);
    const credentials = uniqueUser('reg');
    const answer = await client.post('/api/register', credentials);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ username: credentials.username, email: credentials.email, isAdmin: false, isGuest: false });
    expect(answer.body).not.toHaveProperty('passwordHash');
    expect(answer.headers['set-cookie']).toMatch(/analytics\.sid=.*HttpOnly.*SameSite=Lax/);

    const me = await client.get('/api/user');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(answer.body.id);
  });

  it('stores an argon2id hash, never the password', async () => {
    const { credentials } = await signedInClient(testApp.app, 'hash');
    const row = await testApp.orm.em.fork().findOneOrFail(User, { username: credentials.username }, { populate: ['passwordHash'] });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain(credentials.password);
  });

  it.each([
    [{ username: 'ab' }, 'username', 'Username must be 3 to 32 characters'],
    [{ username: 'a'.repeat(33) }, 'username', 'Username must be 3 to 32 characters'],
    [{ username: 'bad name!' }, 'username', 'Username may contain only letters, digits, underscores, dots and hyphens'],
    [{ email: 'not-an-email' }, 'email', 'Enter a valid email address'],
    [{ password: 'short' }, 'password', 'Password must be at least 10 characters'],
  ])('refuses %j with 400 and the field error', async (override, field, message) => {
    const answer = await new ApiClient(testApp.app).post('/api/register', { ...uniqueUser('bad'), ...override });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(message);
    expect(answer.body.errors).toContainEqual({ field, message });
  });

  it('lists every invalid field at once', async () => {
    const answer = await new ApiClient(testApp.app).post('/api/register', { username: 'x', email: 'nope', password: '1' });
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['email', 'password', 'username']);
  });

  it('refuses a taken username (any case) or email with 409 and keeps the first account', async () => {
    const { credentials } = await signedInClient(testApp.app, 'taken');
    const sameName = await new ApiClient(testApp.app).post('/api/register', { ...uniqueUser('x'), username: credentials.username.toUpperCase() });
    expect(sameName.status).toBe(409);
    expect(sameName.body.message).toBe('That username is already taken');

    const sameEmail = await new ApiClient(testApp.app).post('/api/register', { ...uniqueUser('y'), email: credentials.email.toUpperCase() });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body.message).toBe('An account with that email already exists');

    const login = await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: credentials.password });
    expect(login.status).toBe(200);
  });

  it('answers 400 with a message for a body that is not JSON', async () => {
    const answer = await new ApiClient(testApp.app).request('POST', '/api/register', '{"username":', { 'content-type': 'application/json' });
    expect(answer.status).toBe(400);
    expect(typeof answer.body.message).toBe('string');
    expect(JSON.stringify(answer.body)).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });
});

describe('POST /api/login', () => {
  it('signs in by username or by email, in any case', async () => {
    const { credentials, user } = await signedInClient(testApp.app, 'login');
    for (const username of [credentials.username, credentials.email.toUpperCase()]) {
      const client = new ApiClient(testApp.app);
      const answer = await client.post('/api/login', { username, password: credentials.password });
      expect(answer.status).toBe(200);
      expect(answer.body.id).toBe(user.id);
      expect((await client.get('/api/user')).body.username).toBe(credentials.username);
    }
  });

  it('gives the same 401 text for a wrong password and an unknown user', async () => {
    const { credentials } = await signedInClient(testApp.app, 'wrong');
    const wrongPassword = await new ApiClient(testApp.app).post('/api/login', { username: credentials.username, password: 'not-the-password' });
    const unknownUser = await new ApiClient(testApp.app).post('/api/login', { username: 'nobody-here', password: 'whatever-password' });
    expect(wrongPassword.status).toBe(401);
    expect(unknownUser.status).toBe(401);
    expect(wrongPassword.body).toEqual({ message: 'Invalid username or password' });
    expect(unknownUser.body).toEqual({ message: 'Invalid username or password' });
  });

  it('rotates the session id at sign-in', async () => {
    const { credentials } = await signedInClient(testApp.app, 'rotate');
    const client = new ApiClient(testApp.app);
    await client.post('/api/login', { username: credentials.username, password: 'wrong-password!' });
    // Plant a session first (a signed-in one from elsewhere), then sign in: the id must change.
    const planted = (await signedInClient(testApp.app, 'planted')).client.sessionCookie;
    client.sessionCookie = planted;
    await client.post('/api/login', { username: credentials.username, password: credentials.password });
    expect(client.sessionCookie).toBeTruthy();
    expect(client.sessionCookie).not.toBe(planted);
    const stale = new ApiClient(testApp.app);
    stale.sessionCookie = planted;
    expect((await stale.get('/api/user')).status).toBe(401);
  });
});

describe('sessions', () => {
  it('survive a server restart because they live in PostgreSQL', async () => {
    const { client, user } = await signedInClient(testApp.app, 'restart');
    const restarted = await createTestApp(testApp.orm);
    try {
      const again = new ApiClient(restarted);
      again.sessionCookie = client.sessionCookie;
      const me = await again.get('/api/user');
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(user.id);
    } finally {
      await restarted.close();
    }
  });

  it('restart their 30 days with use, rewritten at most once a day rather than on every request', async () => {
    const DAY_MS = 24 * 60 * 60 * 1000;
    const { client, user } = await signedInClient(testApp.app, 'renew');
    const connection = testApp.orm.em.getConnection();
    const storedSession = async () => {
      const [row] = await connection.execute<{ sid: string; expires_at: string }[]>(
        `select sid, expires_at from sessions where (data->>'userId')::int = ?`,
        [user.id],
      );
      return row!;
    };
    const signedIn = await storedSession();

    const used = await client.get('/api/user');
    expect(used.status).toBe(200);
    expect(used.headers['set-cookie']).toBeUndefined();
    expect((await storedSession()).expires_at).toEqual(signedIn.expires_at);

    // Last written two days ago: the next request writes it again, ending 30 days from now.
    const twoDaysOld = new Date(Date.now() + 28 * DAY_MS);
    await connection.execute(
      `update sessions set expires_at = ?, data = jsonb_set(data::jsonb, '{cookie,expires}', to_jsonb(?::text))::json where sid = ?`,
      [twoDaysOld, twoDaysOld.toISOString(), signedIn.sid],
    );
    const renewed = await client.get('/api/user');
    expect(renewed.status).toBe(200);
    expect(renewed.headers['set-cookie']).toMatch(/analytics\.sid=.*Expires=/);
    const after = await storedSession();
    expect(after.sid).toBe(signedIn.sid);
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now() + 29.9 * DAY_MS);
    expect((await client.get('/api/user')).status).toBe(200);
  });

  it('GET /api/user answers 401 when signed out', async () => {
    const answer = await new ApiClient(testApp.app).get('/api/user');
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBeTruthy();
  });

  it('GET /api/logout destroys the session and redirects to /auth', async () => {
    const { client } = await signedInClient(testApp.app, 'logout');
    const cookieBefore = client.sessionCookie;
    const answer = await client.get('/api/logout');
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/auth');
    const replay = new ApiClient(testApp.app);
    replay.sessionCookie = cookieBefore;
    expect((await replay.get('/api/user')).status).toBe(401);
  });

  it('refuses state-changing requests from another origin', async () => {
    const { client } = await signedInClient(testApp.app, 'csrf');
    const foreign = await client.request('POST', '/api/stores', { name: 'Evil' }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const crossSite = await client.request('POST', '/api/stores', { name: 'Evil' }, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect((await client.get('/api/stores')).body).toEqual([]);
    const sameOrigin = await client.request('POST', '/api/stores', { name: 'Mine' }, { origin: 'http://localhost:80' });
    expect(sameOrigin.status).toBe(201);
    // A form posted from one of our own pages (Referrer-Policy: no-referrer) says "Origin: null"; Sec-Fetch-Site tells.
    const nullOrigin = await client.request('POST', '/api/stores', { name: 'Evil' }, { origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    const nullCrossSite = await client.request('POST', '/api/stores', { name: 'Evil' }, { origin: 'null', 'sec-fetch-site': 'same-site' });
    expect(nullCrossSite.status).toBe(403);
    expect((await client.get('/api/stores')).body).toMatchObject([{ name: 'Mine' }]);
    const ownForm = await client.request('PATCH', '/api/settings/preferences', { marketingEmails: true }, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(ownForm.status, JSON.stringify(ownForm.body)).toBe(200);
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const { buildApp } = await import('../../app.ts');
    const { loadConfig } = await import('../../config.ts');
    const proxied = await buildApp({
      config: { ...loadConfig({ LOG_LEVEL: 'silent', TRUST_PROXY: 'true' }), sessionSecret: 'x'.repeat(40) },
      orm: testApp.orm,
      services: testServices(),
      logger: false,
    });
    try {
      const answer = await new ApiClient(proxied).request('POST', '/api/register', uniqueUser('secure'), { 'x-forwarded-proto': 'https' });
      expect(answer.status).toBe(201);
      expect(answer.headers['set-cookie']).toMatch(/; Secure/);
    } finally {
      await proxied.close();
    }
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After after too many failed sign-ins for one username from one address', async () => {
    const limited = await createTestApp(testApp.orm, testServices({
      loginPerIp: { max: 100, windowMs: 60_000 },
      loginFailuresPerUsernameAndIp: { max: 3, windowMs: 60_000 },
      loginFailuresPerUsername: { max: 100, windowMs: 60_000 },
      registrationsPerIp: { max: 100, windowMs: 60_000 },
      takenAnswersPerIp: { max: 100, windowMs: 60_000 },
    }));
    try {
      const { credentials } = await signedInClient(limited, 'throttle');
      const attempt = (password: string) => new ApiClient(limited).post('/api/login', { username: credentials.username, password });
      for (let i = 0; i < 3; i += 1) expect((await attempt('wrong-password')).status).toBe(401);
      const blocked = await attempt(credentials.password);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(blocked.body.message).toMatch(/Too many failed sign-in attempts/);
    } finally {
      await limited.close();
    }
  });

  it('keeps the "already exists" answers of registration, but an address that got a few of them is refused for a while', async () => {
    const limited = await createTestApp(testApp.orm, testServices({
      loginPerIp: { max: 100, windowMs: 60_000 },
      loginFailuresPerUsernameAndIp: { max: 100, windowMs: 60_000 },
      loginFailuresPerUsername: { max: 100, windowMs: 60_000 },
      registrationsPerIp: { max: 100, windowMs: 60_000 },
      takenAnswersPerIp: { max: 2, windowMs: 60_000 },
    }));
    try {
      // Addresses of this test's own: the counters live in this file's database, shared by its apps.
      const prober = (ip: string) => new ApiClient(limited, { remoteAddress: ip });
      const existing = uniqueUser('existing');
      expect((await prober('10.1.1.9').post('/api/register', existing)).status).toBe(201);
      const probe = (ip: string, email: string) => prober(ip).post('/api/register', { ...uniqueUser('probe'), email });

      // The spec's texts stay: two probes learn that the address has an account...
      for (let i = 0; i < 2; i += 1) {
        const answer = await probe('10.1.1.1', existing.email);
        expect(answer.status).toBe(409);
        expect(answer.body.message).toBe('An account with that email already exists');
      }
      // ...a third is refused before any look-up, even for an address nobody has.
      const blocked = await probe('10.1.1.1', uniqueUser('nobody').email);
      expect(blocked.status).toBe(429);
      expect(blocked.body.message).toMatch(/^Too many attempts with names or addresses already in use\. Please try again in \d+ minutes?\.$/);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Registrations that succeed do not count; other addresses are not affected.
      expect((await prober('10.1.1.2').post('/api/register', uniqueUser('fresh'))).status).toBe(201);
      expect((await probe('10.1.1.3', existing.email)).status).toBe(409);
    } finally {
      await limited.close();
    }
  });

  it('answers 429 after too many sign-ins from one address, whatever the username', async () => {
    const limited = await createTestApp(testApp.orm, testServices({
      loginPerIp: { max: 2, windowMs: 60_000 },
      loginFailuresPerUsernameAndIp: { max: 100, windowMs: 60_000 },
      loginFailuresPerUsername: { max: 100, windowMs: 60_000 },
      registrationsPerIp: { max: 100, windowMs: 60_000 },
      takenAnswersPerIp: { max: 100, windowMs: 60_000 },
    }));
    try {
      const from = (ip: string, n: number) => new ApiClient(limited, { remoteAddress: ip }).post('/api/login', { username: `someone${n}`, password: 'wrong-password' });
      expect((await from('10.0.0.1', 1)).status).toBe(401);
      expect((await from('10.0.0.1', 2)).status).toBe(401);
      expect((await from('10.0.0.1', 3)).status).toBe(429);
      expect((await from('10.0.0.2', 4)).status).toBe(401);
    } finally {
      await limited.close();
    }
  });
});
