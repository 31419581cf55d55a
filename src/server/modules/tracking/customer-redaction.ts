import { randomBytes } from 'node:crypto';
import type { SqlRunner } from '../commerce/raw-sql.ts';

// What the collector and the session job hold of one shop customer, made anonymous on a redaction
// request (Shopify's customers/redact; README, "Privacy"). The customer's browsers and e-mail are
// found through their orders' purchase events, their e-mail hashes and their platform customer id.
//
// Their events, sessions, touchpoints and purchases are not deleted: they are the store's visit and
// channel figures (visits per day, touchpoints per channel, attribution credits). Instead every
// visitor key of the customer is replaced by one random pseudonym made for this request, and what
// could name or re-identify them is removed: e-mail hashes, platform customer ids, checkout tokens,
// the day-salted address hashes, ad click ids, page titles, referrers' paths and the query strings
// of the pages they saw. The pseudonym keeps the purchase and the touchpoints joined, so the
// attribution credits already computed (attribution_daily) stay as they are, and an order credited
// again later through its purchase event finds the same journey. An order joined to its visits only
// through the customer's e-mail (no purchase event) keeps its credits until it changes; credited
// again, it is its own source's: the e-mail that joined them is what had to go.

export interface RedactedCustomer {
  /** Our customer rows' ids (customers.id). */
  customerIds: readonly number[];
  /** Platform customer ids (Shopify's), as the pixel and the server events carry them. */
  platformCustomerIds: readonly string[];
  /** SHA-256 of the e-mail addresses: the request's and the customer rows' (read before they are cleared). */
  emailHashes: readonly string[];
  /** The orders' platform ids and numbers, as purchase events name them. */
  orderRefs: readonly string[];
}

export interface TrackingRedaction {
  events: number;
  purchases: number;
  sessions: number;
  touchpoints: number;
}

/** A URL without its query string and fragment (where click ids, e-mail addresses and tokens travel). */
const withoutQuery = (column: string) => `nullif(split_part(split_part(${column}, '#', 1), '?', 1), '')`;

/** The customer's traces in the tracking tables: their browsers, e-mail hashes, platform ids and orders' references. */
export interface CustomerVisitors {
  anonymousIds: string[];
  /** The session job's visitor keys: the browsers, and 'e:' + the hash for a visitor known only by e-mail (sessions.ts). */
  visitorKeys: string[];
  hashes: string[];
  platformIds: string[];
  orderRefs: string[];
}

/** The customer's browsers: those of their purchases and of every event with their e-mail or id. */
export async function customerVisitors(q: SqlRunner, storeId: number, customer: RedactedCustomer): Promise<CustomerVisitors> {
  const hashes = [...new Set(customer.emailHashes)];
  const platformIds = [...new Set(customer.platformCustomerIds)].filter((id) => id !== '');
  const orderRefs = [...new Set(customer.orderRefs)];
  const browsers = await q.rows<{ anonymous_id: string }>(
    `select anonymous_id from tracking_purchases
      where store_id = $1 and anonymous_id is not null
        and (order_id = any($2::text[]) or email_hash = any($3::text[]) or customer_id = any($4::text[]))
     union
     select anonymous_id from tracking_events
      where store_id = $1 and anonymous_id is not null
        and (email_hash = any($3::text[]) or customer_id = any($4::text[]) or (name = 'purchase' and order_id = any($2::text[])))`,
    [storeId, orderRefs, hashes, platformIds],
  );
  const anonymousIds = browsers.map((row) => row.anonymous_id);
  return { anonymousIds, visitorKeys: [...anonymousIds, ...hashes.map((hash) => `e:${hash.slice(0, 62)}`)], hashes, platformIds, orderRefs };
}

export async function redactCustomerTracking(q: SqlRunner, storeId: number, customer: RedactedCustomer): Promise<TrackingRedaction> {
  const { anonymousIds, visitorKeys, hashes, platformIds, orderRefs } = await customerVisitors(q, storeId, customer);
  const pseudonym = `redacted:${randomBytes(16).toString('hex')}`;

  const events = await q.run(
    `update tracking_events
        set anonymous_id = case when anonymous_id is null then null else $5::text end, visitor_hash = null, email_hash = null, customer_id = null,
            checkout_token = null, url = ${withoutQuery('url')}, referrer = ${withoutQuery('referrer')}, title = null,
            gclid = null, gbraid = null, wbraid = null, fbclid = null, msclkid = null, ttclid = null, props = null
      where store_id = $1
        and (anonymous_id = any($2::text[]) or email_hash = any($3::text[]) or customer_id = any($4::text[]) or (name = 'purchase' and order_id = any($6::text[])))`,
    [storeId, anonymousIds, hashes, platformIds, pseudonym, orderRefs],
  );
  const purchases = await q.run(
    `update tracking_purchases
        set anonymous_id = case when anonymous_id is null then null else $5::text end, email_hash = null, customer_id = null, checkout_token = null
      where store_id = $1
        and (order_id = any($6::text[]) or anonymous_id = any($2::text[]) or email_hash = any($3::text[]) or customer_id = any($4::text[]))`,
    [storeId, anonymousIds, hashes, platformIds, pseudonym, orderRefs],
  );
  const sessions = await q.run(
    `update tracking_sessions
        set visitor_key = $4::text, anonymous_id = case when anonymous_id is null then null else $4::text end, email_hash = null,
            landing_url = ${withoutQuery('landing_url')}, referrer = ${withoutQuery('referrer')},
            -- a click id's campaign key ('gclid:<id>', sessions.ts) keeps its kind only; a utm key names a campaign, not a person
            campaign_key = case when campaign_key like 'utm:%' then campaign_key else split_part(campaign_key, ':', 1) || ':redacted' end
      where store_id = $1 and (visitor_key = any($2::text[]) or email_hash = any($3::text[]))`,
    [storeId, visitorKeys, hashes, pseudonym],
  );
  const touchpoints = await q.run(
    `update tracking_touchpoints
        set visitor_key = $3::text, anonymous_id = case when anonymous_id is null then null else $3::text end, click_id = null, landing_url = ${withoutQuery('landing_url')}
      where store_id = $1 and visitor_key = any($2::text[])`,
    [storeId, visitorKeys, pseudonym],
  );
  return { events, purchases, sessions, touchpoints };
}
