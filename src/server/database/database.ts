import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ormConfig } from '../../../mikro-orm.config.ts';
import type { AppConfig } from '../config.ts';
import { seedFxRates } from '../modules/commerce/fx.ts';
import { seedPlans } from '../modules/subscriptions/plan-catalogue.ts';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.ts';

export const EMBEDDED_DATABASE_NAME = 'storepulse';

export interface Database {
  orm: MikroORM;
  url: string;
  close: () => Promise<void>;
}

export async function createDatabaseIfMissing(maintenanceUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      const from = template ? ` template ${client.escapeIdentifier(template)}` : '';
      await client.query(`create database ${client.escapeIdentifier(name)}${from}`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies pending migrations, the plan catalogue and the FX seed: what every start needs before serving.
 * Several app processes may start at once on one database: they take turns through a session-level
 * advisory lock (held on a connection of its own, released with it if the process dies), so one
 * applies the migrations and the others find them applied. Without it the second process failed
 * with `type "mikro_orm_migrations" already exists`.
 */
export async function prepareSchema(orm: MikroORM): Promise<void> {
  const pool = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
  const lockHolder = await pool.connect();
  try {
    await lockHolder.query(`select pg_advisory_lock(hashtext('storepulse.prepare-schema'))`);
    await orm.migrator.up();
    await seedPlans(orm.em.fork());
    await seedFxRates(orm.em.fork());
  } finally {
    await lockHolder.query(`select pg_advisory_unlock(hashtext('storepulse.prepare-schema'))`).catch(() => {});
    lockHolder.release();
  }
}

/**
 * Opens the configured database: DATABASE_URL when given, otherwise an embedded PostgreSQL whose
 * data lives under DATA_DIR and survives restarts.
 */
export async function openDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir' | 'embeddedPostgresPort'>,
  log: (message: string) => void = () => {},
): Promise<Database> {
  let embedded: RunningPostgres | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, log });
    await createDatabaseIfMissing(embedded.url('postgres'), EMBEDDED_DATABASE_NAME);
    url = embedded.url(EMBEDDED_DATABASE_NAME);
  }
  try {
    const orm = await MikroORM.init(ormConfig(url));
    await prepareSchema(orm);
    return {
      orm,
      url,
      close: async () => {
        await orm.close(true);
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
