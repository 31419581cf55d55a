import type { JobDefinition } from '../../jobs/queues.ts';
import { runAllAttribution, runAttribution } from './credits.ts';

// The attribution job (pg-boss, jobs/queues.ts): every minute, each store's credits brought up to
// date from the orders, refunds, purchases and touchpoints that arrived; sent at once (with the
// store) when the window setting changes, so the recompute starts without waiting for the minute.

export const ATTRIBUTION_QUEUE = 'attribution.credits';

export const ATTRIBUTION_JOB: JobDefinition = {
  queue: ATTRIBUTION_QUEUE,
  cron: '* * * * *',
  retryLimit: 2,
  retryDelaySeconds: 30,
  expireInSeconds: 60 * 60,
  deleteAfterSeconds: 3600,
  handle: async (context, data) => {
    const storeId = (data as { storeId?: unknown } | null)?.storeId;
    if (typeof storeId === 'number') return runAttribution(context.em.fork(), storeId);
    return runAllAttribution(() => context.em.fork(), context.log);
  },
};
