import type { EntityManager } from '@mikro-orm/postgresql';
import { jobDatabaseOf } from '../../jobs/job-database.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { EmailTemplate } from './email-template.entity.ts';
import { EMAIL_DELIVER_QUEUE } from './email-delivery-queue.ts';
import { htmlFromText } from './email-html.ts';
import { mailSettings } from './mail-settings.ts';
import { OutboundEmail, type EmailAttachment, type OutboundEmailEntity } from './outbound-email.entity.ts';
import { unsubscribeUrl, type UnsubscribeTarget } from './unsubscribe.ts';

export interface DefaultTemplate {
  subject: string;
  textBody: string;
  /** The placeholders the body may use, shown to admins editing it. */
  variables: readonly string[];
}

/** The e-mails the product sends, as shipped; admins may override subject and body per key. */
export const DEFAULT_EMAIL_TEMPLATES = {
  password_reset: {
    subject: 'Reset your StorePulse password',
    textBody:
      'Hello {{username}},\n\nSomeone (hopefully you) asked to reset the password of your StorePulse account.\n' +
      'Open this link within {{validMinutes}} minutes to choose a new password:\n\n{{resetUrl}}\n\n' +
      'If you did not ask for this, ignore this e-mail: your password stays as it is.\n\nThe StorePulse team',
    variables: ['username', 'resetUrl', 'validMinutes'],
  },
  email_change_confirmation: {
    subject: 'Confirm your new StorePulse e-mail address',
    textBody:
      'Hello {{username}},\n\nSomeone (hopefully you) asked to use {{newEmail}} as the e-mail address of the StorePulse account {{username}}.\n' +
      'Open this link within {{validHours}} hours to confirm it:\n\n{{confirmUrl}}\n\n' +
      'Until then the account keeps its current address. If you did not ask for this, ignore this e-mail.\n\nThe StorePulse team',
    variables: ['username', 'newEmail', 'confirmUrl', 'validHours'],
  },
  email_change_notice: {
    subject: 'Your StorePulse e-mail address is about to change',
    textBody:
      'Hello {{username}},\n\nSomeone signed in to your StorePulse account asked to change its e-mail address to {{newEmail}}.\n' +
      'The address changes only if the link sent to {{newEmail}} is opened within {{validHours}} hours.\n\n' +
      'If this was not you, change your password now: that cancels the change and signs out every other device.\n\nThe StorePulse team',
    variables: ['username', 'newEmail', 'validHours'],
  },
  guest_invitation: {
    subject: '{{inviterName}} invited you to view {{storeName}} on StorePulse',
    textBody:
      'Hello,\n\n{{inviterName}} invited you to view the {{storeName}} dashboard on StorePulse (read-only).\n' +
      'Accept the invitation within {{validDays}} days:\n\n{{acceptUrl}}\n\nThe StorePulse team',
    variables: ['inviterName', 'storeName', 'acceptUrl', 'validDays'],
  },
  contact_confirmation: {
    subject: 'We received your message',
    textBody:
      'Hello {{name}},\n\nThanks for getting in touch. We received your message and will get back to you as soon as possible.\n\n' +
      'Your message:\n{{message}}\n\nThe StorePulse team',
    variables: ['name', 'message'],
  },
  scheduled_report: {
    subject: 'Your {{frequency}} StorePulse report: {{reportName}} ({{storeName}})',
    textBody:
      'Hello,\n\nHere is the {{frequency}} report "{{reportName}}" for {{storeName}}, from {{rangeFrom}} to {{rangeTo}} ' +
      '(amounts in {{currency}}):\n\n{{table}}\n\nOpen the report in StorePulse:\n{{reportUrl}}\n\n' +
      'You receive this e-mail because you are a recipient of this scheduled report.\n\nThe StorePulse team',
    variables: ['reportName', 'storeName', 'frequency', 'rangeFrom', 'rangeTo', 'currency', 'table', 'reportUrl'],
  },
  /** Sentences come translated into the language the owner switched alerts on in (anomalies/anomaly-alerts.ts). */
  anomaly_alert: {
    subject: '{{subject}}',
    textBody: '{{intro}}\n\n{{anomalies}}\n\n{{outro}}\n{{dashboardUrl}}\n\n{{footer}}\n\nThe StorePulse team',
    variables: ['subject', 'storeName', 'intro', 'anomalies', 'outro', 'dashboardUrl', 'footer'],
  },
  /** The account's deletion was scheduled (privacy/account-deletion.ts): when, and how to cancel it. */
  account_deletion_scheduled: {
    subject: 'Your StorePulse account will be deleted on {{deletionDate}}',
    textBody:
      'Hello {{username}},\n\nThe StorePulse account {{username}} is scheduled for deletion on {{deletionDate}}. ' +
      'Until then it is disabled; on that day the account, its stores and all their data are deleted for good.\n\n' +
      'Changed your mind? Sign in before then and choose "Cancel deletion":\n{{signInUrl}}\n\nThe StorePulse team',
    variables: ['username', 'deletionDate', 'signInUrl'],
  },
  /** A user's export of all their data is ready (privacy/account-export.ts). */
  account_export_ready: {
    subject: 'Your StorePulse data export is ready',
    textBody:
      'Hello {{username}},\n\nThe export of your StorePulse data you asked for is ready. Download it from your settings until {{expiryDate}}:\n\n' +
      '{{settingsUrl}}\n\nIf you did not ask for it, change your password.\n\nThe StorePulse team',
    variables: ['username', 'expiryDate', 'settingsUrl'],
  },
  /** A competitor undercut the store's price or went out of stock (price-tracker/price-alert-email.ts). */
  price_alert: {
    subject: 'Competitor price alert for {{storeName}}',
    textBody: 'Hello,\n\nThe price tracker of {{storeName}} noticed:\n\n{{alerts}}\n\nSee the tracked products:\n{{trackerUrl}}\n\n' +
      'You receive this e-mail because e-mail alerts are on for these competitor pages.\n\nThe StorePulse team',
    variables: ['storeName', 'alerts', 'trackerUrl'],
  },
  comment_complaints: {
    subject: 'New complaints in the comments of {{storeName}}',
    textBody: 'Hello,\n\nThe Meta comments manager of {{storeName}} found new complaints on your Facebook Page or Instagram account:\n\n{{complaints}}\n\n' +
      'Answer them in StorePulse:\n{{commentsUrl}}\n\n' +
      'You receive this e-mail because "Flag complaints that need a reply" is on for this store.\n\nThe StorePulse team',
    variables: ['storeName', 'complaints', 'commentsUrl'],
  },
  /** Stripe's customer.subscription.trial_will_end, three days before the trial ends (subscriptions/stripe-events.ts). */
  trial_will_end: {
    subject: 'Your StorePulse trial ends on {{trialEnd}}',
    textBody:
      'Hello {{username}},\n\nYour free trial of the {{planName}} plan ends on {{trialEnd}}. After that your card is charged {{amount}} ' +
      'and the plan continues without interruption.\n\nTo change plan, update your card or cancel, open Billing:\n{{billingUrl}}\n\nThe StorePulse team',
    variables: ['username', 'planName', 'trialEnd', 'amount', 'billingUrl'],
  },
  /** Stripe's invoice.payment_failed: the subscription is past_due and access ends after the grace period. */
  payment_failed: {
    subject: 'Your StorePulse payment failed',
    textBody:
      'Hello {{username}},\n\nWe could not collect the payment of {{amount}} for your {{planName}} plan. We will try again; ' +
      'please update your card before {{graceUntil}}, or your plan ends then.\n\nUpdate your card:\n{{billingUrl}}\n\nThe StorePulse team',
    variables: ['username', 'planName', 'amount', 'graceUntil', 'billingUrl'],
  },
} as const satisfies Record<string, DefaultTemplate>;

export type EmailTemplateKey = keyof typeof DEFAULT_EMAIL_TEMPLATES;

export function isEmailTemplateKey(key: string): key is EmailTemplateKey {
  return Object.hasOwn(DEFAULT_EMAIL_TEMPLATES, key);
}

/** Replaces `{{name}}` with the variable's value; unknown placeholders are left as they are. */
export function fillPlaceholders(text: string, variables: Record<string, string | number>): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? String(variables[name]) : whole,
  );
}

const SECRET_QUERY_VALUE = /([?&#](?:token|code|auth_code|state)=)[^&#\s]+/gi;
const SECRET_PATH_SEGMENT = /(\/api\/invitations\/)[^/?#\s]+/g;
export const REDACTED = '[redacted]';

/**
 * The text with the secrets of links blanked out: `token=`, `code=`, `auth_code=` and `state=` values
 * (reset, invitation and e-mail change links, OAuth callbacks) and invitation tokens in API paths.
 * Whoever holds such a link takes over what it grants, so it is never logged or shown to admins.
 */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_QUERY_VALUE, `$1${REDACTED}`).replace(SECRET_PATH_SEGMENT, `$1${REDACTED}`);
}

/** The template in force for a key: the admin's saved version, else the shipped default. */
export async function templateFor(em: EntityManager, key: EmailTemplateKey): Promise<{ subject: string; textBody: string }> {
  const saved = await em.findOne(EmailTemplate, { key });
  return saved ?? DEFAULT_EMAIL_TEMPLATES[key];
}

export interface EmailRequest {
  to: string;
  template: EmailTemplateKey;
  variables: Record<string, string | number>;
  userId?: number | null;
  /** Mail people may opt out of (reports, marketing, alerts): the List-Unsubscribe target and where the app is reached. */
  unsubscribe?: { target: UnsubscribeTarget; baseUrl: string };
  attachments?: EmailAttachment[];
}

/** Who receives a store's alert e-mails: its owner. */
export async function storeOwnerContact(em: EntityManager, storeId: number): Promise<{ email: string; userId: number; storeName: string } | null> {
  const [owner] = await sqlRunner(em).rows<{ email: string; userId: number; storeName: string }>(
    `select u.email, u.id as "userId", s.name as "storeName" from stores s join users u on u.id = s.owner_id where s.id = $1`,
    [storeId],
  );
  return owner ?? null;
}

/** Puts a pending e-mail on the delivery queue, in the caller's transaction when there is one. */
export async function queueDelivery(em: EntityManager, emailId: number): Promise<void> {
  await sendIntegrationJob(EMAIL_DELIVER_QUEUE, { emailId }, { db: jobDatabaseOf(em), singletonKey: `email:${emailId}` });
}

/**
 * Renders (text and HTML parts) and records an e-mail in the outbox. With SMTP configured it is
 * `pending` and a delivery job, created in the same transaction, sends it (email-delivery.ts).
 * Without, it is written to the server log and kept with status `logged`. The stored e-mail keeps its
 * links (it is what is delivered); the log and the admins' outbox show them with their tokens blanked out.
 */
export async function sendEmail(
  em: EntityManager,
  request: EmailRequest,
  log: (message: string) => void = (message) => console.info(message),
): Promise<OutboundEmailEntity> {
  const template = await templateFor(em, request.template);
  const delivered = mailSettings() !== null;
  const email = em.create(OutboundEmail, {
    toAddress: request.to,
    template: request.template,
    subject: fillPlaceholders(template.subject, request.variables),
    textBody: fillPlaceholders(template.textBody, request.variables),
    htmlBody: htmlFromText(template.textBody, request.variables),
    unsubscribeUrl: request.unsubscribe ? unsubscribeUrl(request.unsubscribe.baseUrl, request.unsubscribe.target) : null,
    attachments: request.attachments?.length ? request.attachments : null,
    status: delivered ? 'pending' : 'logged',
    error: null,
    userId: request.userId ?? null,
    sentAt: null,
  });
  await em.flush();
  if (delivered) {
    await queueDelivery(em, email.id);
    log(`[email] queued for delivery to ${email.toAddress}: ${redactSecrets(email.subject)}`);
  } else {
    log(redactSecrets(`[email] to ${email.toAddress}: ${email.subject}\n${email.textBody}`));
  }
  return email;
}
