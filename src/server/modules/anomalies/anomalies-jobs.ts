import type { JobDefinition } from '../../jobs/queues.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { detectAllStores, detectStore } from './anomalies.service.ts';

// The anomaly detection job (pg-boss, jobs/queues.ts): hourly for every store with recent data, and
// for one store after each of its syncs succeeds (sync-runner.ts). Detection is idempotent: a run
// again updates the same rows and keeps their states.

export const ANOMALIES_QUEUE = 'anomalies.detect';

export const ANOMALIES_JOB: JobDefinition = {
  queue: ANOMALIES_QUEUE,
  cron: '5 * * * *',
  retryLimit: 2,
  retryDelaySeconds: 60,
  expireInSeconds: 30 * 60,
  deleteAfterSeconds: 3600,
  handle: async (context, data) => {
    const storeId = (data as { storeId?: unknown } | null)?.storeId;
    if (typeof storeId === 'number') return detectStore(context.em.fork(), storeId, new Date(), { publicUrl: context.baseUrl, log: context.log });
    return detectAllStores(() => context.em.fork(), context.log, new Date(), context.baseUrl);
  },
};

/** After a sync: one detection of the store a minute; one more sent in the same minute runs in the next (it has newer data). */
export function queueAnomalyDetection(storeId: number): Promise<boolean> {
  return sendIntegrationJob(ANOMALIES_QUEUE, { storeId }, { singletonKey: `anomalies:${storeId}`, singletonSeconds: 60, singletonNextSlot: true });
}
