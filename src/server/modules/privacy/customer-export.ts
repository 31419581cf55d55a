import { strToU8, zipSync } from 'fflate';
import { csvDocument, type CsvCell } from '../../../shared/csv.ts';
import { openContact } from '../commerce/customer-contacts.ts';
import type { SqlRunner } from '../commerce/raw-sql.ts';
import { customerVisitors } from '../tracking/customer-redaction.ts';

// What we hold about one customer of one store, for the store's owner to answer the customer's data
// request (Shopify's customers/data_request): the customer records (with the name and e-mail address
// opened when they were sealed), their orders with lines and refunds, the visits, touchpoints and
// purchase events the pixel recorded of their browsers, and their loyalty scores. One customer's
// data is small: built in memory, as one JSON document and one CSV per table, zipped.

type Row = Record<string, unknown>;

export interface CustomerExport {
  sections: Record<string, Row[]>;
  ordersCount: number;
}

export interface CustomerExportTarget {
  storeId: number;
  customerIds: readonly number[];
  orderIds: readonly number[];
  platformCustomerIds: readonly string[];
  emailHashes: readonly string[];
}

export async function collectCustomerExport(q: SqlRunner, target: CustomerExportTarget): Promise<CustomerExport> {
  const { storeId } = target;
  const customerRows = await q.rows<Row & { platform: string; external_id: string; contact_sealed: string | null }>(
    `select id, platform, external_id, email_hash, first_order_at, orders_count, total_spent_minor::text, contact_sealed, updated_at
       from customers where store_id = $1 and id = any($2::bigint[]) order by id`,
    [storeId, target.customerIds],
  );
  const customers = customerRows.map(({ contact_sealed: sealed, ...row }) => {
    const contact = openContact(storeId, { platform: row.platform, external_id: row.external_id, contact_sealed: sealed });
    return { ...row, name: contact.name, email: contact.email };
  });
  const orderColumns = `id, platform, external_id, order_number, placed_at, currency, gross_minor::text, discounts_minor::text, shipping_minor::text, taxes_minor::text,
    refunds_minor::text, net_sales_minor::text, customer_id, landing_site, referrer, utm_source, utm_medium, utm_campaign, utm_content, utm_term, gclid, fbclid, msclkid, ttclid, channel, status`;
  const orders = await q.rows<Row & { external_id: string; order_number: string | null }>(
    `select ${orderColumns} from orders where store_id = $1 and id = any($2::bigint[]) order by placed_at, id`,
    [storeId, target.orderIds],
  );
  const orderLines = await q.rows<Row>(
    `select l.*, p.title as product_title from order_lines l left join products p on p.store_id = l.store_id and p.id = l.product_id
      where l.store_id = $1 and l.order_id = any($2::bigint[]) order by l.order_id, l.id`,
    [storeId, target.orderIds],
  );
  const refunds = await q.rows<Row>(`select * from refunds where store_id = $1 and order_id = any($2::bigint[]) order by order_id, id`, [storeId, target.orderIds]);
  const visitors = await customerVisitors(q, storeId, {
    customerIds: target.customerIds,
    platformCustomerIds: target.platformCustomerIds,
    emailHashes: [...target.emailHashes, ...customerRows.flatMap((row) => (row.email_hash ? [row.email_hash as string] : []))],
    orderRefs: orders.flatMap((order) => [order.external_id, ...(order.order_number ? [order.order_number] : [])]),
  });
  const events = await q.rows<Row>(
    `select occurred_at, event_id, name, source, consent, anonymous_id, url, referrer, title, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
            gclid, gbraid, wbraid, fbclid, msclkid, ttclid, screen, language, country, email_hash, customer_id, order_id, value_minor::text, currency
       from tracking_events
      where store_id = $1 and (anonymous_id = any($2::text[]) or email_hash = any($3::text[]) or customer_id = any($4::text[]))
      order by occurred_at, event_id`,
    [storeId, visitors.anonymousIds, visitors.hashes, visitors.platformIds],
  );
  const visits = await q.rows<Row>(
    `select id, visitor_key, started_at, last_event_at, landing_url, referrer, channel, campaign_key, events, page_views
       from tracking_sessions where store_id = $1 and visitor_key = any($2::text[]) order by started_at, id`,
    [storeId, visitors.visitorKeys],
  );
  const touchpoints = await q.rows<Row>(
    `select id, session_id, visitor_key, occurred_at, channel, utm_source, utm_medium, utm_campaign, utm_content, utm_term, click_id_kind, click_id, referrer_host, landing_url
       from tracking_touchpoints where store_id = $1 and visitor_key = any($2::text[]) order by occurred_at, id`,
    [storeId, visitors.visitorKeys],
  );
  const loyalty = await q.rows<Row>(`select * from customer_loyalty where store_id = $1 and customer_id = any($2::bigint[]) order by customer_id`, [storeId, target.customerIds]);
  const withoutStore = (rows: Row[]) => rows.map(({ store_id: _storeId, ...row }) => row);
  return {
    sections: {
      customers,
      orders,
      order_lines: withoutStore(orderLines),
      refunds: withoutStore(refunds),
      tracking_events: events,
      visits,
      touchpoints,
      loyalty: withoutStore(loyalty),
    },
    ordersCount: orders.length,
  };
}

function cell(value: unknown): CsvCell {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return value as CsvCell;
}

/** One CSV of rows (the columns of the first row; an empty table gives an empty file). */
export function rowsCsv(rows: readonly Row[]): string {
  const header = rows.length > 0 ? Object.keys(rows[0]!) : [];
  return csvDocument(header, rows.map((row) => header.map((column) => cell(row[column]))));
}

/** The export as a zip: `customer-data.json` (everything, with the request) and one CSV per section. */
export function customerExportZip(data: CustomerExport, about: Record<string, unknown>): Uint8Array {
  const files: Record<string, Uint8Array> = {
    'customer-data.json': strToU8(JSON.stringify({ ...about, ...data.sections }, null, 2)),
  };
  for (const [name, rows] of Object.entries(data.sections)) files[`${name}.csv`] = strToU8(rowsCsv(rows));
  return zipSync(files, { level: 6 });
}
