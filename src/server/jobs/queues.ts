import type { EntityManager } from '@mikro-orm/postgresql';
import { INTEGRATION_CHECKS, INTEGRATION_JOBS } from '../modules/integrations/integration-jobs.ts';
import { deliverDueReports } from '../modules/reports/report-delivery.ts';
import { STORE_TIMEZONE_JOB } from '../modules/stores/store-timezone.service.ts';
import { ATTRIBUTION_JOB } from '../modules/attribution/attribution-jobs.ts';
import { AUDIENCE_PUSH_JOB } from '../modules/audiences/audience-jobs.ts';
import { ANOMALIES_JOB } from '../modules/anomalies/anomalies-jobs.ts';
import { TRACKING_JOBS } from '../modules/tracking/tracking-jobs.ts';
import { LOYALTY_JOB } from '../modules/loyalty/loyalty-job.ts';
import { ECB_RATES_JOB } from '../modules/exchange-rates/ecb-job.ts';
import { PRICE_TRACKER_JOB } from '../modules/price-tracker/price-tracker-jobs.ts';
import { PAGE_REVIEW_CHECKS, PAGE_REVIEW_JOB } from '../modules/page-reviewer/review-job.ts';
import { META_COMMENTS_JOB } from '../modules/meta-comments/meta-comments-jobs.ts';
import { PRODUCT_IMAGE_BATCH_JOB, PRODUCT_IMAGE_CHECKS, PRODUCT_IMAGE_REMOVAL_JOB } from '../modules/product-images/batch-job.ts';
import { PAGE_CHECK_CHECKS, PAGE_CHECK_JOB } from '../modules/shopping-optimizer/page-check.ts';
import { EMAIL_DELIVERY_CHECKS, EMAIL_DELIVERY_JOB } from '../modules/email/email-delivery.ts';
import { ACCOUNT_DELETION_JOB, PRIVACY_CLEANUP_JOB } from '../modules/privacy/privacy-jobs.ts';
import { ACCOUNT_EXPORT_JOB } from '../modules/privacy/account-export.ts';
import { STRIPE_EVENTS_JOB } from '../modules/subscriptions/stripe-events.ts';

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
  /** Seconds before the first retry of a failed job, doubling with each retry (default 60). */
  retryDelaySeconds?: number;
  /**
   * How long one job may run before pg-boss gives it up and retries it (pg-boss's default: 15
   * minutes). A job that can legitimately run longer must say so, or it is run twice at once.
   */
  expireInSeconds?: number;
  /**
   * The worker tells pg-boss it is alive every half of this; a job whose worker died (kill -9,
   * power loss) is retried this long after its last sign of life instead of after expireInSeconds.
   */
  heartbeatSeconds?: number;
  /** How long a completed job is kept (pg-boss's default: 7 days; the queue's own table may be the record). */
  deleteAfterSeconds?: number;
  /**
   * Jobs handed to `handleBatch` together, and how often the queue is polled when it is idle
   * (pg-boss's default: one job every 2 s). A full batch is followed by the next fetch at once.
   */
  batch?: { size: number; pollingIntervalSeconds: number };
  handle: (context: JobContext, data: unknown) => Promise<unknown>;
  /** With `batch`: the data of the jobs fetched together; per job, null (done) or the error that fails it (retried). */
  handleBatch?: (context: JobContext, data: unknown[]) => Promise<(string | null)[]>;
}

/**
 * A light check every process runs once at start and then every `everySeconds`, more often than a
 * cron schedule can (a minute at best), e.g. finding the runs whose process died.
 */
export interface RecurringCheck {
  name: string;
  everySeconds: number;
  run: (context: JobContext) => Promise<unknown>;
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
  // First-party tracking: sessions every minute, partitions ahead and retention daily (modules/tracking).
  ...TRACKING_JOBS,
  // Attribution credits: every minute, and at once for a new window (modules/attribution).
  ATTRIBUTION_JOB,
  // Segment pushes to Klaviyo / Mailchimp, one job per push (modules/audiences).
  AUDIENCE_PUSH_JOB,
  // Customer loyalty scores: after each store sync and nightly (modules/loyalty).
  LOYALTY_JOB,
  // Anomaly detection: hourly, and for a store after each of its syncs (modules/anomalies).
  ANOMALIES_JOB,
  // The ECB's exchange rates on working days, when FX_SOURCE=ecb (modules/exchange-rates).
  ECB_RATES_JOB,
  // Competitor price checks: a scan for due pages every 5 minutes (modules/price-tracker).
  PRICE_TRACKER_JOB,
  // Landing page reviews, one job per review (modules/page-reviewer).
  PAGE_REVIEW_JOB,
  // Privacy: expired exports of customers' data requests deleted daily (modules/privacy).
  PRIVACY_CLEANUP_JOB,
  // Accounts deleted when their grace period is over, hourly (modules/privacy).
  ACCOUNT_DELETION_JOB,
  // A user's export of all their data, one job per export (modules/privacy).
  ACCOUNT_EXPORT_JOB,
  // The shopping optimizer's product page checks, one job per run (modules/shopping-optimizer).
  PAGE_CHECK_JOB,
  // Meta comments: the polling fallback beside webhooks, every 15 minutes (modules/meta-comments).
  META_COMMENTS_JOB,
  // Outbox delivery through SMTP, one job per e-mail, when SMTP_URL is set (modules/email).
  EMAIL_DELIVERY_JOB,
  // Product image batches, one job per batch (modules/product-images).
  PRODUCT_IMAGE_BATCH_JOB,
  PRODUCT_IMAGE_REMOVAL_JOB,
  STRIPE_EVENTS_JOB,
];

export const CHECKS: readonly RecurringCheck[] = [...INTEGRATION_CHECKS, ...PAGE_REVIEW_CHECKS, ...PAGE_CHECK_CHECKS, ...EMAIL_DELIVERY_CHECKS, ...PRODUCT_IMAGE_CHECKS];
