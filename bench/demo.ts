// Benchmark: 1,000,000 demo orders (+ 3 platforms x 50 campaigns x 24 months of ad metrics) into a
// fresh store, through the same ingest path as connectors. `npm run bench:demo` (see BENCHMARKS.md).
// Uses DATABASE_URL when set, otherwise an embedded PostgreSQL under DATA_DIR (default
// /tmp/engine-bench/data, thrown away with --fresh). Extra arguments go to the demo command.
import { rmSync } from 'node:fs';
import os from 'node:os';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/database/database.ts';
import { parseDemoArgs, runDemoCommand } from '../src/scripts/demo-command.ts';

const argv = process.argv.slice(2);
const fresh = argv.includes('--fresh');
const rest = argv.filter((arg) => arg !== '--fresh');
if (!process.env.DATABASE_URL) {
  process.env.DATA_DIR ??= '/tmp/engine-bench/data';
  if (fresh) rmSync(process.env.DATA_DIR, { recursive: true, force: true });
}
const args = parseDemoArgs(['--orders', '1000000', '--campaigns', '50', '--ad-months', '24', '--user', 'bench', ...rest]);

console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${new Date().toISOString()}`);
const database = await openDatabase(loadConfig());
try {
  const em = database.orm.em.fork();
  // A user of its own, so that the store is fresh and the run repeatable after --fresh.
  const { adminCaller } = await import('../src/scripts/admin-commands.ts');
  const { User } = await import('../src/server/modules/users/user.entity.ts');
  if (!(await em.findOne(User, { username: 'bench' }))) {
    const admin = await adminCaller(em);
    await admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'bench-password-123', isAdmin: false });
    await admin.grantPlan({ username: 'bench', tier: 'business', days: 365 });
    console.log('Created user bench (password bench-password-123, business plan)');
  }
  console.log(await runDemoCommand(args, em));
  const cpu = process.cpuUsage();
  console.log(`CPU of this process (ingest's JS, the driver, and the generator in its worker thread): ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; the rest of the time is PostgreSQL's`);
} finally {
  await database.close();
}
