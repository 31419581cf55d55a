import { z } from 'zod';
import {
  contactInput,
  contactMessageOutput,
  contactMessageStatusSchema,
} from '../../../shared/support.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure, publicProcedure } from '../../trpc/procedures.ts';
import { listContactMessages, setContactMessageStatus, submitContactMessage, toContactMessageDto } from './support.service.ts';

const messageIdSchema = z.coerce
  .number({ error: 'Message id must be a number' })
  .int('Message id must be a whole number')
  .positive('Message id must be a positive number');

export const supportRouter = router({
  /** The help centre's contact form; open to everyone, rate-limited per network. */
  contact: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/contact', tags: ['support'], summary: 'Send a message to support' } })
    .input(contactInput)
    .output(z.object({ success: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await submitContactMessage(ctx.em, input, { userId: ctx.sessionUser?.id ?? null, clientIp: ctx.clientIp });
      return { success: true as const };
    }),

  messages: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/contact-messages', tags: ['admin'], summary: 'Contact messages, newest first' } })
    .input(
      z.object({
        status: contactMessageStatusSchema.optional(),
        limit: z.coerce.number().int().min(1).max(500).default(100),
      })
      .prefault({}),
    )
    .output(z.array(contactMessageOutput))
    .query(async ({ ctx, input }) => (await listContactMessages(ctx.em, input)).map(toContactMessageDto)),

  setStatus: adminProcedure
    .meta({ openapi: { method: 'PATCH', path: '/admin/contact-messages/{id}', tags: ['admin'], summary: 'Mark a message answered or closed' } })
    .input(z.object({ id: messageIdSchema, status: contactMessageStatusSchema }))
    .output(contactMessageOutput)
    .mutation(async ({ ctx, input }) => toContactMessageDto(await setContactMessageStatus(ctx.em, input.id, input.status))),
});
