import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const CONTACT_MESSAGE_STATUSES = ['new', 'answered', 'closed'] as const;

/** A message sent through the help centre's contact form. */
export const ContactMessage = defineEntity({
  name: 'ContactMessage',
  tableName: 'contact_messages',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer().nullable(),
    name: p.string().length(100),
    email: p.string().length(254),
    message: p.text(),
    status: p.enum(CONTACT_MESSAGE_STATUSES).default('new'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['status', 'createdAt'] }],
});

export type ContactMessageEntity = InferEntity<typeof ContactMessage>;
