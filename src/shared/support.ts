import { z } from 'zod';
import { emailSchema } from './auth.ts';

export const CONTACT_MESSAGE_STATUSES = ['new', 'answered', 'closed'] as const;
export type ContactMessageStatus = (typeof CONTACT_MESSAGE_STATUSES)[number];

export const CONTACT_NAME_MAX_LENGTH = 100;
export const CONTACT_MESSAGE_MIN_LENGTH = 10;
export const CONTACT_MESSAGE_MAX_LENGTH = 5000;

/** The help centre's contact form (spec: name, email, message). */
export const contactInput = z.object({
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(CONTACT_NAME_MAX_LENGTH, `Name must be at most ${CONTACT_NAME_MAX_LENGTH} characters`),
  email: emailSchema,
  message: z
    .string({ error: 'Message is required' })
    .trim()
    .min(1, 'Message is required')
    .min(CONTACT_MESSAGE_MIN_LENGTH, `Message must be at least ${CONTACT_MESSAGE_MIN_LENGTH} characters`)
    .max(CONTACT_MESSAGE_MAX_LENGTH, `Message must be at most ${CONTACT_MESSAGE_MAX_LENGTH.toLocaleString('en-GB')} characters`),
});
export type ContactInput = z.infer<typeof contactInput>;

export const contactMessageStatusSchema = z.enum(CONTACT_MESSAGE_STATUSES, {
  error: `Status must be one of ${CONTACT_MESSAGE_STATUSES.join(', ')}`,
});

export const contactMessageOutput = z.object({
  id: z.number(),
  userId: z.number().nullable(),
  name: z.string(),
  email: z.string(),
  message: z.string(),
  status: z.enum(CONTACT_MESSAGE_STATUSES),
  createdAt: z.string(),
});
export type ContactMessageDto = z.infer<typeof contactMessageOutput>;

export const CONTACT_MESSAGE_NOT_FOUND_MESSAGE = 'Message not found';
