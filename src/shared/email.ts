import { z } from 'zod';

export const emailTemplateInput = z.object({
  key: z.string().min(1, 'Template is required'),
  subject: z.string().trim().min(1, 'Subject is required').max(255, 'Subject must be at most 255 characters'),
  textBody: z.string().trim().min(1, 'Body is required').max(20_000, 'Body must be at most 20,000 characters'),
});

export const emailTemplateOutput = z.object({
  key: z.string(),
  subject: z.string(),
  textBody: z.string(),
  variables: z.array(z.string()),
  customized: z.boolean(),
  updatedAt: z.string().nullable(),
});
export type EmailTemplateDto = z.infer<typeof emailTemplateOutput>;

export const outboundEmailOutput = z.object({
  id: z.number(),
  toAddress: z.string(),
  template: z.string(),
  subject: z.string(),
  textBody: z.string(),
  status: z.enum(['pending', 'sent', 'failed', 'logged']),
  error: z.string().nullable(),
  /** Delivery attempts made, and the SMTP server's last answer (response line). */
  attempts: z.number(),
  serverResponse: z.string().nullable(),
  messageId: z.string().nullable(),
  hasHtml: z.boolean(),
  attachmentNames: z.array(z.string()),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
});
export type OutboundEmailDto = z.infer<typeof outboundEmailOutput>;

/** Whether the server delivers e-mail (SMTP_URL set), and where from; the password never leaves the server. */
export const mailDeliveryOutput = z.object({
  configured: z.boolean(),
  host: z.string().nullable(),
  port: z.number().nullable(),
  secure: z.boolean().nullable(),
  from: z.string().nullable(),
});
export type MailDeliveryDto = z.infer<typeof mailDeliveryOutput>;
