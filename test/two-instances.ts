import { MikroORM } from '@mikro-orm/postgresql';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { ormConfig } from '../mikro-orm.config.ts';
import { findFreePort } from '../src/server/database/embedded-postgres.ts';
import type { AuthRateLimits } from '../src/server/modules/auth/attempt-limiter.ts';
import { createTestApp, testServices, useTestDatabase } from './harness.ts';

/**
 * How long a wait on state here may last before it counts as hung: the tests' own guard
 * (vitest.config.ts), since a server's start or a job takes ~10 times as long on a loaded machine.
 */
const HANG_GUARD_MS = 5 * 60_000;

// Two app instances on one PostgreSQL, as a horizontal set-up runs them behind a load balancer.
// - useTwoApps: two buildApp instances in this process, each with its own connection pool and its own
//   services (limiters), on this test file's database.
// - startServerProcess: a real `node src/server/main.ts`, the process `npm start` runs, on a database
//   of the test's choosing; module-level state is then really apart.

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

export interface ServerProcess {
  readonly name: string;
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  /** What the process printed so far (its log), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts `node src/server/main.ts` (with npm start's heap settings) on `databaseUrl` and resolves once
 * it answers /healthz. Every process of one set-up must get the same SESSION_SECRET and ENCRYPTION_KEY
 * (pass them in `env`): each would otherwise generate its own into its data directory.
 */
export async function startServerProcess(name: string, databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await findFreePort();
  const dataDir = path.join(os.tmpdir(), `storepulse-two-processes-${randomBytes(4).toString('hex')}`);
  const child: ChildProcess = spawn(process.execPath, ['--max-old-space-size=1024', '--max-semi-space-size=8', 'src/server/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CLIENT_DIST_DIR: path.join(os.tmpdir(), 'storepulse-no-client-build'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Server ${name} exited with ${child.exitCode} before serving:\n${output}`);
    const healthy = await fetch(`${baseUrl}/healthz`).then((answer) => answer.ok, () => false);
    if (healthy) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Server ${name} did not answer /healthz within ${HANG_GUARD_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, baseUrl, output: () => output, stop };
}

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
