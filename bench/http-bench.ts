// What the HTTP benchmarks share (bench/kpis.ts, bench/orders-search.ts): the real server on the
// benchmark's database, signed in as the bench user, and the percentile of sorted timings.
import { spawn, type ChildProcess } from 'node:child_process';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/database/database.ts';

export interface BenchServer {
  base: string;
  /** Cookie header of the signed-in bench user. */
  signIn: () => Promise<string>;
  close: () => Promise<void>;
}

/** Starts the real server (buildApp) on BENCH_PORT (or `defaultPort`); DATABASE_URL or DATA_DIR as for bench/demo.ts. */
export async function startBenchServer(defaultPort: number): Promise<BenchServer> {
  if (!process.env.DATABASE_URL) process.env.DATA_DIR ??= '/tmp/engine-bench/data';
  const port = Number(process.env.BENCH_PORT ?? defaultPort);
  const username = process.env.BENCH_USER ?? 'bench';
  const password = process.env.BENCH_PASSWORD ?? 'bench-password-123';
  const config = { ...loadConfig(), port, logLevel: 'warn' as const };
  const database = await openDatabase(config);
  const app = await buildApp({ config, orm: database.orm, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    async signIn() {
      const login = await fetch(`${base}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify({ username, password }),
      });
      if (login.status !== 200) throw new Error(`Sign-in as ${username} failed: ${login.status} ${await login.text()}`);
      return login.headers.getSetCookie().map((value) => value.split(';')[0]).join('; ');
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

/**
 * The real server in a child process of its own (for its CPU time in /proc): `script --server` must
 * call startBenchServer and print `ready <base>`; stop() closes its stdin and waits for its exit.
 */
export async function spawnBenchServer(script: string): Promise<{ child: ChildProcess; base: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...process.execArgv, script, '--server'], {
    env: { ...process.env, SCHEDULED_SYNCS: 'false' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ready (\S+)\n/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`The server exited (${code}) before it was ready: ${output}`)));
  });
  return {
    child,
    base,
    async stop() {
      child.stdin!.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** Signs in as the bench user (BENCH_USER / BENCH_PASSWORD); the cookie header. */
export async function signInCookie(base: string): Promise<string> {
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ username: process.env.BENCH_USER ?? 'bench', password: process.env.BENCH_PASSWORD ?? 'bench-password-123' }),
  });
  if (login.status !== 200) throw new Error(`Sign-in failed: ${login.status} ${await login.text()}`);
  return login.headers.getSetCookie().map((value) => value.split(';')[0]).join('; ');
}

/** The child of spawnBenchServer: the real server on BENCH_PORT (or `defaultPort`) until its parent closes stdin. */
export async function serveUntilStdinEnds(defaultPort: number): Promise<void> {
  const server = await startBenchServer(defaultPort);
  process.stdout.write(`ready ${server.base}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  });
}
