import type { JobDefinition } from '../../jobs/queues.ts';
import { syncAllStores } from './meta-comments.service.ts';

export const META_COMMENTS_QUEUE = 'meta-comments.sync';

/** The polling fallback beside webhooks: every store that synced comments once, every 15 minutes. */
export const META_COMMENTS_JOB: JobDefinition = {
  queue: META_COMMENTS_QUEUE,
  cron: '*/15 * * * *',
  retryLimit: 1,
  expireInSeconds: 30 * 60,
  deleteAfterSeconds: 3600,
  handle: (context) => syncAllStores(() => context.em.fork(), context.log),
};
