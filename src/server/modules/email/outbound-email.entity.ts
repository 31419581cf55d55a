import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const OUTBOUND_EMAIL_STATUSES = ['pending', 'sent', 'failed', 'logged'] as const;

/** A file sent with an e-mail (a scheduled report's CSV): small text documents only. */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

/**
 * Every e-mail the product sends, kept for admins to inspect. `logged` = no SMTP configured (written to
 * the server log only); `pending` = waiting for the delivery job (email-delivery.ts); `sent` / `failed`
 * with the SMTP server's answer.
 */
export const OutboundEmail = defineEntity({
  name: 'OutboundEmail',
  tableName: 'outbound_emails',
  properties: {
    id: p.integer().primary().autoincrement(),
    toAddress: p.string().length(254),
    /** Key of the EmailTemplate it was rendered from. */
    template: p.string().length(64),
    subject: p.string().length(255),
    textBody: p.text(),
    /** The HTML part, rendered from the same template with the variables escaped; null for e-mails from before it existed. */
    htmlBody: p.text().nullable(),
    /** Signed one-click unsubscribe address (List-Unsubscribe); null for transactional mail. */
    unsubscribeUrl: p.text().nullable(),
    attachments: p.json<EmailAttachment[]>().nullable(),
    status: p.enum(OUTBOUND_EMAIL_STATUSES).default('pending'),
    error: p.text().nullable(),
    /** Delivery attempts made (connections to the SMTP server that got as far as an answer or a failure). */
    attempts: p.integer().default(0),
    /** The SMTP server's last answer: the response line of an accepted or refused message. */
    serverResponse: p.text().nullable(),
    messageId: p.string().length(998).nullable(),
    userId: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    sentAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['createdAt'] }, { properties: ['toAddress', 'createdAt'] }],
});

export type OutboundEmailEntity = InferEntity<typeof OutboundEmail>;
