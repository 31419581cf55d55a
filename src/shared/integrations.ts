import { z } from 'zod';
import { PLATFORM_KEYS } from './platforms.ts';

// The integrations screen's contract: connecting platforms, their sync runs and the reconciliation of
// our figures with the platform's own. Shared by the client and the integrations router.

export const platformKeySchema = z.enum(PLATFORM_KEYS);

/** 'choose_accounts': signed in, but the login reaches several ad accounts and the user has not chosen which to sync yet. */
export const CONNECTION_STATUSES = ['not_connected', 'connected', 'syncing', 'disconnected', 'error', 'choose_accounts'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const SYNC_RUN_KINDS = ['backfill', 'incremental'] as const;
export type SyncRunKind = (typeof SYNC_RUN_KINDS)[number];

export const SYNC_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type SyncRunStatus = (typeof SYNC_RUN_STATUSES)[number];

const RECONCILIATION_REASONS = [
  'edited_after_sync',
  'refunded_later',
  'test_order',
  'other_currency',
  'cancelled',
  'unpaid',
  'missing_here',
  'missing_at_source',
] as const;

export const DEFAULT_BACKFILL_MONTHS = 12;
export const MAX_BACKFILL_MONTHS = 36;
/** An uploaded e-mail metrics CSV may be this large (characters of text). */
export const MAX_EMAIL_CSV_CHARACTERS = 5 * 1024 * 1024;

const instant = z.string().nullable();

const syncRunSchema = z.object({
  id: z.number(),
  kind: z.enum(SYNC_RUN_KINDS),
  status: z.enum(SYNC_RUN_STATUSES),
  rowsDone: z.number(),
  estimatedTotal: z.number().nullable(),
  startedAt: instant,
  finishedAt: instant,
  error: z.string().nullable(),
});
export type SyncRunView = z.infer<typeof syncRunSchema>;

/** Our figures beside the platform's, for the whole period and for each day that differs. */
const reconciliationFigures = {
  ourOrders: z.number(),
  sourceOrders: z.number().nullable(),
  ourNetSales: z.number(),
  sourceNetSales: z.number().nullable(),
  ourSpend: z.number().optional(),
  sourceSpend: z.number().nullable().optional(),
};

const reconciliationDaySchema = z.object({
  day: z.string(),
  ...reconciliationFigures,
  /** Ads: the account the day's spend is of, and its currency (when not the result's). */
  accountId: z.string().optional(),
  currency: z.string().optional(),
});

const reconciliationExplanationSchema = z.object({
  orderExternalId: z.string(),
  orderNumber: z.string().nullable(),
  reason: z.enum(RECONCILIATION_REASONS),
  detail: z.string(),
});
export type ReconciliationExplanation = z.infer<typeof reconciliationExplanationSchema>;

/** Money in minor units of `currency`; a `source*` figure is null when the platform does not report it. */
const reconciliationSchema = z.object({
  checkedAt: z.string(),
  from: z.string(),
  to: z.string(),
  matches: z.boolean(),
  currency: z.string(),
  ...reconciliationFigures,
  /** Only the days that do not match. */
  days: z.array(reconciliationDaySchema),
  explanations: z.array(reconciliationExplanationSchema),
});
export type ReconciliationView = z.infer<typeof reconciliationSchema>;

/** An account the login reaches (ads platforms), as the platform last listed it. */
const connectionAccountSchema = z.object({
  accountId: z.string(),
  name: z.string(),
  currency: z.string().nullable(),
  /** The IANA zone the platform reports the account's days in. */
  timezone: z.string().nullable(),
  /** A manager account (Google Ads MCC): no metrics of its own, never synced. */
  isManager: z.boolean(),
  selected: z.boolean(),
  /** Its days are not the store's days: a day's spend is the platform's day, not shifted. */
  timezoneDiffers: z.boolean(),
});
export type ConnectionAccountView = z.infer<typeof connectionAccountSchema>;

const integrationSchema = z.object({
  platform: platformKeySchema,
  displayName: z.string(),
  kind: z.enum(['store', 'ads', 'email']),
  authKind: z.enum(['oauth', 'credentials', 'upload']),
  credentialFields: z.array(z.string()),
  status: z.enum(CONNECTION_STATUSES),
  accountName: z.string().nullable(),
  connectedAt: instant,
  lastSyncAt: instant,
  lastCheckedAt: instant,
  rowsSynced: z.number(),
  lastError: z.string().nullable(),
  disconnectReason: z.string().nullable(),
  backfillMonths: z.number(),
  currentRun: syncRunSchema.nullable(),
  /** What the latest sync let the user know without stopping (a missing permission, a token about to expire). */
  warnings: z.array(z.string()),
  /** Whether the platform's login can reach several accounts (the user chooses which ones are synced). */
  canChooseAccounts: z.boolean(),
  /** The accounts listed for the connection, chosen or not (empty for platforms with one account per login). */
  accounts: z.array(connectionAccountSchema),
  /** The store's time zone, and the connected account's own when the platform says (shop, single ad account). */
  storeTimezone: z.string(),
  accountTimezone: z.string().nullable(),
  reconciliation: reconciliationSchema.nullable(),
  /**
   * WooCommerce only, for the store's owner: where WooCommerce delivers order webhooks and the
   * secret to enter there (WooCommerce > Settings > Advanced > Webhooks). null elsewhere.
   */
  webhook: z.object({ url: z.string(), secret: z.string() }).nullable(),
});
export type Integration = z.infer<typeof integrationSchema>;

const storeIdInput = { storeId: z.number().int().positive().optional() };

export const listIntegrationsInput = z.object({ ...storeIdInput }).optional();
export const listIntegrationsOutput = z.array(integrationSchema);

export const platformInput = z.object({ platform: platformKeySchema, ...storeIdInput });

export const startOAuthInput = z.object({
  platform: platformKeySchema,
  /** Shopify: the shop's address, e.g. my-store.myshopify.com. */
  shop: z.string().trim().min(1).max(255).optional(),
  ...storeIdInput,
});
export const startOAuthOutput = z.object({ authorizeUrl: z.string() });

export const connectInput = z.object({
  platform: platformKeySchema,
  credentials: z.record(z.string(), z.string().max(2000)),
  ...storeIdInput,
});

export const uploadEmailCsvInput = z.object({
  fileName: z.string().trim().min(1, 'Choose a file to upload').max(255),
  csvText: z.string().min(1, 'The file is empty').max(MAX_EMAIL_CSV_CHARACTERS, 'The file must be at most 5 MB'),
  ...storeIdInput,
});

export const setBackfillMonthsInput = z.object({
  platform: platformKeySchema,
  months: z.number().int().min(1, 'Backfill at least 1 month').max(MAX_BACKFILL_MONTHS, `Backfill at most ${MAX_BACKFILL_MONTHS} months`),
  ...storeIdInput,
});

export const integrationOutput = integrationSchema;

export const chooseAccountsInput = z.object({
  platform: platformKeySchema,
  accountIds: z.array(z.string().min(1).max(255)).min(1, 'Choose at least one account to sync.').max(200),
  ...storeIdInput,
});

export const listAccountsOutput = z.object({
  accounts: z.array(connectionAccountSchema),
  /** Set when the platform could not be asked just now: the accounts are the ones listed before. */
  listError: z.string().nullable(),
});
