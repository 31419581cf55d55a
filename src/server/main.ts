import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './database/database.ts';
import { startJobs } from './jobs/boss.ts';
import { ECB_RATES_QUEUE } from './modules/exchange-rates/ecb-job.ts';
import { SCHEDULE_QUEUE } from './modules/integrations/integration-jobs.ts';
import { setIntegrationJobSender } from './modules/integrations/integrations-runtime.ts';
import { STRIPE_EVENTS_QUEUE } from './modules/subscriptions/stripe-events.ts';
import { setStripeEventsNotifier } from './modules/subscriptions/stripe-webhook.routes.ts';

const config = loadConfig();
const database = await openDatabase(config, (line) => {
  if (config.logLevel === 'debug' || config.logLevel === 'trace') console.log(`[postgres] ${line}`);
});
const app = await buildApp({ config, orm: database.orm });
const jobs = await startJobs({
  databaseUrl: database.url,
  orm: database.orm,
  baseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
  logger: { info: (message) => app.log.info(message), error: (details, message) => app.log.error(details, message) },
  unscheduled: [...(config.scheduledSyncs ? [] : [SCHEDULE_QUEUE]), ...(config.fxSource === 'ecb' ? [] : [ECB_RATES_QUEUE])],
});
setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
// Each stored Stripe event queues a run; a run processes every pending event (claimed one by one).
setStripeEventsNotifier(() => jobs.boss.send(STRIPE_EVENTS_QUEUE, {}));
// Real exchange rates from the first minutes of a new installation, not only from the next working day's run.
if (config.fxSource === 'ecb') await jobs.boss.send(ECB_RATES_QUEUE, {}, { singletonKey: ECB_RATES_QUEUE, singletonSeconds: 3600 });

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info(`${signal} received, shutting down`);
  const forceExit = setTimeout(() => process.exit(1), 20_000);
  forceExit.unref();
  try {
    await jobs.stop();
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
  await jobs.stop();
  await database.close();
  process.exit(1);
}
