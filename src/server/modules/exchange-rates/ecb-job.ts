import { loadConfig } from '../../config.ts';
import type { JobDefinition } from '../../jobs/queues.ts';
import { loadEcbRates } from './ecb-rates.ts';

// The ECB's reference rates, loaded by a pg-boss job (jobs/queues.ts) when FX_SOURCE=ecb: on working days
// at 16:00 and 20:00 UTC (the ECB publishes "around 16:00 CET", 14:00-15:00 UTC; the second run catches a
// late publication), and once at every start (main.ts). A failed load is retried with backoff and leaves
// the stored rates as they were. With FX_SOURCE=synthetic the queue has no schedule and is never sent.

export const ECB_RATES_QUEUE = 'fx.ecb';

export const ECB_RATES_JOB: JobDefinition = {
  queue: ECB_RATES_QUEUE,
  cron: '0 16,20 * * 1-5',
  retryLimit: 5,
  retryDelaySeconds: 300,
  expireInSeconds: 10 * 60,
  deleteAfterSeconds: 7 * 24 * 3600,
  handle: async (context) => {
    const config = loadConfig();
    if (config.fxSource !== 'ecb') return { skipped: 'FX_SOURCE is synthetic' };
    const result = await loadEcbRates(context.em.fork(), { baseUrl: config.ecbRatesUrl });
    context.log(`ECB rates: ${result.rates} rates of ${result.firstDay} to ${result.lastDay} from ${result.file}; ${result.syntheticRemoved} synthetic rows removed`);
    return result;
  },
};
