import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { PRIVACY_REQUEST_KINDS } from '../../../shared/privacy.ts';
import { Store } from '../stores/store.entity.ts';

/**
 * A privacy request a platform sent about one of a store's customers (Shopify's customers/data_request)
 * and the export we made for the store's owner to answer it: a zip under DATA_DIR (`fileName`),
 * downloadable by the owner until `expiresAt` (Shopify gives the merchant 30 days to answer).
 * Deleted with the store's data (shop/redact) or the customer's (customers/redact).
 */
export const PrivacyRequest = defineEntity({
  name: 'PrivacyRequest',
  tableName: 'privacy_requests',
  properties: {
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    id: p.integer().primary().autoincrement(),
    kind: p.enum(PRIVACY_REQUEST_KINDS),
    shop: p.string().length(255),
    /** The platform's customer id the request names. */
    customerExternalId: p.string().length(255),
    /** The platform's id of the request (Shopify's data_request.id). */
    platformRequestId: p.string().length(64).nullable(),
    ordersCount: p.integer().default(0),
    fileName: p.string().length(128),
    sizeBytes: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
  indexes: [{ properties: ['store', 'createdAt'] }],
});
export type PrivacyRequestEntity = InferEntity<typeof PrivacyRequest>;
