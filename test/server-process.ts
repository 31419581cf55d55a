import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../src/server/database/embedded-postgres.ts';

// A real `node src/server/main.ts`, the process `npm start` runs (HTTP, pg-boss workers, recurring
// checks), on a database of the caller's choosing: for two processes on one database
// (two-processes.test.ts), a server killed with SIGKILL and started again on the same data
// (src/server/jobs/crash-recovery.test.ts), and the webhook benchmark's server (bench/webhooks.ts).
// It imports nothing of Vitest, so that a benchmark can use it.

export interface ServerProcess {
  readonly name: string;
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  readonly pid: number;
  /** What the process printed so far (its log), for failure messages. */
  output(): string;
  /** Resolves with the signal (or else the exit code) the process ended with. */
  readonly exited: Promise<NodeJS.Signals | number | null>;
  /** SIGTERM, and waits for the process to end: a graceful stop. */
  stop(): Promise<void>;
  /** kill -9, and waits for the process to end. */
  kill(): Promise<void>;
}

/**
 * How long a wait on state may last before it counts as hung: the tests' own guard
 * (vitest.config.ts), since a server's start or a job takes ~10 times as long on a loaded machine.
 */
export const HANG_GUARD_MS = 5 * 60_000;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts `node src/server/main.ts` (with npm start's heap settings) on `databaseUrl` and resolves once
 * it answers /healthz. Every process of one set-up must get the same SESSION_SECRET and ENCRYPTION_KEY
 * (pass them in `env`): each would otherwise generate its own into its data directory. `root` starts
 * another checkout's server (a benchmark's "before" figure); `port` a port of the caller's (a benchmark's assigned one).
 */
export async function startServerProcess(name: string, databaseUrl: string, env: Record<string, string> = {}, options: { root?: string; port?: number } = {}): Promise<ServerProcess> {
  const port = options.port ?? (await findFreePort());
  const dataDir = path.join(os.tmpdir(), `storepulse-two-processes-${randomBytes(4).toString('hex')}`);
  const child: ChildProcess = spawn(process.execPath, ['--max-old-space-size=1024', '--max-semi-space-size=8', 'src/server/main.ts'], {
    cwd: options.root ?? REPO_ROOT,
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
      // The tests' rates are the synthetic seed; production's default would load the ECB's over the network.
      FX_SOURCE: 'synthetic',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const baseUrl = `http://127.0.0.1:${port}`;

  const ending = (signal: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const stop = ending('SIGTERM');
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Server ${name} ended (${child.signalCode ?? child.exitCode}) before serving:\n${output}`);
    const healthy = await fetch(`${baseUrl}/healthz`).then((answer) => answer.ok, () => false);
    if (healthy) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Server ${name} did not answer /healthz within ${HANG_GUARD_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, baseUrl, pid: child.pid!, output: () => output, exited, stop, kill: ending('SIGKILL') };
}
