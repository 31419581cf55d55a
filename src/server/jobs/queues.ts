import type { EntityManager } from '@mikro-orm/postgresql';
import { INTEGRATION_JOBS } from '../modules/integrations/integration-jobs.ts';
import { deliverDueReports } from '../modules/reports/report-delivery.ts';
import { STORE_TIMEZONE_JOB } from '../modules/stores/store-timezone.service.ts';

// Every background job of the app: its pg-boss queue, an optional schedule (cron, UTC) that puts a
// job on the queue, and the work one job does. Platform syncs add their entries here.

export interface JobContext {
  /** A fresh EntityManager for this job. */
  em: EntityManager;
  /** Where links in e-mails point. */
  baseUrl: string;
  log: (message: string) => void;
}

export interface JobDefinition {
  queue: string;
  /** Cron expression (UTC) on which pg-boss sends a job to the queue. */
  cron?: string;
  /** A failed job is retried this many times. */
  retryLimit: number;
  handle: (context: JobContext, data: unknown) => Promise<unknown>;
}

export const REPORTS_DELIVER_QUEUE = 'reports.deliver';

export const JOBS: readonly JobDefinition[] = [
  {
    // Hourly: every store's 08:00 is on some hour boundary, whatever its time zone's offset.
    queue: REPORTS_DELIVER_QUEUE,
    cron: '0 * * * *',
    retryLimit: 3,
    handle: (context) => deliverDueReports(context.em, { baseUrl: context.baseUrl, log: context.log }),
  },
  ...INTEGRATION_JOBS,
  // A store's new time zone: its days recomputed and its rollups rebuilt (stores/store-timezone.service.ts).
  STORE_TIMEZONE_JOB,
];
