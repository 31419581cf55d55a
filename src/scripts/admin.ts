// The admin CLI: `npm run admin -- <command>`. Works whether or not the server runs: it shares the
// running embedded PostgreSQL, or starts it for the duration of the command.
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database/database.ts';
import { ADMIN_USAGE, describeCommandError, runAdminCommand } from './admin-commands.ts';

const argv = process.argv.slice(2);
if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
  console.log(ADMIN_USAGE);
  process.exit(0);
}

const database = await openDatabase(loadConfig());
let exitCode = 0;
try {
  console.log(await runAdminCommand(argv, database.orm.em.fork()));
} catch (error) {
  console.error(describeCommandError(error));
  exitCode = 1;
} finally {
  await database.close();
}
process.exit(exitCode);
