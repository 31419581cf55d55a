import { seededRandom } from '../../random.ts';
import type { IngestOrder } from '../commerce/ingest.ts';
import { fromMinorUnits } from '../tracking/event-schema.ts';
import { DEMO_EMAIL_PLATFORM, type DemoPlan } from './generator.ts';

// The demo store's visitor journeys (README, "Demo data: journeys"): for each demo order, the visits
// of its buyer before it and the purchase itself, and the visitors who never buy, as the events a
// backend would send to POST /api/tracking/events. demo.service.ts passes them through the server
// API's validation and the collector's event writer, and the sessions job makes sessions and
// touchpoints of them, as it does of real traffic.
//
// - The buyer's last visit is the order's own landing (its UTM, click id or referrer) a few minutes
//   before the order; 0-3 earlier visits come from a mix of channels (Google Ads with gclid + utm,
//   Meta with fbclid, Bing msclkid, TikTok ttclid, Klaviyo / Mailchimp e-mails, organic search and
//   social referrers, direct) hours to weeks before, never before the demo's first order day.
// - The purchase's event id is the order id, with the order's total and currency; a few purchases
//   are sent twice (as a pixel and a connector would both see them): they are stored once.
// - A customer keeps one anonymous id over all orders and gives the e-mail at checkout (hashed by
//   the collector); a guest has an id for the order.
// - ~1.2 % of orders were taken by phone: no visit, no purchase event (the order's own source is
//   all there is). Visitors who never buy: 1-2 per order, one visit each, in the day before it.
// Deterministic: one seeded stream, consumed in order order.

export const DEMO_SHOP_ORIGIN = 'https://shop.demo-store.example';
export const PHONE_ORDER_SHARE = 0.012;
/** Purchases sent a second time (pixel and connector); the writer keeps one. */
export const DUPLICATE_PURCHASE_SHARE = 0.03;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface JourneyEvent {
  name: string;
  id?: string;
  time: number;
  anonymous_id: string;
  url?: string;
  referrer?: string;
  email?: string;
  customer_id?: string;
  props?: { order_id: string; value: number; currency: string };
}

export interface JourneyCounts {
  visits: number;
  buyerVisits: number;
  nonBuyerVisitors: number;
  purchases: number;
  duplicatePurchasesSent: number;
  phoneOrders: number;
}

type Channel = 'googleads' | 'metaads' | 'bingads' | 'tiktokads' | 'klaviyo' | 'mailchimp' | 'organic_search' | 'organic_social' | 'direct';
/** The channels of visits that are not an order's own landing, with their weights. */
const VISIT_CHANNELS: readonly (readonly [Channel, number])[] = [
  ['googleads', 0.22], ['metaads', 0.2], ['bingads', 0.05], ['tiktokads', 0.06], ['klaviyo', 0.09], ['mailchimp', 0.03],
  ['organic_search', 0.17], ['organic_social', 0.06], ['direct', 0.12],
];
const VISIT_CUMULATIVE = (() => {
  let sum = 0;
  return VISIT_CHANNELS.map(([, weight]) => (sum += weight));
})();
const PATHS = ['/', '/collections/new', '/collections/sale', '/products/merino-crew-jumper', '/products/rain-jacket', '/collections/knitwear', '/products/trail-shoes', '/pages/about'];
const SEARCH = ['https://www.google.com/', 'https://www.google.co.uk/', 'https://www.bing.com/', 'https://duckduckgo.com/'];
const SOCIAL = ['https://www.instagram.com/', 'https://www.facebook.com/', 'https://www.pinterest.com/', 'https://www.tiktok.com/'];
const TIKTOK_CAMPAIGNS = ['Spark Ads — Bestsellers', 'In-feed — New in'];
const EMAIL_CAMPAIGNS = ['Welcome series', 'Abandoned cart', 'Back in stock'];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class DemoJourneys {
  readonly counts: JourneyCounts = { visits: 0, buyerVisits: 0, nonBuyerVisitors: 0, purchases: 0, duplicatePurchasesSent: 0, phoneOrders: 0 };
  private readonly random: () => number;
  private readonly plan: DemoPlan;
  /** Nothing before noon UTC of the first order day (the demo's range starts that day in any time zone). */
  private readonly startMs: number;
  private visitSequence = 0;

  constructor(plan: DemoPlan) {
    this.plan = plan;
    this.random = seededRandom(plan.seed ^ 0x7a11e5);
    this.startMs = Date.parse(`${plan.firstOrderDay}T12:00:00Z`);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private clickId(length: number): string {
    let id = '';
    for (let index = 0; index < length; index += 1) id += ALPHABET[Math.floor(this.random() * ALPHABET.length)];
    return id;
  }

  private url(path: string, query: Record<string, string | null | undefined>): string {
    const parameters = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value) parameters.set(name, value);
    const search = parameters.toString();
    return `${DEMO_SHOP_ORIGIN}${path}${search ? `?${search}` : ''}`;
  }

  private campaignOf(platform: string): string {
    const campaigns = this.plan.campaigns.filter((campaign) => campaign.platform === platform);
    return campaigns.length > 0 ? this.pick(campaigns).name : 'Prospecting';
  }

  /** A visit from a channel of the mix: its landing page view. */
  private visit(anonymousId: string, time: number): JourneyEvent {
    const target = this.random() * VISIT_CUMULATIVE.at(-1)!;
    const channel = VISIT_CHANNELS[VISIT_CUMULATIVE.findIndex((sum) => sum > target)]![0];
    const path = this.pick(PATHS);
    let url: string;
    let referrer: string | undefined;
    switch (channel) {
      case 'googleads':
        url = this.url(path, { utm_source: 'google', utm_medium: 'cpc', utm_campaign: this.campaignOf('googleads'), gclid: this.clickId(24) });
        break;
      case 'metaads':
        url = this.url(path, { utm_source: 'facebook', utm_medium: 'paid_social', utm_campaign: this.campaignOf('metaads'), fbclid: this.clickId(28) });
        referrer = this.random() < 0.6 ? 'https://m.facebook.com/' : 'https://l.instagram.com/';
        break;
      case 'bingads':
        url = this.url(path, { utm_source: 'bing', utm_medium: 'cpc', utm_campaign: this.campaignOf('bingads'), msclkid: this.clickId(20) });
        break;
      case 'tiktokads':
        url = this.url(path, { utm_source: 'tiktok', utm_medium: 'paid_social', utm_campaign: this.pick(TIKTOK_CAMPAIGNS), ttclid: this.clickId(26) });
        break;
      case 'klaviyo':
      case 'mailchimp':
        url = this.url(path, { utm_source: channel === 'klaviyo' ? DEMO_EMAIL_PLATFORM : 'mailchimp', utm_medium: 'email', utm_campaign: this.pick(EMAIL_CAMPAIGNS) });
        break;
      case 'organic_search':
        url = this.url(path, {});
        referrer = this.pick(SEARCH);
        break;
      case 'organic_social':
        url = this.url(path, {});
        referrer = this.pick(SOCIAL);
        break;
      default:
        url = this.url(path, {});
    }
    this.visitSequence += 1;
    this.counts.visits += 1;
    return { name: 'page_view', id: `demo-v${this.visitSequence}`, time, anonymous_id: anonymousId, url, ...(referrer ? { referrer } : {}) };
  }

  /** The events of these orders (in the order they were placed) and of the visitors around them who do not buy. */
  eventsFor(orders: readonly IngestOrder[]): JourneyEvent[] {
    const events: JourneyEvent[] = [];
    for (const order of orders) {
      const placedMs = new Date(order.placedAt).getTime();
      // Visitors who never buy, in the day before this order.
      const lookers = this.random() < 0.2 ? 2 : 1;
      for (let index = 0; index < lookers; index += 1) {
        const time = placedMs - Math.floor(this.random() * DAY_MS);
        if (time < this.startMs) continue;
        this.counts.nonBuyerVisitors += 1;
        events.push(this.visit(`demo-visitor${this.visitSequence + 1}`, time));
      }
      if (this.random() < PHONE_ORDER_SHARE) {
        this.counts.phoneOrders += 1;
        continue;
      }
      const customerNumber = order.customer ? order.customer.externalId.replace(/^demo-customer-/, '') : null;
      const anonymousId = customerNumber !== null ? `demo-cust${customerNumber}` : `demo-guest${order.externalId.replace(/^demo-/, '')}`;

      // Earlier visits, hours to weeks before (oldest first), then the order's own landing.
      const roll = this.random();
      const earlier = roll < 0.5 ? 0 : roll < 0.8 ? 1 : roll < 0.95 ? 2 : 3;
      const ages: number[] = [];
      for (let index = 0; index < earlier; index += 1) ages.push(2 * HOUR_MS + Math.min(30 * DAY_MS, -Math.log(1 - this.random()) * 3 * DAY_MS));
      ages.sort((a, b) => b - a);
      for (const age of ages) {
        if (placedMs - age < this.startMs) continue;
        this.counts.buyerVisits += 1;
        events.push(this.visit(anonymousId, Math.round(placedMs - age)));
      }
      const landingMs = placedMs - (2 + Math.floor(this.random() * 23)) * 60_000;
      this.visitSequence += 1;
      this.counts.visits += 1;
      this.counts.buyerVisits += 1;
      events.push({
        name: 'page_view',
        id: `demo-v${this.visitSequence}`,
        time: landingMs,
        anonymous_id: anonymousId,
        url: this.url(order.landingSite ?? '/', {
          utm_source: order.utmSource, utm_medium: order.utmMedium, utm_campaign: order.utmCampaign, gclid: order.gclid, fbclid: order.fbclid, msclkid: order.msclkid, ttclid: order.ttclid,
        }),
        ...(order.referrer ? { referrer: order.referrer } : {}),
      });

      const total = order.grossMinor - (order.discountsMinor ?? 0) + (order.shippingMinor ?? 0) + (order.taxesMinor ?? 0);
      const purchase: JourneyEvent = {
        name: 'purchase',
        time: placedMs,
        anonymous_id: anonymousId,
        ...(order.customer?.email ? { email: order.customer.email, customer_id: order.customer.externalId } : {}),
        props: { order_id: order.externalId, value: fromMinorUnits(total, order.currency), currency: order.currency },
      };
      events.push(purchase);
      this.counts.purchases += 1;
      if (this.random() < DUPLICATE_PURCHASE_SHARE) {
        events.push({ ...purchase });
        this.counts.duplicatePurchasesSent += 1;
      }
    }
    return events;
  }
}
