import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CLICK_ID_PARAMETERS, EVENT_NAME_PATTERN, UTM_PARAMETERS } from '../../../shared/tracking.ts';

// The collector's wire format (README, "Tracking"): what the pixel sends to POST /p/e and backends to
// POST /api/tracking/events, validated event by event so that a bad event is counted and dropped with
// its reason while its good neighbours are stored.

const text = (max: number) => z.string().max(max);
const emailHash = z.string().regex(/^[a-f0-9]{64}$/, 'a lower-case hex SHA-256');
const item = z.object({
  id: text(128).optional(),
  name: text(256).optional(),
  variant: text(128).optional(),
  price: z.number().finite().min(0).max(1e9).optional(),
  quantity: z.number().int().min(1).max(100_000).optional(),
});

/** Props of every event: known fields checked, any other small JSON kept as it is. */
const propsSchema = z
  .object({
    order_id: text(128).min(1).optional(),
    value: z.number().finite().min(0).max(1e10).optional(),
    currency: z.string().regex(/^[A-Za-z]{3}$/, 'an ISO 4217 code').optional(),
    items: z.array(item).max(200).optional(),
    email_hash: emailHash.optional(),
    customer_id: text(128).min(1).optional(),
    checkout_token: text(128).min(1).optional(),
  })
  .catchall(z.unknown());

/** One event as the pixel sends it; times are the browser's clock, corrected with the batch's `now`. */
export const pixelEventSchema = z.object({
  name: z.string().regex(EVENT_NAME_PATTERN, 'a lower-case event name'),
  id: z.string().min(8).max(64).regex(/^[A-Za-z0-9_-]+$/),
  ts: z.number().int().nonnegative(),
  url: z.url({ protocol: /^https?$/ }).max(2048),
  ref: z.union([z.url().max(2048), z.literal('')]).optional(),
  title: text(512).optional(),
  screen: z.string().regex(/^\d{1,5}x\d{1,5}$/).optional(),
  lang: z.string().max(35).regex(/^[A-Za-z0-9-]+$/).optional(),
  props: propsSchema.optional(),
});

export const pixelBatchSchema = z.object({
  key: z.string().min(1).max(80),
  aid: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional(),
  consent: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
  gpc: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
  wd: z.union([z.literal(0), z.literal(1), z.boolean()]).optional(),
  now: z.number().int().nonnegative(),
  events: z.array(z.unknown()).min(1).max(200),
});

/** One event as a backend sends it (checkout server, Shopify web pixel, warehouse). */
export const serverEventSchema = z.object({
  name: z.string().regex(EVENT_NAME_PATTERN, 'a lower-case event name'),
  id: z.string().min(1).max(128).optional(),
  time: z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()]).optional(),
  anonymous_id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional(),
  consent: z.boolean().optional(),
  url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  referrer: z.union([z.url().max(2048), z.literal('')]).optional(),
  title: text(512).optional(),
  language: z.string().max(35).regex(/^[A-Za-z0-9-]+$/).optional(),
  /** Hashed here at once; never stored. */
  email: z.string().trim().max(320).pipe(z.email()).optional(),
  email_hash: emailHash.optional(),
  customer_id: text(128).min(1).optional(),
  checkout_token: text(128).min(1).optional(),
  country: z.string().regex(/^[A-Za-z]{2}$/).optional(),
  props: propsSchema.optional(),
});

export const serverBatchSchema = z.object({
  events: z.array(z.unknown()).min(1).max(500),
});

/** A stored event: the columns of tracking_events. */
export interface EventRow {
  storeId: number;
  occurredAt: Date;
  eventId: string;
  name: string;
  source: 'pixel' | 'server' | 'test';
  consent: boolean;
  anonymousId: string | null;
  visitorHash: string | null;
  url: string | null;
  referrer: string | null;
  title: string | null;
  utm: Record<(typeof UTM_PARAMETERS)[number], string | null>;
  clickIds: Record<(typeof CLICK_ID_PARAMETERS)[number], string | null>;
  screen: string | null;
  language: string | null;
  country: string | null;
  emailHash: string | null;
  customerId: string | null;
  checkoutToken: string | null;
  orderId: string | null;
  valueMinor: number | null;
  currency: string | null;
  props: Record<string, unknown> | null;
}

export const MAX_PROPS_JSON = 8_000;
/** How far the browser's event times may lie before the batch's send time (a tab left open). */
export const MAX_PIXEL_EVENT_AGE_MS = 24 * 60 * 60_000;
/** How far in the future a server event's time may be (clocks differ a little). */
export const MAX_FUTURE_MS = 5 * 60_000;

/** The reason a dropped event is counted under: the first problem's field ("invalid url", "invalid props.value"). */
export function reasonOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).filter((segment) => !/^\d+$/.test(segment)).join('.');
  return `invalid ${path || 'event'}`.slice(0, 64);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The hash the pixel computes of an identified e-mail: SHA-256 of the trimmed, lower-case address. */
export function emailHashOf(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

const fractionDigits = new Map<string, number>();
function minorDigits(currency: string): number {
  let digits = fractionDigits.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    fractionDigits.set(currency, digits);
  }
  return digits;
}

/** 49.99 EUR -> 4999; 1200 JPY -> 1200. */
export function toMinorUnits(value: number, currency: string): number {
  return Math.round(value * 10 ** minorDigits(currency));
}

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, 512) : null;
}

/** The utm_* parameters and click ids of a page's address. */
export function campaignOf(url: string | null): Pick<EventRow, 'utm' | 'clickIds'> {
  let query: URLSearchParams | null = null;
  if (url) {
    try {
      query = new URL(url).searchParams;
    } catch {
      query = null;
    }
  }
  const utm = Object.fromEntries(UTM_PARAMETERS.map((name) => [name, blankToNull(query?.get(name))])) as EventRow['utm'];
  const clickIds = Object.fromEntries(CLICK_ID_PARAMETERS.map((name) => [name, blankToNull(query?.get(name))])) as EventRow['clickIds'];
  return { utm, clickIds };
}

export class DroppedEvent extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

type Props = z.infer<typeof propsSchema>;

/** The commerce columns of an event's props; a purchase without an order id, value and currency is dropped. */
export function commerceOf(name: string, props: Props | undefined) {
  const currency = props?.currency?.toUpperCase() ?? null;
  if (name === 'purchase' && (!props?.order_id || props.value === undefined || !currency)) {
    throw new DroppedEvent('invalid purchase: order_id, value and currency required');
  }
  if (props?.value !== undefined && !currency) throw new DroppedEvent('invalid props.currency');
  const rest = props ? { ...props } : null;
  if (rest) for (const key of ['order_id', 'value', 'currency', 'email_hash', 'customer_id', 'checkout_token']) delete rest[key];
  const restJson = rest && Object.keys(rest).length > 0 ? rest : null;
  if (restJson && JSON.stringify(restJson).length > MAX_PROPS_JSON) throw new DroppedEvent('invalid props: too large');
  return {
    orderId: props?.order_id ?? null,
    valueMinor: props?.value !== undefined && currency ? toMinorUnits(props.value, currency) : null,
    currency,
    props: restJson,
  };
}

/** Counts a dropped event under its reason. */
export function countDrop(drops: Map<string, number>, reason: string, count = 1): void {
  drops.set(reason, (drops.get(reason) ?? 0) + count);
}

/** 4999 EUR minor units -> 49.99; 1200 JPY -> 1200 (what a backend sends as a purchase's `value`). */
export function fromMinorUnits(minor: number, currency: string): number {
  return minor / 10 ** minorDigits(currency);
}

/**
 * The server API's validation (POST /api/tracking/events), event by event: the rows to store, the
 * drop counters by reason and which events were dropped. The demo store's journeys go through it too
 * (demo/journeys.ts), so they are stored exactly as a backend's events would be.
 */
export function serverEventRows(storeId: number, retentionMonths: number, events: readonly unknown[], now: number) {
  const oldest = now - retentionMonths * 31 * 86_400_000;
  const drops = new Map<string, number>();
  const dropped: { index: number; reason: string }[] = [];
  const rows: EventRow[] = [];
  events.forEach((raw, index) => {
    const reject = (reason: string) => {
      countDrop(drops, reason);
      dropped.push({ index, reason });
    };
    const parsed = serverEventSchema.safeParse(raw);
    if (!parsed.success) return reject(reasonOf(parsed.error));
    const event = parsed.data;
    const time = event.time === undefined ? now : typeof event.time === 'number' ? event.time : Date.parse(event.time);
    if (time < oldest || time > now + MAX_FUTURE_MS) return reject('invalid time: out of range');
    try {
      const commerce = commerceOf(event.name, event.props);
      const consent = event.consent !== false;
      const emailHash = event.email ? emailHashOf(event.email) : (event.email_hash ?? event.props?.email_hash ?? null);
      rows.push({
        storeId,
        occurredAt: new Date(time),
        eventId: event.name === 'purchase' ? commerce.orderId! : (event.id ?? `srv-${sha256Hex(JSON.stringify(raw)).slice(0, 40)}`),
        name: event.name,
        source: 'server',
        consent,
        anonymousId: consent ? (event.anonymous_id ?? null) : null,
        visitorHash: null,
        url: event.url ?? null,
        referrer: event.referrer || null,
        title: event.title ?? null,
        ...campaignOf(event.url ?? null),
        screen: null,
        language: event.language ?? null,
        country: event.country?.toUpperCase() ?? null,
        emailHash: consent ? emailHash : null,
        customerId: consent ? (event.customer_id ?? event.props?.customer_id ?? null) : null,
        checkoutToken: consent ? (event.checkout_token ?? event.props?.checkout_token ?? null) : null,
        ...commerce,
      });
    } catch (error) {
      if (!(error instanceof DroppedEvent)) throw error;
      reject(error.reason);
    }
  });
  return { rows, drops, dropped };
}
