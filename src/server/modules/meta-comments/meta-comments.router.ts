import { z } from 'zod';
import {
  COMMENT_ACTIONS, actionResult, commentFilters, commentIds, commentRow, commentRules, replyInput, replyTemplate, replyTemplateInput, syncState,
} from '../../../shared/meta-comments.ts';
import { router } from '../../trpc/init.ts';
import { adminToolsStoreProcedure } from '../../trpc/procedures.ts';
import {
  actOnComments, deleteTemplate, listComments, replyToComment, rulesOf, saveTemplate, syncComments, syncStateOf, templatesOf, updateRules,
} from './meta-comments.service.ts';

// The Meta comments manager (README, "Meta comments manager"): admins only, on their active store.

export const metaCommentsRouter = router({
  list: adminToolsStoreProcedure
    .input(commentFilters)
    .output(z.object({ comments: z.array(commentRow), complaintsToSee: z.number().int() }))
    .query(({ ctx, input }) => listComments(ctx.em, ctx.store, input)),

  status: adminToolsStoreProcedure
    .input(z.void())
    .output(syncState)
    .query(({ ctx }) => syncStateOf(ctx.em, ctx.store)),

  /** "Sync now": reads every comment from Meta at once (the job does the same every 15 minutes). */
  syncNow: adminToolsStoreProcedure
    .input(z.object({}).strict().optional())
    .output(syncState)
    .mutation(({ ctx }) => syncComments(ctx.em, ctx.store, { llm: ctx.services.llm })),

  act: adminToolsStoreProcedure
    .input(z.object({ commentIds, action: z.enum(COMMENT_ACTIONS) }))
    .output(actionResult)
    .mutation(({ ctx, input }) => actOnComments(ctx.em, ctx.store, input.commentIds, input.action)),

  reply: adminToolsStoreProcedure
    .input(replyInput)
    .output(commentRow)
    .mutation(({ ctx, input }) => replyToComment(ctx.em, ctx.store, input.commentId, input.message)),

  rules: adminToolsStoreProcedure
    .input(z.void())
    .output(commentRules)
    .query(({ ctx }) => rulesOf(ctx.em, ctx.store)),

  updateRules: adminToolsStoreProcedure
    .input(commentRules)
    .output(commentRules)
    .mutation(({ ctx, input }) => updateRules(ctx.em, ctx.store, input)),

  templates: adminToolsStoreProcedure
    .input(z.void())
    .output(z.array(replyTemplate))
    .query(({ ctx }) => templatesOf(ctx.em, ctx.store)),

  saveTemplate: adminToolsStoreProcedure
    .input(replyTemplateInput.extend({ id: z.number().int().positive().optional() }))
    .output(z.array(replyTemplate))
    .mutation(({ ctx, input }) => saveTemplate(ctx.em, ctx.store, input)),

  deleteTemplate: adminToolsStoreProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .output(z.array(replyTemplate))
    .mutation(({ ctx, input }) => deleteTemplate(ctx.em, ctx.store, input.id)),
});
