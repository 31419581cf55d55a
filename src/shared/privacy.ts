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
