import { z } from 'zod';
import { emailSchema } from './auth.ts';
import { storeIdSchema } from './stores.ts';

/** How long an invitation link stays valid. */
export const GUEST_INVITATION_VALID_DAYS = 7;

export const INVITATION_NOT_FOUND_MESSAGE = 'Invitation not found';
export const INVITATION_WRONG_EMAIL_MESSAGE = 'This invitation was sent to another email address';
export const INVITATION_UNUSABLE_MESSAGE = 'This invitation has expired or was revoked.';
export const ALREADY_GUEST_MESSAGE = 'This person already has access to this store';
export const CANNOT_INVITE_SELF_MESSAGE = 'You cannot invite yourself';
export const GUEST_NOT_FOUND_MESSAGE = 'Guest not found';
export const INVITATION_ALREADY_ACCEPTED_MESSAGE = 'This invitation has already been accepted';

const idSchema = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .positive(`${name} must be a positive number`);

export const invitationTokenSchema = z
  .string({ error: 'Invitation token is required' })
  .trim()
  .min(1, 'Invitation token is required')
  .max(128, 'Invitation not found');

export const inviteGuestInput = z.object({
  storeId: storeIdSchema,
  email: emailSchema,
});
export type InviteGuestInput = z.infer<typeof inviteGuestInput>;

export const revokeInvitationInput = z.object({ id: idSchema('Invitation id') });
export const removeGuestInput = z.object({ storeId: storeIdSchema, userId: idSchema('User id') });
export const invitationTokenInput = z.object({ token: invitationTokenSchema });

export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const pendingInvitationOutput = z.object({
  id: z.number(),
  storeId: z.number(),
  storeName: z.string(),
  email: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type PendingInvitation = z.infer<typeof pendingInvitationOutput>;

export const storeGuestOutput = z.object({
  storeId: z.number(),
  storeName: z.string(),
  userId: z.number(),
  username: z.string(),
  email: z.string(),
  since: z.string(),
});
export type StoreGuestDto = z.infer<typeof storeGuestOutput>;

export const guestListOutput = z.object({
  invitations: z.array(pendingInvitationOutput),
  guests: z.array(storeGuestOutput),
});
export type GuestList = z.infer<typeof guestListOutput>;

export const invitationOutput = z.object({
  storeName: z.string(),
  inviterName: z.string(),
  email: z.string(),
  status: z.enum(INVITATION_STATUSES),
  expiresAt: z.string(),
});
export type InvitationDto = z.infer<typeof invitationOutput>;

export const acceptInvitationOutput = z.object({
  success: z.literal(true),
  storeId: z.number(),
  storeName: z.string(),
});
