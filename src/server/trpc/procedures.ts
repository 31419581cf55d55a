import { tierIncludesAiTools } from '../../shared/plans.ts';
import { AppError } from '../errors.ts';
import { activeStoreOf, storeRoleOf } from '../modules/stores/stores.service.ts';
import { accessOf } from '../modules/subscriptions/subscriptions.service.ts';
import { t } from './init.ts';

export const GUEST_MODE_READ_ONLY_MESSAGE = 'Guest mode is read-only';
export const SIGN_IN_REQUIRED_MESSAGE = 'You must be signed in to do that';
export const SUBSCRIPTION_REQUIRED_MESSAGE = 'You need an active subscription to access this feature';
export const TOOLS_NOT_IN_PLAN_MESSAGE = 'AI tools are not included in your plan. Please upgrade your plan to use them.';
export const ADMIN_REQUIRED_MESSAGE = 'Administrator access required';
export const NO_ACTIVE_STORE_MESSAGE = 'No active store selected';
export const VIEW_ONLY_STORE_MESSAGE = 'You have view-only access to this store';
export const NUL_CHARACTER_MESSAGE = 'Text must not contain NUL characters';

/** The path ("name", "lines.2.title") of the first string or key holding U+0000, or null when there is none. */
export function pathOfNulCharacter(value: unknown, path: string[] = [], depth = 0): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (typeof value !== 'object' || value === null || depth > 32) return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key];
    const found = pathOfNulCharacter(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Every procedure starts here. Text with U+0000 is refused for every input (PostgreSQL cannot store
 * it in text, so it would otherwise end as a 500), and guest mode lets an admin look, never change.
 */
export const publicProcedure = t.procedure.use(async ({ ctx, type, meta, next, getRawInput }) => {
  const nulAt = pathOfNulCharacter(await getRawInput());
  if (nulAt) {
    throw new AppError('BAD_REQUEST', NUL_CHARACTER_MESSAGE, { fieldErrors: [{ field: nulAt.join('.'), message: NUL_CHARACTER_MESSAGE }] });
  }
  if (ctx.guestMode && type === 'mutation' && !meta?.allowedInGuestMode) {
    throw new AppError('FORBIDDEN', GUEST_MODE_READ_ONLY_MESSAGE);
  }
  return next();
});

export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.sessionUser || !ctx.user) throw new AppError('UNAUTHORIZED', SIGN_IN_REQUIRED_MESSAGE);
  return next({ ctx: { ...ctx, sessionUser: ctx.sessionUser, user: ctx.user } });
});

/** Admins, or users whose subscription (trial included) is live. */
export const subscribedProcedure = authedProcedure.use(async ({ ctx, next }) => {
  const access = await accessOf(ctx.em, ctx.user.id);
  if (!ctx.sessionUser.isAdmin && !access.hasActiveSubscription) {
    throw new AppError('FORBIDDEN', SUBSCRIPTION_REQUIRED_MESSAGE);
  }
  return next({ ctx: { ...ctx, access } });
});

/** AI tools: admins not in guest mode, or plans above basic. */
export const toolsProcedure = subscribedProcedure.use(({ ctx, next }) => {
  const adminOwnView = ctx.sessionUser.isAdmin && !ctx.guestMode;
  if (!adminOwnView && !tierIncludesAiTools(ctx.access.tier)) {
    throw new AppError('FORBIDDEN', TOOLS_NOT_IN_PLAN_MESSAGE);
  }
  return next();
});

/** Administrators, and the admin CLI (which has no account). */
export const adminProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.systemActor) return next({ ctx: { ...ctx, actorUserId: null as number | null } });
  if (!ctx.sessionUser) throw new AppError('UNAUTHORIZED', SIGN_IN_REQUIRED_MESSAGE);
  if (!ctx.sessionUser.isAdmin) throw new AppError('FORBIDDEN', ADMIN_REQUIRED_MESSAGE);
  return next({ ctx: { ...ctx, actorUserId: ctx.sessionUser.id as number | null } });
});

/**
 * Tenant data: ctx.store is the caller's active store, which they own or were invited to view.
 * Invited viewers read; only the owner changes a store's data.
 */
export const storeProcedure = subscribedProcedure.use(async ({ ctx, type, next }) => {
  return next({ ctx: { ...ctx, ...(await activeStoreContext(ctx, type)) } });
});

/** The AI tools' data of the active store: the tools' access rule, then the store's. */
export const toolsStoreProcedure = toolsProcedure.use(async ({ ctx, type, next }) => {
  return next({ ctx: { ...ctx, ...(await activeStoreContext(ctx, type)) } });
});

async function activeStoreContext(
  ctx: { em: Parameters<typeof activeStoreOf>[0]; user: Parameters<typeof activeStoreOf>[1]; guestMode: boolean; session: { guestActiveStoreId?: number | null } },
  type: string,
) {
  const store = await activeStoreOf(ctx.em, ctx.user, ctx.guestMode ? (ctx.session.guestActiveStoreId ?? null) : null);
  if (!store) throw new AppError('BAD_REQUEST', NO_ACTIVE_STORE_MESSAGE);
  const storeRole = storeRoleOf(store, ctx.user);
  if (type === 'mutation' && storeRole === 'guest') throw new AppError('FORBIDDEN', VIEW_ONLY_STORE_MESSAGE);
  return { store, storeRole };
}

/** Admin-only tools (Meta Comments, Shopping Optimizer) on the active store: an admin's own view, never guest mode. */
export const adminToolsStoreProcedure = subscribedProcedure.use(async ({ ctx, type, next }) => {
  if (!ctx.sessionUser.isAdmin || ctx.guestMode) throw new AppError('FORBIDDEN', ADMIN_REQUIRED_MESSAGE);
  return next({ ctx: { ...ctx, ...(await activeStoreContext(ctx, type)) } });
});
