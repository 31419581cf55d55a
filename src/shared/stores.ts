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

// ---------------------------------------------------------------------------------------------
// Time zones

/** The zone of a new store (stores.timezone's default). */
export const DEFAULT_STORE_TIMEZONE = 'Europe/London';

/** Longest zone name a store keeps (stores.timezone is varchar(64)). */
export const TIMEZONE_MAX_LENGTH = 64;

let supportedZones: ReadonlySet<string> | null = null;

/**
 * The zones this runtime can bucket days in: Intl.supportedValuesOf('timeZone') (the IANA zones of
 * ECMA-402, one primary name each, https://tc39.es/ecma402/#sec-use-of-iana-time-zone-database)
 * plus 'UTC', which V8 leaves out of that list. Sorted, for the picker.
 */
export function supportedTimeZones(): readonly string[] {
  return [...supportedTimeZoneSet()].sort();
}

function supportedTimeZoneSet(): ReadonlySet<string> {
  supportedZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  return supportedZones;
}

/**
 * True for a zone of the list, or for another IANA name of one of its zones (a Link such as
 * 'Asia/Kolkata', which ICU lists as 'Asia/Calcutta'): Intl resolves it to a zone of the list.
 * Names are case-sensitive here, as in the IANA database; the server also asks PostgreSQL.
 */
export function isKnownTimeZone(name: string): boolean {
  const zones = supportedTimeZoneSet();
  if (zones.has(name)) return true;
  // The fixed-offset zones (Etc/GMT+5 is UTC−05:00), which Intl accepts but does not list: a
  // WooCommerce site set to a bare UTC offset has one of them (docs/platform-notes.md).
  if (/^Etc\/GMT(?:-(?:[0-9]|1[0-4])|\+(?:[0-9]|1[0-2]))$/.test(name)) return true;
  if (!/^[A-Z][A-Za-z0-9_+-]*(\/[A-Z0-9][A-Za-z0-9_+-]*)+$/.test(name)) return false;
  try {
    return zones.has(new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}

export function unknownTimeZoneMessage(name: string): string {
  return `Unknown time zone: ${name}`;
}

export const timezoneSchema = z
  .string({ error: 'Time zone must be a text such as America/New_York' })
  .trim()
  .superRefine((name, context) => {
    if (name.length > TIMEZONE_MAX_LENGTH || !isKnownTimeZone(name)) context.addIssue({ code: 'custom', message: unknownTimeZoneMessage(name) });
  });

export const TIMEZONE_CHANGE_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type TimezoneChangeStatus = (typeof TIMEZONE_CHANGE_STATUSES)[number];

/** A change of a store's zone and the rebuild of its figures that comes with it. */
export const timezoneChangeOutput = z.object({
  id: z.number(),
  storeId: z.number(),
  fromTimezone: z.string(),
  toTimezone: z.string(),
  status: z.enum(TIMEZONE_CHANGE_STATUSES),
  /** Orders and refunds whose day has been recomputed so far. */
  rowsDone: z.number(),
  /** Orders and refunds of the store; null until the rebuild has started and counted them. */
  rowsTotal: z.number().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type TimezoneChange = z.infer<typeof timezoneChangeOutput>;

export const timezoneChangeInput = z
  .object({
    /** The store to report on; the caller's active store when absent. */
    storeId: storeIdSchema.optional(),
  })
  .optional();

/** Its latest change (null: its zone was never changed with a rebuild). */
export const timezoneChangeAnswer = z.object({ change: timezoneChangeOutput.nullable() });

export const TIMEZONE_CHANGE_RUNNING_MESSAGE = (target: string) =>
  `This store's figures are being recomputed in ${target}. Change the time zone again once that has finished.`;

export const updateStoreInput = z.object({
  storeId: storeIdSchema,
  name: storeNameSchema.optional(),
  currency: currencySchema.optional(),
  /** An IANA zone: the store's days are recomputed in it (see stores/store-timezone.service.ts). */
  timezone: timezoneSchema.optional(),
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
