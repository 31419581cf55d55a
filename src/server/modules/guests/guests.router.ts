import { z } from 'zod';
import {
  acceptInvitationOutput,
  guestListOutput,
  invitationOutput,
  invitationTokenInput,
  inviteGuestInput,
  pendingInvitationOutput,
  removeGuestInput,
  revokeInvitationInput,
} from '../../../shared/guests.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure, publicProcedure, toolsProcedure } from '../../trpc/procedures.ts';
import { acceptInvitation, describeInvitation, inviteGuest, listGuests, removeGuest, revokeInvitation } from './guests.service.ts';

const success = z.object({ success: z.literal(true) });

/**
 * Guests: people a store owner lets look at one store, read-only. Inviting needs the tools of a plan
 * above basic; seeing, withdrawing and removing never do, so an owner whose plan lapsed can still
 * take access away.
 */
export const guestsRouter = router({
  invite: toolsProcedure
    .meta({ openapi: { method: 'POST', path: '/guests/invitations', tags: ['guests'], summary: 'Invite someone to view a store' }, rest: { successStatus: 201 } })
    .input(inviteGuestInput)
    .output(pendingInvitationOutput)
    .mutation(async ({ ctx, input }) => {
      const { invitation } = await inviteGuest(ctx.em, ctx.user, input, {
        origin: ctx.origin,
        actor: { userId: ctx.sessionUser.id, ip: ctx.clientIp },
      });
      return {
        id: invitation.id,
        storeId: invitation.store.id,
        storeName: invitation.store.name,
        email: invitation.email,
        createdAt: invitation.createdAt.toISOString(),
        expiresAt: invitation.expiresAt.toISOString(),
      };
    }),

  list: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/guests', tags: ['guests'], summary: "Pending invitations and guests of the caller's stores" } })
    .input(z.void())
    .output(guestListOutput)
    .query(({ ctx }) => listGuests(ctx.em, ctx.user)),

  revokeInvitation: authedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/guests/invitations/{id}', tags: ['guests'], summary: 'Withdraw a pending invitation' } })
    .input(revokeInvitationInput)
    .output(success)
    .mutation(async ({ ctx, input }) => {
      await revokeInvitation(ctx.em, ctx.user, input.id);
      return { success: true as const };
    }),

  removeGuest: authedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/stores/{storeId}/guests/{userId}', tags: ['guests'], summary: "End a guest's access to a store" } })
    .input(removeGuestInput)
    .output(success)
    .mutation(async ({ ctx, input }) => {
      await removeGuest(ctx.em, ctx.user, input, { userId: ctx.sessionUser.id, ip: ctx.clientIp });
      return { success: true as const };
    }),

  invitation: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/invitations/{token}', tags: ['guests'], summary: 'What an invitation link is for' } })
    .input(invitationTokenInput)
    .output(invitationOutput)
    .query(({ ctx, input }) => describeInvitation(ctx.em, input.token)),

  accept: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/invitations/{token}/accept', tags: ['guests'], summary: 'Accept an invitation sent to your address' } })
    .input(invitationTokenInput)
    .output(acceptInvitationOutput)
    .mutation(async ({ ctx, input }) => {
      const accepted = await acceptInvitation(ctx.em, ctx.user, input.token);
      return { success: true as const, ...accepted };
    }),
});
