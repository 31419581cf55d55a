import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import nodemailer, { type Transporter } from 'nodemailer';
import { JOBS_SCHEMA } from '../../jobs/job-database.ts';
import type { JobDefinition, RecurringCheck } from '../../jobs/queues.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { queueDelivery } from './email.service.ts';
import { EMAIL_DELIVER_QUEUE } from './email-delivery-queue.ts';
import { mailSettings, type MailSettings } from './mail-settings.ts';
import { OutboundEmail, type OutboundEmailEntity } from './outbound-email.entity.ts';

// Delivers the outbox through SMTP (nodemailer), one pg-boss job per e-mail. The row is locked while
// it is sent and only a `pending` row is sent, so a duplicated or retried job never sends it twice.
// A permanent refusal (5xx reply) fails the e-mail at once; a temporary one (4xx, connection refused,
// timeout) fails the job, which pg-boss retries with exponential backoff until EMAIL_RETRY_LIMIT.

export { EMAIL_DELIVER_QUEUE };

/** Retries after the first attempt: 30 s, 1, 2, 4, 8, 16 min (pg-boss doubles retryDelay each time). */
export const EMAIL_RETRY_LIMIT = 6;
export const EMAIL_RETRY_DELAY_SECONDS = 30;

const transports = new WeakMap<MailSettings, Transporter>();

function transportFor(settings: MailSettings): Transporter {
  let transport = transports.get(settings);
  if (!transport) {
    transport = nodemailer.createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      ...(settings.auth ? { auth: settings.auth } : {}),
      tls: { rejectUnauthorized: settings.rejectUnauthorized },
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
    });
    transports.set(settings, transport);
  }
  return transport;
}

interface SmtpFailure {
  permanent: boolean;
  message: string;
  response: string | null;
}

/** nodemailer's errors carry the server's reply code and line (responseCode, response) when there was one. */
export function smtpFailureOf(error: unknown): SmtpFailure {
  const details = error as { responseCode?: unknown; response?: unknown; message?: unknown; code?: unknown };
  const code = typeof details.responseCode === 'number' ? details.responseCode : null;
  const response = typeof details.response === 'string' ? details.response : null;
  const message = typeof details.message === 'string' ? details.message : String(error);
  return { permanent: code !== null && code >= 500 && code < 600, message, response };
}

function messageOf(email: OutboundEmailEntity, from: string) {
  return {
    from,
    to: email.toAddress,
    subject: email.subject,
    text: email.textBody,
    ...(email.htmlBody ? { html: email.htmlBody } : {}),
    ...(email.unsubscribeUrl
      ? { list: { unsubscribe: email.unsubscribeUrl }, headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }
      : {}),
    ...(email.attachments ? { attachments: email.attachments.map((file) => ({ filename: file.filename, contentType: file.contentType, content: file.content })) } : {}),
  };
}

export type DeliveryOutcome = 'sent' | 'failed' | 'retry' | 'skipped';

/**
 * One delivery attempt of one e-mail. 'retry' means a temporary failure within the retry limit: the
 * job must fail so that pg-boss tries again later.
 */
export async function deliverEmail(em: EntityManager, emailId: number, retryLimit = EMAIL_RETRY_LIMIT): Promise<DeliveryOutcome> {
  const settings = mailSettings();
  if (!settings) return 'skipped';
  return em.transactional(async (tx) => {
    const email = await tx.findOne(OutboundEmail, { id: emailId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!email || email.status !== 'pending') return 'skipped';
    email.attempts += 1;
    try {
      const info = await transportFor(settings).sendMail(messageOf(email, settings.from));
      email.status = 'sent';
      email.sentAt = new Date();
      email.error = null;
      email.serverResponse = info.response ?? null;
      email.messageId = info.messageId ?? null;
      return 'sent';
    } catch (error) {
      const failure = smtpFailureOf(error);
      email.error = failure.message;
      email.serverResponse = failure.response;
      if (failure.permanent || email.attempts > retryLimit) {
        email.status = 'failed';
        return 'failed';
      }
      return 'retry';
    }
  });
}

export class TemporaryDeliveryFailure extends Error {}

/** The delivery queue; tests pass shorter retry delays. */
export function emailDeliveryJob(options: { retryLimit?: number; retryDelaySeconds?: number } = {}): JobDefinition {
  const retryLimit = options.retryLimit ?? EMAIL_RETRY_LIMIT;
  return {
    queue: EMAIL_DELIVER_QUEUE,
    retryLimit,
    retryDelaySeconds: options.retryDelaySeconds ?? EMAIL_RETRY_DELAY_SECONDS,
    expireInSeconds: 5 * 60,
    deleteAfterSeconds: 24 * 3600,
    handle: async (context, data) => {
      const emailId = (data as { emailId?: unknown } | null)?.emailId;
      if (typeof emailId !== 'number') return;
      const outcome = await deliverEmail(context.em, emailId, retryLimit);
      if (outcome === 'retry') {
        const email = await context.em.fork().findOne(OutboundEmail, { id: emailId });
        throw new TemporaryDeliveryFailure(`E-mail ${emailId} not delivered yet: ${email?.error ?? 'temporary failure'}`);
      }
    },
  };
}

export const EMAIL_DELIVERY_JOB = emailDeliveryJob();

/** A pending e-mail without a delivery job this long after it was written lost its job (written where no queue ran). */
export const ORPHAN_PENDING_SECONDS = 120;

/**
 * Puts pending e-mails that have no delivery job waiting or running back on the queue: an e-mail
 * written by a process without pg-boss (the admin CLI), or whose job pg-boss dropped.
 */
export async function requeueOrphanedEmails(em: EntityManager, olderThanSeconds = ORPHAN_PENDING_SECONDS): Promise<number> {
  if (!mailSettings()) return 0;
  const orphans = await sqlRunner(em).rows<{ id: number }>(
    `select o.id from outbound_emails o
      where o.status = 'pending' and o.created_at < now() - make_interval(secs => $2)
        and not exists (select 1 from ${JOBS_SCHEMA}.job j where j.name = $1 and (j.data->>'emailId')::int = o.id and j.state in ('created', 'retry', 'active'))
      order by o.id limit 500`,
    [EMAIL_DELIVER_QUEUE, olderThanSeconds],
  );
  for (const orphan of orphans) await queueDelivery(em, orphan.id);
  return orphans.length;
}

export const EMAIL_DELIVERY_CHECKS: readonly RecurringCheck[] = [{ name: 'email.orphaned-pending', everySeconds: 60, run: (context) => requeueOrphanedEmails(context.em) }];
