import { z } from 'zod';
import { CURRENCY_CODES } from './currencies.ts';

export const STORE_NAME_MAX_LENGTH = 100;

export const storeNameSchema = z
  .string({ error: 'Store name is required' })
  .trim()
  .min(1, 'Store name is required')
  .max(STORE_NAME_MAX_LENGTH, `Store name must be at most ${STORE_NAME_MAX_LENGTH} characters`);

export const currencySchema = z.enum(CURRENCY_CODES, {
  error: `Currency must be one of ${CURRENCY_CODES.join(', ')}`,
});

/** The caller's relation to a store: its owner, or a guest who may only look. */
export const STORE_ROLES = ['owner', 'guest'] as const;
export type StoreRole = (typeof STORE_ROLES)[number];

export const storeIdSchema = z.coerce
  .number({ error: 'Store id must be a number' })
  .int('Store id must be a whole number')
  .positive('Store id must be a positive number');

export const createStoreInput = z.object({ name: storeNameSchema });

export const updateStoreInput = z.object({
  storeId: storeIdSchema,
  name: storeNameSchema.optional(),
  currency: currencySchema.optional(),
});

export const storeOutput = z.object({
  id: z.number(),
  name: z.string(),
  currency: z.enum(CURRENCY_CODES),
  timezone: z.string(),
  createdAt: z.string(),
  /** 'guest' when the store was shared with the caller through an invitation (read-only). */
  role: z.enum(STORE_ROLES),
  ownerUsername: z.string(),
});
export type Store = z.infer<typeof storeOutput>;

export const dashboardLimitsOutput = z.object({
  isAdmin: z.boolean(),
  canAddMore: z.boolean(),
  currentDashboards: z.number(),
  /** null when unlimited (admins). */
  maxDashboards: z.number().nullable(),
  remainingDashboards: z.number().nullable(),
});
export type DashboardLimits = z.infer<typeof dashboardLimitsOutput>;

export const DASHBOARD_LIMIT_REACHED_MESSAGE =
  "You've reached your dashboard limit. Please upgrade your plan to create more dashboards.";
