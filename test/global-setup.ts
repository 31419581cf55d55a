import { MikroORM } from '@mikro-orm/postgresql';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ormConfig } from '../mikro-orm.config.ts';
import { createDatabaseIfMissing, prepareSchema } from '../src/server/database/database.ts';
import { startEmbeddedPostgres } from '../src/server/database/embedded-postgres.ts';

export const TEMPLATE_DATABASE = 'storepulse_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A server-level URL with `{database}` where each test file puts its own database's name. */
    databaseUrlPattern: string;
    templateDatabase: string;
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * One PostgreSQL for the whole run (embedded, or the server of DATABASE_URL), holding a migrated
 * template database; each test file clones it, so files run in parallel and start clean.
 */
export default async function setup(project: TestProject) {
  const external = process.env.DATABASE_URL;
  let dataDir: string | null = null;
  let stopEmbedded = async () => {};
  let urlFor: (database: string) => string;
  if (external) {
    urlFor = (database) => withDatabase(external, database);
  } else {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'storepulse-test-'));
    const embedded = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    urlFor = embedded.url;
    stopEmbedded = embedded.stop;
  }

  const maintenanceUrl = urlFor('postgres');
  const admin = new (await import('pg')).default.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
  await admin.end();
  await createDatabaseIfMissing(maintenanceUrl, TEMPLATE_DATABASE);
  const orm = await MikroORM.init(ormConfig(urlFor(TEMPLATE_DATABASE)));
  await prepareSchema(orm);
  await orm.close(true);

  project.provide('databaseUrlPattern', urlFor('{database}'));
  project.provide('templateDatabase', TEMPLATE_DATABASE);

  return async () => {
    await stopEmbedded();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
}
