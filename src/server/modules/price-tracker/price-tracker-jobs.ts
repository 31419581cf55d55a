import type { JobDefinition } from '../../jobs/queues.ts';
import { checkDuePages, PRICE_TRACKER_QUEUE } from './price-tracker.service.ts';

// The scheduled price checks (pg-boss, jobs/queues.ts): every 5 minutes a scan for the pages whose
// next check is due (each page every 6 hours after its last check), read one after another through the
// process's per-domain pacer (10 s per domain) with robots.txt obeyed. A bulk add sends one at once. A scan claims its pages first
// (checkDuePages), so scans in several processes never read the same page twice.

export const PRICE_TRACKER_JOB: JobDefinition = {
  queue: PRICE_TRACKER_QUEUE,
  cron: '*/5 * * * *',
  retryLimit: 1,
  retryDelaySeconds: 60,
  expireInSeconds: 30 * 60,
  deleteAfterSeconds: 3600,
  handle: (context) => checkDuePages(() => context.em.fork(), { log: context.log }),
};
