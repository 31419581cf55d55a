import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Admin-editable subject and body of one kind of e-mail; `{{name}}` placeholders are filled when sending. */
export const EmailTemplate = defineEntity({
  name: 'EmailTemplate',
  tableName: 'email_templates',
  properties: {
    key: p.string().length(64).primary(),
    subject: p.string().length(255),
    textBody: p.text(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    updatedByUserId: p.integer().nullable(),
  },
});

export type EmailTemplateEntity = InferEntity<typeof EmailTemplate>;
