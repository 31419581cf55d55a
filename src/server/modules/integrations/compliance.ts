import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShopifyComplianceRequest } from '../../connectors/shopify/webhooks.ts';
import { AuditLogEntry, type AUDIT_ACTIONS } from '../admin/audit-log.entity.ts';
import { hashEmail } from '../commerce/ingest.ts';
import { sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { lockStoreForIngest, recomputeRollups } from '../commerce/rollups.ts';
import type { PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { createCustomerDataExport, deletePrivacyExports } from '../privacy/privacy.service.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { redactCustomerTracking } from '../tracking/customer-redaction.ts';

// Shopify's mandatory compliance webhooks acted on (docs/platform-notes.md, "Compliance webhooks";
// https://shopify.dev/docs/apps/build/compliance/privacy-law-compliance). What we hold of a person:
// the customer row (Shopify's customer id, the SHA-256 of the e-mail address), on their orders the
// landing page, referrer and ad click ids of the visit, the notes of their refunds, and the raw
// webhook bodies of their orders (name, e-mail, addresses) kept for 30 days. Amounts, days and
// products are the shop's business figures, not personal data: they stay so that the store's totals
// do not change. Every request is written to the audit log (the admin console's "Recent activity").

export const SHOPIFY_SHOP_REDACTED_REASON =
  "Shopify asked for this shop's data to be erased (shop/redact, sent 48 hours after the app was uninstalled): its orders, customers and products were deleted.";

type AuditAction = (typeof AUDIT_ACTIONS)[number];

const AUDIT_ACTION: Record<ShopifyComplianceRequest['topic'], AuditAction> = {
  'customers/data_request': 'shopify.customer_data_request',
  'customers/redact': 'shopify.customer_redact',
  'shop/redact': 'shopify.shop_redact',
};

/** Topics whose bodies carry a customer's personal data (the REST order or refund with its customer). */
const PERSONAL_TOPICS = ['orders/create', 'orders/updated', 'refunds/create'];

function audit(em: EntityManager, request: ShopifyComplianceRequest, store: Pick<StoreEntity, 'id' | 'name' | 'owner'> | null, details: Record<string, unknown>): void {
  em.create(AuditLogEntry, {
    actorUserId: null,
    targetUserId: store?.owner.id ?? null,
    action: AUDIT_ACTION[request.topic],
    details: { shop: request.shopDomain, ...(store ? { storeId: store.id, storeName: store.name } : {}), ...details },
    ipAddress: null,
  });
}

/** A compliance request for a shop no store holds data of (never connected, or erased already): recorded, nothing to do. */
export async function auditComplianceWithoutData(em: EntityManager, request: ShopifyComplianceRequest, webhookId: string): Promise<void> {
  audit(em, request, null, { webhookId, held: 'nothing: no store is connected to this shop' });
  await em.flush();
}

/** The store's customer rows the request names: by Shopify's customer id, or by the e-mail address's hash. */
async function customersNamed(q: SqlRunner, storeId: number, customer: NonNullable<ShopifyComplianceRequest['customer']>): Promise<{ id: number; email_hash: string | null }[]> {
  return q.rows(
    `select id, email_hash from customers
      where store_id = $1 and platform = 'shopify' and (external_id = $2 or ($3::text is not null and email_hash = $3))`,
    [storeId, customer.id ?? '', customer.email ? hashEmail(customer.email) : null],
  );
}

/** The store's Shopify orders of those customers or among `orderIds`. */
async function ordersNamed(q: SqlRunner, storeId: number, customerIds: number[], orderIds: string[]): Promise<{ id: number; external_id: string; order_number: string | null; placed_at: Date }[]> {
  return q.rows(
    `select id, external_id, order_number, placed_at from orders
      where store_id = $1 and platform = 'shopify' and (customer_id = any($2::bigint[]) or external_id = any($3::text[]))
      order by placed_at, id`,
    [storeId, customerIds, orderIds],
  );
}

/**
 * customers/data_request: what we hold about the customer, exported for the store's owner (who
 * answers the customer: the privacy requests list on /settings, a zip for 30 days) and recorded in
 * the audit log with Shopify's request id and the export's.
 */
async function recordDataRequest(em: EntityManager, store: StoreEntity, request: ShopifyComplianceRequest): Promise<void> {
  const q = sqlRunner(em);
  const customers = await customersNamed(q, store.id, request.customer!);
  const orders = await ordersNamed(q, store.id, customers.map((row) => row.id), request.orderIds);
  const exported = await createCustomerDataExport(
    q,
    {
      storeId: store.id,
      customerIds: customers.map((row) => row.id),
      orderIds: orders.map((order) => order.id),
      platformCustomerIds: request.customer!.id ? [request.customer!.id] : [],
      emailHashes: request.customer!.email ? [hashEmail(request.customer!.email)] : [],
    },
    { kind: 'shopify_customer_data_request', shop: request.shopDomain, customerExternalId: request.customer!.id ?? '', platformRequestId: request.dataRequestId ?? null },
  );
  audit(em, request, store, {
    customerId: request.customer!.id,
    dataRequestId: request.dataRequestId,
    exportId: exported.id,
    ordersRequested: request.orderIds,
    held: {
      customerRecords: customers.length,
      emailHashes: customers.filter((row) => row.email_hash !== null).length,
      ordersCount: orders.length,
      orders: orders.slice(0, 200).map((order) => ({ id: order.external_id, number: order.order_number, placedAt: new Date(order.placed_at).toISOString() })),
    },
  });
  await em.flush();
}

/**
 * customers/redact: the customer row keeps its place in the store's figures (new vs returning, LTV)
 * but no longer says who it is (Shopify's id replaced, the e-mail hash and the sealed name and e-mail removed); their orders lose
 * the visit's landing page, referrer and click ids, their refunds their notes; the webhook bodies of
 * their orders (name, e-mail, addresses) are deleted; their tracking data is made anonymous
 * (tracking/customer-redaction.ts: visits and attribution credits stay, as the store's figures) and
 * their loyalty scores deleted. In one transaction, under the store's ingest
 * lock, so that no batch writes the customer back in between.
 */
async function redactCustomer(em: EntityManager, store: StoreEntity, connection: PlatformConnectionEntity, request: ShopifyComplianceRequest, deliveryRowId: number): Promise<void> {
  await em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    await lockStoreForIngest(q, store.id);
    const customers = await customersNamed(q, store.id, request.customer!);
    const customerIds = customers.map((row) => row.id);
    const orders = await ordersNamed(q, store.id, customerIds, request.orderIds);
    const orderIds = orders.map((order) => order.id);
    // Before the customer rows forget their e-mail hash: the tracking data is found through it.
    const tracking = await redactCustomerTracking(q, store.id, {
      customerIds,
      platformCustomerIds: request.customer!.id ? [request.customer!.id] : [],
      emailHashes: [...customers.flatMap((row) => (row.email_hash ? [row.email_hash] : [])), ...(request.customer!.email ? [hashEmail(request.customer!.email)] : [])],
      orderRefs: [...orders.flatMap((order) => [order.external_id, ...(order.order_number ? [order.order_number] : [])]), ...request.orderIds],
    });
    // The loyalty scores (segment, churn risk, predicted value) are a profile of the person: deleted.
    // The next scoring run computes a row for the anonymous customer record again, from its orders.
    // An export made for an earlier data request of theirs names them too.
    const exportsDeleted = request.customer!.id ? await deletePrivacyExports(q, store.id, [request.customer!.id]) : 0;
    const loyaltyDeleted = customerIds.length > 0 ? await q.run(`delete from customer_loyalty where store_id = $1 and customer_id = any($2::bigint[])`, [store.id, customerIds]) : 0;
    if (customerIds.length > 0) {
      await q.run(`update customers set external_id = 'redacted-' || id, email_hash = null, contact_sealed = null, contact_digest = null, name_search = null, updated_at = now() where store_id = $1 and id = any($2::bigint[])`, [store.id, customerIds]);
    }
    if (orderIds.length > 0) {
      await q.run(
        `update orders set landing_site = null, referrer = null, gclid = null, fbclid = null, msclkid = null, ttclid = null where store_id = $1 and id = any($2::bigint[])`,
        [store.id, orderIds],
      );
      await q.run(`update refunds set reason = null where store_id = $1 and order_id = any($2::bigint[])`, [store.id, orderIds]);
    }
    // Bodies already applied (so valid JSON) of the connection's order and refund deliveries that
    // name the customer or one of the orders.
    const externalOrderIds = [...new Set([...orders.map((order) => order.external_id), ...request.orderIds])];
    const deliveriesDeleted = await q.run(
      `delete from webhook_deliveries
        where store_id = $1 and connection_id = $2 and id <> $3 and processed_at is not null and topic = any($4::text[])
          and (payload::jsonb -> 'customer' ->> 'id' = $5
               or payload::jsonb ->> 'id' = any($6::text[])
               or payload::jsonb ->> 'order_id' = any($6::text[]))`,
      [store.id, connection.id, deliveryRowId, PERSONAL_TOPICS, request.customer!.id ?? '', externalOrderIds],
    );
    audit(tx, request, store, { customersRedacted: customerIds.length, ordersRedacted: orderIds.length, deliveriesDeleted, ordersToRedact: request.orderIds.length, loyaltyDeleted, exportsDeleted, tracking });
    await tx.flush();
  });
}

/**
 * shop/redact: every row the shop brought into the store is deleted (orders with their lines and
 * refunds, customers, products no other order uses, the connection's runs, comparisons and
 * deliveries) and the rollups are rebuilt from what remains, in one transaction under the store's
 * ingest lock; the connection forgets the shop and says why. Other platforms' data stays.
 */
async function redactShop(em: EntityManager, store: StoreEntity, connection: PlatformConnectionEntity, request: ShopifyComplianceRequest, deliveryRowId: number): Promise<void> {
  await em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    // The lock may switch foreign-key actions off for the transaction (rollups.ts): every dependent
    // row is deleted explicitly, children first.
    await lockStoreForIngest(q, store.id);
    const shopOrders = `select id from orders where store_id = $1 and platform = 'shopify'`;
    const refundsDeleted = await q.run(`delete from refunds where store_id = $1 and order_id in (${shopOrders})`, [store.id]);
    await q.run(`delete from order_lines where store_id = $1 and order_id in (${shopOrders})`, [store.id]);
    const ordersDeleted = await q.run(`delete from orders where store_id = $1 and platform = 'shopify'`, [store.id]);
    const customersDeleted = await q.run(
      `delete from customers c where c.store_id = $1 and c.platform = 'shopify'
          and not exists (select 1 from orders o where o.store_id = c.store_id and o.customer_id = c.id)`,
      [store.id],
    );
    const productsDeleted = await q.run(
      `delete from products p where p.store_id = $1 and p.platform = 'shopify'
          and not exists (select 1 from order_lines l where l.store_id = p.store_id and l.product_id = p.id)`,
      [store.id],
    );
    await recomputeRollups(q, store.id);
    const exportsDeleted = await deletePrivacyExports(q, store.id);
    await q.run(`delete from webhook_deliveries where store_id = $1 and connection_id = $2 and id <> $3`, [store.id, connection.id, deliveryRowId]);
    await q.run(`delete from sync_runs where store_id = $1 and connection_id = $2`, [store.id, connection.id]);
    await q.run(`delete from reconciliation_results where store_id = $1 and connection_id = $2`, [store.id, connection.id]);
    await q.run(
      `update platform_connections
          set status = 'not_connected', connected = false, sealed_credentials = null, account_id = null, account_name = null,
              account_currency = null, account_timezone = null, synced_until = null, last_sync_at = null, rows_synced = 0,
              last_error = null, deep_restated_at = null, disconnect_reason = $2
        where id = $1`,
      [connection.id, SHOPIFY_SHOP_REDACTED_REASON],
    );
    audit(tx, request, store, { shopId: request.shopId, ordersDeleted, refundsDeleted, customersDeleted, productsDeleted, exportsDeleted });
    await tx.flush();
  });
}

/** Acts on a stored compliance delivery for one store's connection to the shop. */
export async function applyShopifyComplianceRequest(
  em: EntityManager,
  store: StoreEntity,
  connection: PlatformConnectionEntity,
  request: ShopifyComplianceRequest,
  deliveryRowId: number,
): Promise<void> {
  if (request.topic === 'customers/data_request') await recordDataRequest(em, store, request);
  else if (request.topic === 'customers/redact') await redactCustomer(em, store, connection, request, deliveryRowId);
  else await redactShop(em, store, connection, request, deliveryRowId);
}

/** The delivery's body as kept once acted on: the request without the customer's e-mail and phone. */
export function keptComplianceBody(request: ShopifyComplianceRequest): string {
  return JSON.stringify({
    shop_domain: request.shopDomain,
    shop_id: request.shopId,
    // A redacted customer's Shopify id is not kept either: the orders' ids say what was redacted.
    ...(request.customer && request.topic !== 'customers/redact' ? { customer: { id: request.customer.id } } : {}),
    ...(request.topic === 'customers/redact' ? { orders_to_redact: request.orderIds } : {}),
    ...(request.topic === 'customers/data_request' ? { orders_requested: request.orderIds, data_request: { id: request.dataRequestId } } : {}),
  });
}
