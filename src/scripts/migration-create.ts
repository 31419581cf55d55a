// Generates a migration from the difference between the entities and the last snapshot.
// Usage: npm run migration:create [-- name]
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.ts';
import { loadConfig } from '../server/config.ts';
import { createDatabaseIfMissing, EMBEDDED_DATABASE_NAME } from '../server/database/database.ts';
import { startEmbeddedPostgres } from '../server/database/embedded-postgres.ts';

const config = loadConfig();
const embedded = config.databaseUrl ? null : await startEmbeddedPostgres({ dataDir: config.dataDir, log: (line) => process.env.DEBUG_POSTGRES && console.error(line) });
try {
  let url = config.databaseUrl;
  if (embedded) {
    await createDatabaseIfMissing(embedded.url('postgres'), EMBEDDED_DATABASE_NAME);
    url = embedded.url(EMBEDDED_DATABASE_NAME);
  }
  const orm = await MikroORM.init(ormConfig(url!));
  try {
    const result = await orm.migrator.create(undefined, false, false, process.argv[2]);
    console.log(result.fileName ? `Created ${result.fileName}` : 'No changes: the entities match the last migration.');
  } finally {
    await orm.close(true);
  }
} finally {
  await embedded?.stop();
}
