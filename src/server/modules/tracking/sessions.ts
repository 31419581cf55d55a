import type { EntityManager } from '@mikro-orm/postgresql';
import { channelOf } from '../commerce/channel.ts';
import { sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';

// Sessions and touchpoints, derived from the events by a job (README, "Tracking: sessions"):
// - a visitor is the anonymous id (cookie), or else the day's cookieless hash, or else (server
//   events with only an e-mail) the e-mail hash;
// - a session ends after 30 minutes without an event; an event carrying a new campaign (a click id
//   or utm_source other than the session's) starts a new session, as a new ad click does;
// - each new session's source is a touchpoint, classified by the orders' channel code
//   (commerce/channel.ts); a session that starts on a return from a payment page (the store's
//   payment referrers: PayPal, Stripe, Klarna, Shop Pay, Afterpay, its own checkout...) starts no
//   touchpoint: the buyer did not come from there.
// Events are read in the order they were stored (seq), once committed: only those received more than
// SETTLE_MS ago, so a group commit still in flight with lower numbers is not skipped.

export const SESSION_GAP_MS = 30 * 60_000;
export const SETTLE_MS = 5_000;
const CHUNK = 5_000;

interface EventForSession {
  seq: string;
  occurred_at: Date;
  name: string;
  anonymous_id: string | null;
  visitor_hash: string | null;
  email_hash: string | null;
  url: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_content: string | null;
  utm_term: string | null;
  gclid: string | null;
  gbraid: string | null;
  wbraid: string | null;
  fbclid: string | null;
  msclkid: string | null;
  ttclid: string | null;
}

interface SessionState {
  id: string;
  visitorKey: string;
  anonymousId: string | null;
  emailHash: string | null;
  startedAt: Date;
  lastEventAt: Date;
  landingUrl: string | null;
  referrer: string | null;
  channel: string | null;
  campaignKey: string | null;
  paymentReturn: boolean;
  touchpointId: string | null;
  events: number;
  pageViews: number;
  isNew: boolean;
  changed: boolean;
}

interface TouchpointRow {
  id: string;
  sessionId: string;
  visitorKey: string;
  anonymousId: string | null;
  occurredAt: Date;
  channel: string;
  event: EventForSession;
  clickIdKind: string | null;
  clickId: string | null;
  referrerHost: string | null;
}

export interface SessionBuildResult {
  events: number;
  sessionsCreated: number;
  touchpoints: number;
}

function visitorKeyOf(event: EventForSession): string | null {
  return event.anonymous_id ?? event.visitor_hash ?? (event.email_hash ? `e:${event.email_hash.slice(0, 62)}` : null);
}

const CLICK_IDS = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'ttclid'] as const;

function clickIdOf(event: EventForSession): { kind: string; value: string } | null {
  for (const kind of CLICK_IDS) if (event[kind]) return { kind, value: event[kind]! };
  return null;
}

/** What identifies a campaign visit: its click id, or its utm source/medium/campaign; null for none. */
export function campaignKeyOf(event: EventForSession): string | null {
  const click = clickIdOf(event);
  if (click) return `${click.kind}:${click.value}`;
  if (event.utm_source) return `utm:${event.utm_source}|${event.utm_medium ?? ''}|${event.utm_campaign ?? ''}`.toLowerCase();
  return null;
}

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

/** Whether a referrer is a payment or checkout page of the store's list (the host or a parent domain listed). */
export function isPaymentReferrer(referrer: string | null, paymentReferrers: readonly string[]): boolean {
  const host = hostOf(referrer);
  return !!host && paymentReferrers.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** The channel of a session's first event, by the orders' rules; gbraid and wbraid are Google clicks. */
export function touchpointChannel(event: EventForSession): string {
  return channelOf({
    landingSite: event.url,
    referrer: event.referrer,
    utmSource: event.utm_source,
    utmMedium: event.utm_medium,
    utmCampaign: event.utm_campaign,
    utmContent: event.utm_content,
    utmTerm: event.utm_term,
    gclid: event.gclid ?? event.gbraid ?? event.wbraid,
    fbclid: event.fbclid,
    msclkid: event.msclkid,
    ttclid: event.ttclid,
  });
}

async function nextIds(sql: SqlRunner, sequence: string, count: number): Promise<string[]> {
  if (count === 0) return [];
  const rows = await sql.rows<{ id: string }>(`select nextval('${sequence}')::text as id from generate_series(1, $1::int)`, [count]);
  return rows.map((row) => row.id);
}

/** Builds the store's sessions from its events stored since the last run; returns what it did. */
/** `chunk`: events per transaction (a bulk load, such as the demo's, reads larger ones). */
export async function buildSessions(em: EntityManager, storeId: number, options: { settleMs?: number; chunk?: number } = {}): Promise<SessionBuildResult> {
  const total: SessionBuildResult = { events: 0, sessionsCreated: 0, touchpoints: 0 };
  const size = options.chunk ?? CHUNK;
  for (;;) {
    const chunk = await em.transactional((tx) => buildChunk(tx, storeId, options.settleMs ?? SETTLE_MS, size));
    if (chunk === null) return total;
    total.events += chunk.events;
    total.sessionsCreated += chunk.sessionsCreated;
    total.touchpoints += chunk.touchpoints;
    if (chunk.events < size) return total;
  }
}

async function buildChunk(tx: EntityManager, storeId: number, settleMs: number, size: number): Promise<SessionBuildResult | null> {
  const sql = sqlRunner(tx);
  // One builder per store at a time, in any process; another run finds it busy and leaves.
  const [lock] = await sql.rows<{ locked: boolean }>(`select pg_try_advisory_xact_lock(hashtext('storepulse.tracking-sessions'), $1) as locked`, [storeId]);
  if (!lock?.locked) return null;
  const [settings] = await sql.rows<{ payment_referrers: string[] }>(`select payment_referrers from tracking_settings where store_id = $1`, [storeId]);
  const paymentReferrers = settings?.payment_referrers ?? [];
  const [cursor] = await sql.rows<{ last_seq: string }>(`select last_seq::text from tracking_session_cursors where store_id = $1`, [storeId]);
  const events = await sql.rows<EventForSession>(
    `select seq::text, occurred_at, name, anonymous_id, visitor_hash, email_hash, url, referrer,
            utm_source, utm_medium, utm_campaign, utm_content, utm_term, gclid, gbraid, wbraid, fbclid, msclkid, ttclid
       from tracking_events
      where store_id = $1 and seq > $2::bigint and received_at < now() - $3::float8 * interval '1 millisecond'
      order by tracking_events.seq limit $4`, // the column: the output `seq` is text and would sort '10' before '9'
    [storeId, cursor?.last_seq ?? '0', settleMs, size],
  );
  if (events.length === 0) return null;

  const byVisitor = new Map<string, EventForSession[]>();
  for (const event of events) {
    const key = visitorKeyOf(event);
    if (!key) continue;
    const list = byVisitor.get(key) ?? [];
    list.push(event);
    byVisitor.set(key, list);
  }
  const times = events.map((event) => new Date(event.occurred_at).getTime());
  const existing = await sql.rows<{
    id: string; visitor_key: string; anonymous_id: string | null; email_hash: string | null; started_at: Date; last_event_at: Date;
    landing_url: string | null; referrer: string | null; channel: string | null; campaign_key: string | null; payment_return: boolean; touchpoint_id: string | null; events: number; page_views: number;
  }>(
    `select id::text, visitor_key, anonymous_id, email_hash, started_at, last_event_at, landing_url, referrer, channel, campaign_key, payment_return, touchpoint_id::text, events, page_views
       from tracking_sessions
      where store_id = $1 and visitor_key = any($2::text[]) and last_event_at >= $3 and started_at <= $4`,
    [storeId, [...byVisitor.keys()], new Date(Math.min(...times) - SESSION_GAP_MS), new Date(Math.max(...times) + SESSION_GAP_MS)],
  );
  const sessionsOf = new Map<string, SessionState[]>();
  for (const row of existing) {
    const list = sessionsOf.get(row.visitor_key) ?? [];
    list.push({
      id: row.id, visitorKey: row.visitor_key, anonymousId: row.anonymous_id, emailHash: row.email_hash, startedAt: new Date(row.started_at), lastEventAt: new Date(row.last_event_at),
      landingUrl: row.landing_url, referrer: row.referrer, channel: row.channel, campaignKey: row.campaign_key, paymentReturn: row.payment_return, touchpointId: row.touchpoint_id,
      events: row.events, pageViews: row.page_views, isNew: false, changed: false,
    });
    sessionsOf.set(row.visitor_key, list);
  }

  const created: SessionState[] = [];
  // Sessions whose source (first event) is new or moved earlier in this chunk: their touchpoint is
  // written from that event. An event can arrive after later ones (a backend's purchase before the
  // browser's beacon, a late batch): the session's source is always its earliest event.
  const sourceEvents = new Map<SessionState, EventForSession>();
  const takeSource = (session: SessionState, event: EventForSession, campaign: string | null) => {
    const paymentReturn = isPaymentReferrer(event.referrer, paymentReferrers);
    session.landingUrl = event.url;
    session.referrer = event.referrer;
    session.channel = paymentReturn ? null : touchpointChannel(event);
    session.campaignKey = campaign;
    session.paymentReturn = paymentReturn;
    if (!paymentReturn) sourceEvents.set(session, event);
  };
  for (const [visitorKey, list] of byVisitor) {
    list.sort((a, b) => new Date(a.occurred_at).getTime() - new Date(b.occurred_at).getTime() || Number(a.seq) - Number(b.seq));
    const sessions = sessionsOf.get(visitorKey) ?? [];
    for (const event of list) {
      const at = new Date(event.occurred_at);
      const time = at.getTime();
      const campaign = campaignKeyOf(event);
      let session: SessionState | undefined;
      for (const candidate of sessions) {
        if (time >= candidate.startedAt.getTime() - SESSION_GAP_MS && time <= candidate.lastEventAt.getTime() + SESSION_GAP_MS) {
          if (!session || candidate.startedAt > session.startedAt) session = candidate;
        }
      }
      // A new campaign after the session's last event starts a new session (a new ad click).
      if (session && campaign && campaign !== session.campaignKey && time >= session.lastEventAt.getTime()) session = undefined;
      if (!session) {
        session = {
          id: '', visitorKey, anonymousId: event.anonymous_id, emailHash: event.email_hash, startedAt: at, lastEventAt: at,
          landingUrl: null, referrer: null, channel: null, campaignKey: null, paymentReturn: false, touchpointId: null, events: 0, pageViews: 0, isNew: true, changed: true,
        };
        takeSource(session, event, campaign);
        sessions.push(session);
        created.push(session);
      } else if (time < session.startedAt.getTime() && (session.paymentReturn || !isPaymentReferrer(event.referrer, paymentReferrers))) {
        // An earlier event is the session's source, unless it is a payment page's return and the session has a real one.
        takeSource(session, event, campaign);
      }
      session.changed = true;
      session.events += 1;
      if (event.name === 'page_view') session.pageViews += 1;
      if (time < session.startedAt.getTime()) session.startedAt = at;
      if (time > session.lastEventAt.getTime()) session.lastEventAt = at;
      session.anonymousId ??= event.anonymous_id;
      session.emailHash ??= event.email_hash;
    }
    sessionsOf.set(visitorKey, sessions);
  }

  const sessionIds = await nextIds(sql, 'tracking_sessions_seq', created.length);
  created.forEach((session, index) => (session.id = sessionIds[index]!));
  const sourced = [...sourceEvents.keys()];
  const withoutTouchpoint = sourced.filter((session) => session.touchpointId === null);
  const touchpointIds = await nextIds(sql, 'tracking_touchpoints_seq', withoutTouchpoint.length);
  withoutTouchpoint.forEach((session, index) => (session.touchpointId = touchpointIds[index]!));
  const touchpoints: TouchpointRow[] = sourced.map((session) => {
    const event = sourceEvents.get(session)!;
    const click = clickIdOf(event);
    return {
      id: session.touchpointId!, sessionId: session.id, visitorKey: session.visitorKey, anonymousId: event.anonymous_id, occurredAt: new Date(event.occurred_at),
      channel: session.channel!, event, clickIdKind: click?.kind ?? null, clickId: click?.value ?? null, referrerHost: hostOf(event.referrer),
    };
  });

  const changed = [...sessionsOf.values()].flat().filter((session) => session.changed);
  if (changed.length > 0) {
    await sql.run(
      `insert into tracking_sessions as s (store_id, id, visitor_key, anonymous_id, email_hash, started_at, last_event_at, landing_url, referrer, channel, campaign_key, payment_return, touchpoint_id, events, page_views)
       select $1, * from unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bool[], $13::bigint[], $14::int[], $15::int[])
       on conflict (store_id, id) do update set
         anonymous_id = excluded.anonymous_id, email_hash = excluded.email_hash, started_at = excluded.started_at, last_event_at = excluded.last_event_at,
         landing_url = excluded.landing_url, referrer = excluded.referrer, channel = excluded.channel, campaign_key = excluded.campaign_key,
         payment_return = excluded.payment_return, touchpoint_id = excluded.touchpoint_id, events = excluded.events, page_views = excluded.page_views`,
      [
        storeId,
        changed.map((s) => s.id), changed.map((s) => s.visitorKey), changed.map((s) => s.anonymousId), changed.map((s) => s.emailHash),
        changed.map((s) => s.startedAt.toISOString()), changed.map((s) => s.lastEventAt.toISOString()), changed.map((s) => s.landingUrl), changed.map((s) => s.referrer),
        changed.map((s) => s.channel), changed.map((s) => s.campaignKey), changed.map((s) => s.paymentReturn), changed.map((s) => s.touchpointId),
        changed.map((s) => s.events), changed.map((s) => s.pageViews),
      ],
    );
  }
  if (touchpoints.length > 0) {
    await sql.run(
      `insert into tracking_touchpoints (store_id, id, session_id, visitor_key, anonymous_id, occurred_at, channel, utm_source, utm_medium, utm_campaign, utm_content, utm_term, click_id_kind, click_id, referrer_host, landing_url)
       select $1, * from unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
       on conflict (store_id, id) do update set
         anonymous_id = excluded.anonymous_id, occurred_at = excluded.occurred_at, channel = excluded.channel, utm_source = excluded.utm_source,
         utm_medium = excluded.utm_medium, utm_campaign = excluded.utm_campaign, utm_content = excluded.utm_content, utm_term = excluded.utm_term,
         click_id_kind = excluded.click_id_kind, click_id = excluded.click_id, referrer_host = excluded.referrer_host, landing_url = excluded.landing_url`,
      [
        storeId,
        touchpoints.map((t) => t.id), touchpoints.map((t) => t.sessionId), touchpoints.map((t) => t.visitorKey), touchpoints.map((t) => t.anonymousId), touchpoints.map((t) => t.occurredAt.toISOString()),
        touchpoints.map((t) => t.channel), touchpoints.map((t) => t.event.utm_source), touchpoints.map((t) => t.event.utm_medium), touchpoints.map((t) => t.event.utm_campaign),
        touchpoints.map((t) => t.event.utm_content), touchpoints.map((t) => t.event.utm_term), touchpoints.map((t) => t.clickIdKind), touchpoints.map((t) => t.clickId),
        touchpoints.map((t) => t.referrerHost), touchpoints.map((t) => t.event.url),
      ],
    );
  }
  await sql.run(
    `insert into tracking_session_cursors (store_id, last_seq, updated_at) values ($1, $2::bigint, now())
     on conflict (store_id) do update set last_seq = excluded.last_seq, updated_at = now()`,
    [storeId, events[events.length - 1]!.seq],
  );
  return { events: events.length, sessionsCreated: created.length, touchpoints: touchpointIds.length };
}

/** Every store with tracking: the sessions job's run (each store on its own, so one failing store stops no other). */
export async function buildAllSessions(fork: () => EntityManager, log: (message: string) => void = () => {}): Promise<SessionBuildResult> {
  const stores = await sqlRunner(fork()).rows<{ store_id: number }>(`select store_id from tracking_settings order by store_id`);
  const total: SessionBuildResult = { events: 0, sessionsCreated: 0, touchpoints: 0 };
  for (const { store_id: storeId } of stores) {
    try {
      const result = await buildSessions(fork(), storeId);
      total.events += result.events;
      total.sessionsCreated += result.sessionsCreated;
      total.touchpoints += result.touchpoints;
    } catch (error) {
      log(`Tracking sessions of store ${storeId} failed: ${(error as Error).message}`);
    }
  }
  return total;
}
