import { z } from 'zod';

export const PRIVACY_REQUEST_KINDS = ['shopify_customer_data_request'] as const;
export type PrivacyRequestKind = (typeof PRIVACY_REQUEST_KINDS)[number];

/** Shopify gives the merchant 30 days to answer a customer's data request; the export lives as long. */
export const PRIVACY_EXPORT_DAYS = 30;

export const privacyRequestIdInput = z.object({ id: z.number().int().positive() });

export interface PrivacyRequestRow {
  id: number;
  kind: PrivacyRequestKind;
  storeId: number;
  storeName: string;
  shop: string;
  customerId: string;
  ordersCount: number;
  sizeBytes: number;
  createdAt: string;
  expiresAt: string;
}

/** Days between asking to delete an account and its deletion; the account is disabled meanwhile. */
export const ACCOUNT_DELETION_GRACE_DAYS = 14;
export const ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE = 'This account is scheduled for deletion. Cancel the deletion to use it again.';
export const LAST_ADMIN_DELETION_MESSAGE = 'The last administrator cannot be deleted';
export const ACCOUNT_DELETION_REASON_MAX = 500;

/** Deleting one's own account: the current password again, as changing the e-mail address asks. */
export const deleteOwnAccountInput = z.object({
  currentPassword: z.string({ error: 'Current password is required' }).min(1, 'Current password is required').max(1024),
});

export const adminDeleteUserInput = z.object({
  userId: z.number().int().positive(),
  reason: z.string().trim().min(1, 'Give a reason').max(ACCOUNT_DELETION_REASON_MAX),
});

/** Days a user's own data export stays downloadable. */
export const ACCOUNT_EXPORT_DAYS = 7;
export const ACCOUNT_EXPORT_STATUSES = ['queued', 'running', 'ready', 'failed'] as const;

export interface AccountExportRow {
  id: number;
  status: (typeof ACCOUNT_EXPORT_STATUSES)[number];
  sizeBytes: number;
  createdAt: string;
  finishedAt: string | null;
  expiresAt: string | null;
}
