// The real server (src/server/main.ts: HTTP, pg-boss workers, recurring checks) in a child process on
// a database of the caller's, as a deployment runs it: what the webhook benchmark posts to, and what
// the crash tests kill with SIGKILL and start again on the same data (src/server/jobs/crash-recovery.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the signal (or exit code) the process ended with. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** kill -9. */
  kill(): Promise<NodeJS.Signals | number | null>;
  /** SIGTERM: a graceful stop. */
  stop(): Promise<NodeJS.Signals | number | null>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts `node src/server/main.ts` with DATABASE_URL (no embedded PostgreSQL of its own) and `env`
 * (e.g. ENCRYPTION_KEY, SHOPIFY_CLIENT_SECRET, PLATFORM_BASE_URL_SHOPIFY, STOREPULSE_CRASH_AT), and
 * waits until /healthz answers. The parent's NODE_OPTIONS (the server's heap settings under
 * scripts/bench.sh) are passed on; a test runner's are not.
 */
export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}, options: { nodeOptions?: string; root?: string } = {}): Promise<ServerProcess> {
  const port = await freePort();
  // Another checkout's server (a benchmark's "before" figure): options.root.
  const root = options.root ?? ROOT;
  const child = spawn(process.execPath, [path.join(root, 'src/server/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATA_DIR: path.join(os.tmpdir(), 'storepulse-server-process'),
      SESSION_SECRET: 'a-session-secret-for-child-servers-0123456789',
      CLIENT_DIST_DIR: path.join(os.tmpdir(), 'storepulse-no-client-build'),
      ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  let ended = false;
  void exited.then(() => (ended = true));
  for (;;) {
    if (ended) throw new Error(`The server process ended before it served:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server process did not answer /healthz within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const signal = (name: NodeJS.Signals) => async () => {
    if (!ended) child.kill(name);
    return exited;
  };
  return { url, child, output: () => output, exited, kill: signal('SIGKILL'), stop: signal('SIGTERM') };
}
