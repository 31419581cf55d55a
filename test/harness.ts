import { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { ormConfig } from '../mikro-orm.config.ts';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { createDatabaseIfMissing } from '../src/server/database/database.ts';
import { createAuthLimiters, type AuthRateLimits } from '../src/server/modules/auth/attempt-limiter.ts';
import { SESSION_COOKIE_NAME } from '../src/server/modules/sessions/session-control.ts';
import { createServices, type AppServices } from '../src/server/trpc/context.ts';

const generous = { max: 10_000, windowMs: 60_000 };
export const GENEROUS_AUTH_LIMITS: AuthRateLimits = {
  loginPerIp: generous,
  loginFailuresPerUsernameAndIp: generous,
  loginFailuresPerUsername: generous,
  registrationsPerIp: generous,
  takenAnswersPerIp: generous,
};

function databaseUrl(database: string): string {
  return inject('databaseUrlPattern').replace('%7Bdatabase%7D', database).replace('{database}', database);
}

/** A fresh database cloned from the migrated template: this test file's alone. */
export async function createTestDatabase(): Promise<{ orm: MikroORM; url: string; close: () => Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await createDatabaseIfMissing(databaseUrl('postgres'), name, inject('templateDatabase'));
  const url = databaseUrl(name);
  const orm = await MikroORM.init(ormConfig(url));
  return { orm, url, close: () => orm.close(true) };
}

export interface TestDatabase {
  readonly orm: MikroORM;
  /** The connection string of this file's database (for pg-boss and other direct connections). */
  readonly url: string;
}

/**
 * This test file's own database: registers the `beforeAll` that creates it and the `afterAll` that closes it,
 * and returns getters to use inside tests and hooks.
 */
export function useTestDatabase(): TestDatabase {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  const notReady = () => new Error('useTestDatabase(): the database exists only inside tests and hooks');
  return {
    get orm() {
      if (!database) throw notReady();
      return database.orm;
    },
    get url() {
      if (!database) throw notReady();
      return database.url;
    },
  };
}

export function testServices(limits: AuthRateLimits = GENEROUS_AUTH_LIMITS): AppServices {
  return createServices({ authLimiters: createAuthLimiters(limits) });
}

/** `env`: further environment variables for the app's configuration (e.g. TRUST_PROXY). */
export async function createTestApp(orm: MikroORM, services: AppServices = testServices(), env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = {
    // The fakes' loopback address stays reachable (vitest.config.ts sets OUTBOUND_ALLOW_HOSTS).
    ...loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', OUTBOUND_ALLOW_HOSTS: process.env.OUTBOUND_ALLOW_HOSTS, ...env }),
    dataDir: path.join(os.tmpdir(), 'storepulse-test-secrets'),
    sessionSecret: 'a-test-session-secret-that-is-long-enough-123',
    clientDistDir: path.join(os.tmpdir(), 'storepulse-no-client-build'),
  };
  const app = await buildApp({ config, orm, services, logger: false });
  await app.ready();
  return app;
}

export interface TestApp {
  readonly orm: MikroORM;
  readonly app: FastifyInstance;
  /** The connection string of this file's database (for pg-boss and other direct connections). */
  readonly databaseUrl: string;
}

/**
 * This test file's own database and app: registers the `beforeAll` that creates them and the `afterAll`
 * that closes them, and returns getters to use inside tests and hooks.
 */
export function useTestApp(): TestApp {
  const database = useTestDatabase();
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    app = await createTestApp(database.orm);
  });
  afterAll(async () => {
    await app?.close();
  }); // vitest runs afterAll hooks in reverse order: the app closes before its database.
  return {
    get orm() {
      return database.orm;
    },
    get app() {
      if (!app) throw new Error('useTestApp(): the app exists only inside tests and hooks');
      return app;
    },
    get databaseUrl() {
      return database.url;
    },
  };
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
}

/** A browser-like caller of the REST API that keeps its session cookie between requests. */
export class ApiClient {
  app: FastifyInstance;
  sessionCookie: string | null = null;
  remoteAddress: string;

  constructor(app: FastifyInstance, options: { remoteAddress?: string } = {}) {
    this.app = app;
    this.remoteAddress = options.remoteAddress ?? '127.0.0.1';
  }

  async request<T = any>(method: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const response = await this.app.inject({
      method: method as 'GET',
      url,
      remoteAddress: this.remoteAddress,
      headers: {
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.sessionCookie ? { cookie: `${SESSION_COOKIE_NAME}=${this.sessionCookie}` } : {}),
        ...headers,
      },
      payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    const cookie = response.cookies.find((candidate) => candidate.name === SESSION_COOKIE_NAME);
    if (cookie) this.sessionCookie = cookie.value && cookie.expires?.getTime() !== 0 ? cookie.value : null;
    const isJson = String(response.headers['content-type'] ?? '').includes('application/json');
    return { status: response.statusCode, body: (isJson ? response.json() : response.body) as T, headers: response.headers };
  }

  get<T = any>(url: string) {
    return this.request<T>('GET', url);
  }
  post<T = any>(url: string, payload: unknown = {}) {
    return this.request<T>('POST', url, payload);
  }
  patch<T = any>(url: string, payload: unknown) {
    return this.request<T>('PATCH', url, payload);
  }
  delete<T = any>(url: string) {
    return this.request<T>('DELETE', url);
  }
}

/** A tRPC query over HTTP, as the React client sends it: GET with the input JSON in the query string. */
export function trpcQuery<T = any>(client: ApiClient, path: string, input?: unknown) {
  return client.get<T>(`/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`);
}

/** A tRPC mutation over HTTP: POST with the input JSON as the body. */
export function trpcMutation<T = any>(client: ApiClient, path: string, input?: unknown) {
  return client.post<T>(`/trpc/${path}`, input);
}

let userCounter = 0;

export function uniqueUser(prefix = 'user') {
  userCounter += 1;
  const username = `${prefix}${userCounter}_${randomBytes(3).toString('hex')}`;
  return { username, email: `${username}@example.com`, password: 'correct-horse-battery' };
}

/** Registers a new account through the API and returns a client signed in as it. */
export async function signedInClient(app: FastifyInstance, prefix?: string) {
  const client = new ApiClient(app);
  const credentials = uniqueUser(prefix);
  const answer = await client.post('/api/register', credentials);
  if (answer.status !== 201) throw new Error(`Registration failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { client, credentials, user: answer.body as { id: number; username: string } };
}

/** Test set-up through the same admin procedures the CLI uses. */
export async function grantTestPlan(orm: MikroORM, username: string, tier: 'basic' | 'professional' | 'business' | 'enterprise', days = 30) {
  const { adminCaller } = await import('../src/scripts/admin-commands.ts');
  return (await adminCaller(orm.em.fork())).grantPlan({ username, tier, days });
}

export async function signedInAdmin(app: FastifyInstance, orm: MikroORM) {
  const { adminCaller } = await import('../src/scripts/admin-commands.ts');
  const credentials = uniqueUser('admin');
  await (await adminCaller(orm.em.fork())).createUser({ ...credentials, isAdmin: true });
  const client = new ApiClient(app);
  const answer = await client.post('/api/login', { username: credentials.username, password: credentials.password });
  if (answer.status !== 200) throw new Error(`Admin sign-in failed: ${answer.status}`);
  return { client, credentials, user: answer.body as { id: number; username: string } };
}
