import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './database/database.ts';

const config = loadConfig();
const database = await openDatabase(config, (line) => {
  if (config.logLevel === 'debug' || config.logLevel === 'trace') console.log(`[postgres] ${line}`);
});
const app = await buildApp({ config, orm: database.orm });

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info(`${signal} received, shutting down`);
  const forceExit = setTimeout(() => process.exit(1), 20_000);
  forceExit.unref();
  try {
    await app.close();
  } finally {
    await database.close();
  }
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

try {
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`StorePulse is serving on http://localhost:${config.port}`);
} catch (error) {
  app.log.error(error);
  await database.close();
  process.exit(1);
}
