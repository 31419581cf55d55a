import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const OUTBOUND_EMAIL_STATUSES = ['pending', 'sent', 'failed', 'logged'] as const;

/** Every e-mail the product sends, kept for admins to inspect; `logged` = no SMTP configured yet. */
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
    status: p.enum(OUTBOUND_EMAIL_STATUSES).default('pending'),
    error: p.text().nullable(),
    userId: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    sentAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['createdAt'] }, { properties: ['toAddress', 'createdAt'] }],
});

export type OutboundEmailEntity = InferEntity<typeof OutboundEmail>;
