import type { JobDefinition } from '../../jobs/queues.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { deleteDueAccounts } from './account-deletion.ts';
import { deleteExpiredAccountExports } from './account-export.ts';
import { deleteExpiredPrivacyExports } from './privacy.service.ts';

export const PRIVACY_CLEANUP_QUEUE = 'privacy.cleanup';

/** Daily: the exports past their expiry (30 days for a customer's data request, 7 for a user's own) deleted, rows and files. */
export const PRIVACY_CLEANUP_JOB: JobDefinition = {
  queue: PRIVACY_CLEANUP_QUEUE,
  cron: '41 3 * * *',
  retryLimit: 3,
  handle: async (context) => {
    const deleted = (await deleteExpiredPrivacyExports(sqlRunner(context.em.fork()))) + (await deleteExpiredAccountExports(sqlRunner(context.em.fork())));
    if (deleted > 0) context.log(`privacy: ${deleted} expired export(s) deleted`);
  },
};

export const ACCOUNT_DELETION_QUEUE = 'privacy.account-deletion';

/** Hourly: the accounts whose grace period is over are deleted with their stores (account-deletion.ts). */
export const ACCOUNT_DELETION_JOB: JobDefinition = {
  queue: ACCOUNT_DELETION_QUEUE,
  cron: '23 * * * *',
  retryLimit: 3,
  expireInSeconds: 60 * 60,
  handle: async (context) => {
    const deleted = await deleteDueAccounts(() => context.em.fork());
    if (deleted > 0) context.log(`privacy: ${deleted} account(s) deleted after their grace period`);
  },
};
