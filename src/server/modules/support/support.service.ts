import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CONTACT_MESSAGE_NOT_FOUND_MESSAGE,
  type ContactInput,
  type ContactMessageDto,
  type ContactMessageStatus,
} from '../../../shared/support.ts';
import { AppError } from '../../errors.ts';
import { AttemptLimiter, type AttemptLimit } from '../auth/attempt-limiter.ts';
import { sendEmail } from '../email/email.service.ts';
import { ContactMessage, type ContactMessageEntity } from './contact-message.entity.ts';

/** Messages one network may send through the contact form. */
export const CONTACT_RATE_LIMIT: AttemptLimit = { max: 5, windowMs: 60 * 60_000 };

/** Per client IP, counted in the database (like the sign-in limits). */
export const contactLimiter = new AttemptLimiter(
  'contact-ip',
  CONTACT_RATE_LIMIT,
  (minutes) => `Too many messages from this network. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
);

export function toContactMessageDto(row: ContactMessageEntity): ContactMessageDto {
  return {
    id: row.id,
    userId: row.userId ?? null,
    name: row.name,
    email: row.email,
    message: row.message,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Stores the message for the support team and confirms receipt to the sender by e-mail.
 * `userId` is the signed-in account, if any.
 */
export async function submitContactMessage(
  em: EntityManager,
  input: ContactInput,
  sender: { userId: number | null; clientIp: string | null },
): Promise<ContactMessageEntity> {
  await contactLimiter.consume(em, sender.clientIp ?? 'unknown');
  return em.transactional(async (tx) => {
    const message = tx.create(ContactMessage, {
      userId: sender.userId,
      name: input.name,
      email: input.email,
      message: input.message,
      status: 'new',
    });
    await sendEmail(tx, {
      to: input.email,
      template: 'contact_confirmation',
      variables: { name: input.name, message: input.message },
      userId: sender.userId,
    });
    return message;
  });
}

/** For the support team: newest first, optionally only one status. */
export function listContactMessages(
  em: EntityManager,
  filter: { status?: ContactMessageStatus | undefined; limit: number },
): Promise<ContactMessageEntity[]> {
  return em.find(ContactMessage, filter.status ? { status: filter.status } : {}, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
  });
}

export async function setContactMessageStatus(
  em: EntityManager,
  id: number,
  status: ContactMessageStatus,
): Promise<ContactMessageEntity> {
  const message = await em.findOne(ContactMessage, { id });
  if (!message) throw new AppError('NOT_FOUND', CONTACT_MESSAGE_NOT_FOUND_MESSAGE);
  message.status = status;
  await em.flush();
  return message;
}
