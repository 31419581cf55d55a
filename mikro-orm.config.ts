import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { fileURLToPath } from 'node:url';
import { entities } from './src/server/database/entities.ts';

const migrationsPath = fileURLToPath(new URL('./prisma-free-migrations', import.meta.url));

/** The one MikroORM configuration: the app, the tests and the scripts all start from it. */
export function ormConfig(clientUrl: string, options: { debug?: boolean } = {}) {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    debug: options.debug ?? false,
    forceUtcTimezone: true,
    pool: { min: 0, max: 10 },
    migrations: {
      path: migrationsPath,
      pathTs: migrationsPath,
      glob: '!(*.d).ts',
      emit: 'ts',
      snapshot: true,
      snapshotName: '.snapshot-storepulse',
      // Only `migration:create` writes the snapshot: a server or test applying migrations must not
      // rewrite this tracked file from the database it migrated.
      snapshotOnMigrate: false,
      transactional: true,
      allOrNothing: true,
      fileName: (timestamp: string, name?: string) => `Migration${timestamp}${name ? `_${name}` : ''}`,
    },
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgresql://postgres@localhost:5432/storepulse');
