// The real app serving a client build written by the test (index.html and assets in a temporary
// folder), for the tests of static serving, the SPA fallback and compression.
import type { FastifyInstance } from 'fastify';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { createTestDatabase, testServices } from './harness.ts';

export interface ClientDistApp {
  app: FastifyInstance;
  distDir: string;
  close: () => Promise<void>;
}

/**
 * Writes `files` (paths relative to the build folder, e.g. 'assets/index-abc123.js'), runs
 * `afterWrite` over the folder (a build step such as precompression), then starts the app on it.
 */
export async function appServingClientDist(files: Record<string, string>, afterWrite?: (distDir: string) => Promise<void>): Promise<ClientDistApp> {
  const database = await createTestDatabase();
  const distDir = await mkdtemp(path.join(os.tmpdir(), 'storepulse-dist-'));
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(distDir, file)), { recursive: true });
    await writeFile(path.join(distDir, file), content);
  }
  await afterWrite?.(distDir);
  const app = await buildApp({
    config: { ...loadConfig({ LOG_LEVEL: 'silent' }), sessionSecret: 's'.repeat(40), clientDistDir: distDir },
    orm: database.orm,
    services: testServices(),
    logger: false,
  });
  return {
    app,
    distDir,
    async close() {
      await app.close();
      await database.close();
      await rm(distDir, { recursive: true, force: true });
    },
  };
}
