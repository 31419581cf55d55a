import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';

/**
 * A StorePulse server of a spec's own (`node src/server/main.ts` with its own embedded PostgreSQL and
 * DATA_DIR), for settings the suite's shared server cannot have (SMTP_URL, an image model, ...).
 */
export interface OwnServer {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startOwnServer(port: number, name: string, settings: Record<string, string>): Promise<OwnServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `storepulse-e2e-${name}-`));
  let output = '';
  const server: ChildProcess = spawn(process.execPath, ['--max-old-space-size=1024', 'src/server/main.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      FX_SOURCE: 'synthetic',
      TRUST_PROXY: 'true',
      RATE_LIMIT_REGISTRATIONS_PER_IP: '10000',
      RATE_LIMIT_LOGINS_PER_IP: '10000',
      ...settings,
      ...(process.env.CLIENT_DIST_DIR ? { CLIENT_DIST_DIR: process.env.CLIENT_DIST_DIR } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk) => (output += String(chunk)));
  server.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const url = `http://localhost:${port}`;
  // A first start creates the PostgreSQL cluster and migrates it: minutes on a loaded machine.
  await expect
    .poll(async () => {
      if (server.exitCode !== null) throw new Error(`The ${name} server ended before serving:\n${output}`);
      return fetch(`${url}/healthz`).then((answer) => answer.ok, () => false);
    }, { timeout: 10 * 60_000 })
    .toBe(true);
  return {
    url,
    dataDir,
    async stop() {
      if (server.exitCode === null) {
        // SIGTERM lets the server stop its embedded PostgreSQL before the data directory goes.
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
