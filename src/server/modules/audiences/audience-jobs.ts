import type { JobDefinition } from '../../jobs/queues.ts';
import { AUDIENCE_PUSH_MAX_ATTEMPTS, AUDIENCE_PUSH_QUEUE, runAudiencePush } from './audience-push.service.ts';

// The segment push job (pg-boss, jobs/queues.ts): one job per push, sent when it is requested. A
// temporary failure is retried with backoff (30 s, 60 s, 120 s...), resuming after the last chunk the
// platform confirmed.
export const AUDIENCE_PUSH_JOB: JobDefinition = {
  queue: AUDIENCE_PUSH_QUEUE,
  retryLimit: AUDIENCE_PUSH_MAX_ATTEMPTS - 1,
  retryDelaySeconds: 30,
  expireInSeconds: 2 * 60 * 60,
  heartbeatSeconds: 60,
  handle: async (context, data) => {
    const pushId = (data as { pushId?: unknown } | null)?.pushId;
    if (typeof pushId !== 'number') return;
    await runAudiencePush(context.em.fork(), pushId);
  },
};
