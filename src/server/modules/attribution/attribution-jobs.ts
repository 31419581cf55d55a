import type { JobDefinition } from '../../jobs/queues.ts';
import { convertStaleClosedMonths } from './converted-months.ts';
import { runAllAttribution, runAttribution } from './credits.ts';

// The attribution job (pg-boss, jobs/queues.ts): every minute, each store's credits brought up to
// date from the orders, refunds, purchases and touchpoints that arrived; sent at once (with the
// store) when the window setting changes, so the recompute starts without waiting for the minute.
// Then the closed months whose other-currency credits are to be converted again (a past rate
// changed, the store's currency, a new window) are converted, so the report finds them ready.

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
    const one = typeof storeId === 'number';
    const result = one ? await runAttribution(context.em.fork(), storeId) : await runAllAttribution(() => context.em.fork(), context.log);
    await convertStaleClosedMonths(() => context.em.fork(), one ? [storeId] : undefined, context.log);
    return result;
  },
};
