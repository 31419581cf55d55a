// `npm run demo -- [options]`: fills a store with realistic demo data through the ingest path.
// Like the admin CLI, it shares the running embedded PostgreSQL or starts it for the command.
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database/database.ts';
import { describeCommandError, UsageError } from './admin-commands.ts';
import { DEMO_USAGE, parseDemoArgs, runDemoCommand } from './demo-command.ts';

const argv = process.argv.slice(2);
if (argv.includes('--via-connectors')) {
  const { demoViaConnectorsCommand } = await import('../server/modules/integrations/demo-via-connectors.ts');
  process.exit(await demoViaConnectorsCommand(argv));
}
if (argv[0] === '--help' || argv[0] === 'help') {
  console.log(DEMO_USAGE);
  process.exit(0);
}

let args: ReturnType<typeof parseDemoArgs>;
try {
  args = parseDemoArgs(argv);
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${DEMO_USAGE}`);
  process.exit(1);
}

const database = await openDatabase(loadConfig());
let exitCode = 0;
try {
  console.log(await runDemoCommand(args, database.orm.em.fork()));
} catch (error) {
  console.error(error instanceof UsageError ? error.message : describeCommandError(error));
  exitCode = 1;
} finally {
  await database.close();
}
process.exit(exitCode);
