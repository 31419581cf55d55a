import { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { ormConfig } from '../mikro-orm.config.ts';
import type { AuthRateLimits } from '../src/server/modules/auth/attempt-limiter.ts';
import { createTestApp, testServices, useTestDatabase } from './harness.ts';
import { HANG_GUARD_MS } from './server-process.ts';

// Two app instances on one PostgreSQL, as a horizontal set-up runs them behind a load balancer.
// - useTwoApps: two buildApp instances in this process, each with its own connection pool and its own
//   services (limiters), on this test file's database.
// - startServerProcess (server-process.ts): a real `node src/server/main.ts`, the process `npm start`
//   runs, on a database of the test's choosing; module-level state is then really apart.

export interface AppInstance {
  readonly name: string;
  readonly orm: MikroORM;
  readonly app: FastifyInstance;
}

export interface TwoApps {
  readonly a: AppInstance;
  readonly b: AppInstance;
  /** The shared database's connection string. */
  readonly url: string;
  /** A third pool on the database, for the test's own reads. */
  readonly orm: MikroORM;
}

/** Registers the hooks that start two apps (own pools, own services) on this file's database and stop them. */
export function useTwoApps(limits?: AuthRateLimits): TwoApps {
  const database = useTestDatabase();
  const instances: AppInstance[] = [];
  beforeAll(async () => {
    for (const name of ['A', 'B']) {
      const orm = await MikroORM.init(ormConfig(database.url));
      const app = await createTestApp(orm, testServices(limits));
      instances.push({ name, orm, app });
    }
  });
  afterAll(async () => {
    for (const instance of instances.splice(0)) {
      await instance.app.close();
      await instance.orm.close(true);
    }
  });
  const started = (index: number) => {
    const instance = instances[index];
    if (!instance) throw new Error('useTwoApps(): the apps exist only inside tests and hooks');
    return instance;
  };
  return {
    get a() {
      return started(0);
    },
    get b() {
      return started(1);
    },
    get url() {
      return database.url;
    },
    get orm() {
      return database.orm;
    },
  };
}

export { startServerProcess, type ServerProcess } from './server-process.ts';

/** A browser-like client of a real server: keeps the session cookie, sends JSON, can act from an address of its own. */
export class HttpClient {
  cookie: string | null = null;
  private readonly headers: Record<string, string>;

  constructor(headers: Record<string, string> = {}) {
    this.headers = headers;
  }

  async request<T = any>(baseUrl: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const answer = await fetch(`${baseUrl}${url}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...this.headers,
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const setCookie = answer.headers.getSetCookie().find((value) => value.startsWith('analytics.sid='));
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    const text = await answer.text();
    const isJson = (answer.headers.get('content-type') ?? '').includes('application/json');
    return { status: answer.status, headers: answer.headers, body: (isJson && text ? JSON.parse(text) : text) as T };
  }
}

/** Polls `check` until it returns a value other than undefined (state, not time: the deadline only bounds a failure). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = HANG_GUARD_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
