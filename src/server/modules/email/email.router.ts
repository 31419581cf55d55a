import { z } from 'zod';
import { emailTemplateInput, emailTemplateOutput, mailDeliveryOutput, outboundEmailOutput, type EmailTemplateDto } from '../../../shared/email.ts';
import { AppError } from '../../errors.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure } from '../../trpc/procedures.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { EmailTemplate } from './email-template.entity.ts';
import { DEFAULT_EMAIL_TEMPLATES, isEmailTemplateKey, queueDelivery, redactSecrets, type EmailTemplateKey } from './email.service.ts';
import { mailSettings } from './mail-settings.ts';
import { OutboundEmail } from './outbound-email.entity.ts';

const TEMPLATE_NOT_FOUND_MESSAGE = 'Email template not found';
export const MAIL_NOT_CONFIGURED_MESSAGE = 'E-mail delivery is not configured: set SMTP_URL and MAIL_FROM on the server';

function templateKey(key: string): EmailTemplateKey {
  if (!isEmailTemplateKey(key)) throw new AppError('NOT_FOUND', TEMPLATE_NOT_FOUND_MESSAGE);
  return key;
}

function toTemplateDto(key: EmailTemplateKey, saved: { subject: string; textBody: string; updatedAt: Date } | null): EmailTemplateDto {
  const shipped = DEFAULT_EMAIL_TEMPLATES[key];
  return {
    key,
    subject: saved?.subject ?? shipped.subject,
    textBody: saved?.textBody ?? shipped.textBody,
    variables: [...shipped.variables],
    customized: saved !== null,
    updatedAt: saved?.updatedAt.toISOString() ?? null,
  };
}

/** Admin: the e-mails the product sends (templates) and has sent (outbox). */
export const emailRouter = router({
  templates: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/email-templates', tags: ['admin'], summary: 'E-mail templates in force' } })
    .input(z.void())
    .output(z.array(emailTemplateOutput))
    .query(async ({ ctx }) => {
      const saved = new Map((await ctx.em.find(EmailTemplate, {})).map((row) => [row.key, row]));
      return (Object.keys(DEFAULT_EMAIL_TEMPLATES) as EmailTemplateKey[]).map((key) => toTemplateDto(key, saved.get(key) ?? null));
    }),

  updateTemplate: adminProcedure
    .meta({ openapi: { method: 'PUT', path: '/admin/email-templates/{key}', tags: ['admin'], summary: 'Change a template' } })
    .input(emailTemplateInput)
    .output(emailTemplateOutput)
    .mutation(async ({ ctx, input }) => {
      const key = templateKey(input.key);
      const row = await ctx.em.upsert(EmailTemplate, {
        key,
        subject: input.subject,
        textBody: input.textBody,
        updatedAt: new Date(),
        updatedByUserId: ctx.actorUserId,
      });
      ctx.em.create(AuditLogEntry, { actorUserId: ctx.actorUserId, targetUserId: null, action: 'email_template.updated', details: { key }, ipAddress: ctx.clientIp });
      await ctx.em.flush();
      return toTemplateDto(key, row);
    }),

  resetTemplate: adminProcedure
    .meta({ openapi: { method: 'DELETE', path: '/admin/email-templates/{key}', tags: ['admin'], summary: 'Back to the shipped template' } })
    .input(z.object({ key: z.string() }))
    .output(emailTemplateOutput)
    .mutation(async ({ ctx, input }) => {
      const key = templateKey(input.key);
      await ctx.em.nativeDelete(EmailTemplate, { key });
      return toTemplateDto(key, null);
    }),

  /**
   * Admins see the links of e-mails with their tokens blanked out (a reset link is the account). The
   * admin CLI, run by whoever operates the server and its database, sees them whole: until SMTP is set
   * up, `npm run admin -- outbox` is how a logged e-mail's link reaches its recipient.
   */
  outbox: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/emails', tags: ['admin'], summary: 'E-mails sent (or logged), newest first' } })
    .input(z.object({ to: z.string().trim().optional(), limit: z.coerce.number().int().min(1).max(500).default(100) }))
    .output(z.array(outboundEmailOutput))
    .query(async ({ ctx, input }) => {
      const rows = await ctx.em.find(
        OutboundEmail,
        input.to ? { toAddress: { $ilike: input.to.replace(/[\\%_]/g, '\\$&') } } : {},
        { orderBy: { id: 'desc' }, limit: input.limit },
      );
      return rows.map((row) => ({
        id: row.id,
        toAddress: row.toAddress,
        template: row.template,
        subject: ctx.systemActor ? row.subject : redactSecrets(row.subject),
        textBody: ctx.systemActor ? row.textBody : redactSecrets(row.textBody),
        status: row.status,
        error: row.error ?? null,
        attempts: row.attempts,
        serverResponse: row.serverResponse ?? null,
        messageId: row.messageId ?? null,
        hasHtml: Boolean(row.htmlBody),
        attachmentNames: (row.attachments ?? []).map((file) => file.filename),
        createdAt: row.createdAt.toISOString(),
        sentAt: row.sentAt?.toISOString() ?? null,
      }));
    }),

  delivery: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/email-delivery', tags: ['admin'], summary: 'Whether e-mail is delivered through SMTP' } })
    .input(z.void())
    .output(mailDeliveryOutput)
    .query(() => {
      const settings = mailSettings();
      return settings
        ? { configured: true, host: settings.host, port: settings.port, secure: settings.secure, from: settings.from }
        : { configured: false, host: null, port: null, secure: null, from: null };
    }),

  /** A failed e-mail back on the delivery queue (after the administrator fixed the address or the server). */
  retry: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/emails/{id}/retry', tags: ['admin'], summary: 'Deliver a failed e-mail again' } })
    .input(z.object({ id: z.coerce.number().int().positive() }))
    .output(z.object({ id: z.number(), status: outboundEmailOutput.shape.status }))
    .mutation(async ({ ctx, input }) => {
      if (!mailSettings()) throw new AppError('BAD_REQUEST', MAIL_NOT_CONFIGURED_MESSAGE);
      return ctx.em.transactional(async (tx) => {
        const email = await tx.findOne(OutboundEmail, { id: input.id });
        if (!email) throw new AppError('NOT_FOUND', 'E-mail not found');
        if (email.status !== 'failed') throw new AppError('BAD_REQUEST', 'Only a failed e-mail can be sent again');
        email.status = 'pending';
        email.error = null;
        // The recipient's address stays out of the entry: the e-mail's id leads to it while the e-mail is kept.
        tx.create(AuditLogEntry, { actorUserId: ctx.actorUserId, targetUserId: email.userId ?? null, action: 'email.retry_delivery', details: { emailId: email.id, template: email.template }, ipAddress: ctx.clientIp });
        await tx.flush();
        await queueDelivery(tx, email.id);
        return { id: email.id, status: email.status };
      });
    }),
});
