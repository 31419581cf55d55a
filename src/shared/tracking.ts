import { z } from 'zod';

/**
 * Referrers that never start a touchpoint: a buyer comes back from paying, not from a referral
 * (README, "Tracking"). Matched on the referrer's host name and its parent domains; each store adds
 * its own checkout domain.
 */
export const DEFAULT_PAYMENT_REFERRERS = [
  'paypal.com',
  'stripe.com',
  'klarna.com',
  'shop.app',
  'pay.shopify.com',
  'checkout.shopify.com',
  'afterpay.com',
  'clearpay.co.uk',
  'pay.google.com',
] as const;

export const DEFAULT_RETENTION_MONTHS = 25;
export const MAX_RETENTION_MONTHS = 60;

/** The click ids the pixel reads from the landing URL. */
export const CLICK_ID_PARAMETERS = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'ttclid'] as const;
export const UTM_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const;

/** The commerce events the pixel and the server API know; other names matching EVENT_NAME_PATTERN are custom events. */
export const COMMERCE_EVENTS = ['page_view', 'view_item', 'add_to_cart', 'begin_checkout', 'purchase', 'identify'] as const;
export const EVENT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

/** A domain as a store lists it: a host name, lower case, no scheme, path or port ("shop.example.com"). */
export const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, 'Enter a domain name such as shop.example.com');

export const trackingSettingsInput = z.object({
  allowedDomains: z.array(domainSchema).max(50).optional(),
  honourGpc: z.boolean().optional(),
  retentionMonths: z.number().int().min(1).max(MAX_RETENTION_MONTHS).optional(),
  paymentReferrers: z.array(domainSchema).max(100).optional(),
});
export type TrackingSettingsInput = z.infer<typeof trackingSettingsInput>;

export const trackingSetupOutput = z.object({
  storeKey: z.string(),
  snippet: z.string(),
  pixelUrl: z.string(),
  collectorUrl: z.string(),
  serverEventsUrl: z.string(),
  allowedDomains: z.array(z.string()),
  honourGpc: z.boolean(),
  retentionMonths: z.number().int(),
  paymentReferrers: z.array(z.string()),
  /** The last characters of the secret key for the server API, or null when none was made yet. */
  secretKeyHint: z.string().nullable(),
});
export type TrackingSetup = z.infer<typeof trackingSetupOutput>;

export const droppedEventsOutput = z.array(z.object({ day: z.string(), reason: z.string(), count: z.number().int() }));

export const recentEventsOutput = z.array(
  z.object({
    eventId: z.string(),
    name: z.string(),
    source: z.string(),
    occurredAt: z.string(),
    url: z.string().nullable(),
    consent: z.boolean(),
    anonymousId: z.string().nullable(),
    orderId: z.string().nullable(),
    valueMinor: z.number().nullable(),
    currency: z.string().nullable(),
  }),
);

/** The tracking screen's health figures (tracking.health). */
export const trackingHealthOutput = z.object({
  /** Events that occurred in the last 24 hours. */
  eventsLast24h: z.number().int(),
  /** When the latest event was received (ISO time), or null when none ever was (within retention). */
  lastEventAt: z.string().nullable(),
  /** Purchases the tracking received in the last 30 days, and how many of them match an order of the store (by its id or number). */
  purchasesLast30d: z.number().int(),
  purchasesMatched: z.number().int(),
  /** matched / purchases as a percentage with one decimal, or null when no purchase was tracked. */
  matchedPercent: z.number().nullable(),
  /** The store's orders placed in the last 30 days, and how many of them the tracking saw a purchase for. */
  ordersLast30d: z.number().int(),
  ordersTracked: z.number().int(),
});
export type TrackingHealth = z.infer<typeof trackingHealthOutput>;

/** The name and source of the event the "Send test event" button writes. */
export const TEST_EVENT_NAME = 'test_event';
export const TEST_EVENT_SOURCE = 'test';
