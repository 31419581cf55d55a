import type pg from 'pg';
import type { EventRow } from './event-schema.ts';

// Group commit (README, "Tracking: durability"): requests hand their validated events to one writer
// per process, which writes whatever has gathered as ONE statement (events, purchases and
// dropped-event counters together, so one commit and one WAL flush), and each request is answered
// only once the statement that holds its events has committed. While a statement runs, the next
// group gathers; at most MAX_IN_FLIGHT statements run at once. Under load the groups grow by
// themselves, so the database does one commit per group instead of one per request.

export interface DropCount {
  storeId: number;
  reason: string;
  count: number;
}

export interface WriteResult {
  /** Events newly stored. */
  stored: number;
  /** Purchases whose order id was already stored (from the pixel or the server API), and events already stored. */
  duplicates: number;
}

interface Pending {
  events: EventRow[];
  drops: DropCount[];
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

const MAX_IN_FLIGHT = 2;
/** Events per statement at most; a larger backlog is written by the next statement at once. */
const MAX_GROUP_EVENTS = 5_000;

const EVENT_COLUMNS = [
  ['store_id', 'int'], ['occurred_at', 'timestamptz'], ['event_id', 'text'], ['name', 'text'], ['source', 'text'], ['consent', 'bool'],
  ['anonymous_id', 'text'], ['visitor_hash', 'text'], ['url', 'text'], ['referrer', 'text'], ['title', 'text'],
  ['utm_source', 'text'], ['utm_medium', 'text'], ['utm_campaign', 'text'], ['utm_content', 'text'], ['utm_term', 'text'],
  ['gclid', 'text'], ['gbraid', 'text'], ['wbraid', 'text'], ['fbclid', 'text'], ['msclkid', 'text'], ['ttclid', 'text'],
  ['screen', 'text'], ['language', 'text'], ['country', 'text'], ['email_hash', 'text'], ['customer_id', 'text'],
  ['checkout_token', 'text'], ['order_id', 'text'], ['value_minor', 'int8'], ['currency', 'text'], ['props', 'jsonb'],
] as const;

function eventValues(row: EventRow): unknown[] {
  return [
    row.storeId, row.occurredAt.toISOString(), row.eventId, row.name, row.source, row.consent,
    row.anonymousId, row.visitorHash, row.url, row.referrer, row.title,
    row.utm.utm_source, row.utm.utm_medium, row.utm.utm_campaign, row.utm.utm_content, row.utm.utm_term,
    row.clickIds.gclid, row.clickIds.gbraid, row.clickIds.wbraid, row.clickIds.fbclid, row.clickIds.msclkid, row.clickIds.ttclid,
    row.screen, row.language, row.country, row.emailHash, row.customerId,
    row.checkoutToken, row.orderId, row.valueMinor, row.currency, row.props === null ? null : JSON.stringify(row.props),
  ];
}

const PURCHASE_COLUMNS = 10;
const DROP_PARAMS_AT = EVENT_COLUMNS.length + PURCHASE_COLUMNS;

/**
 * One statement: purchases first (a purchase whose order id is stored already is a duplicate, and
 * its event is left out), then the events, then the counters. Arrays travel as one parameter per
 * column (unnest), so the SQL text is the same for every group size.
 */
const GROUP_SQL = (() => {
  const eventArgs = EVENT_COLUMNS.map(([, type], index) => `$${index + 1}::${type === 'jsonb' ? 'text' : type}[]`).join(', ');
  const eventNames = EVENT_COLUMNS.map(([name]) => name);
  const selectList = eventNames.map((name) => (name === 'props' ? 'u.props::jsonb' : `u.${name}`)).join(', ');
  const p = (index: number) => `$${EVENT_COLUMNS.length + index + 1}`;
  const d = (index: number) => `$${DROP_PARAMS_AT + index + 1}`;
  return `
    with purchase as (
      insert into tracking_purchases (store_id, order_id, occurred_at, source, anonymous_id, email_hash, customer_id, checkout_token, value_minor, currency)
      select * from unnest(${p(0)}::int[], ${p(1)}::text[], ${p(2)}::timestamptz[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::text[], ${p(6)}::text[], ${p(7)}::text[], ${p(8)}::int8[], ${p(9)}::text[])
      on conflict (store_id, order_id) do nothing
      returning store_id, order_id
    ), dropped as (
      insert into tracking_drops as t (store_id, day, reason, count)
      select s, (now() at time zone 'UTC')::date, r, c from unnest(${d(0)}::int[], ${d(1)}::text[], ${d(2)}::int8[]) as x(s, r, c)
      on conflict (store_id, day, reason) do update set count = t.count + excluded.count
      returning 1
    ), stored as (
      insert into tracking_events (${eventNames.join(', ')})
      select ${selectList} from unnest(${eventArgs}) as u(${eventNames.join(', ')})
      where u.name <> 'purchase' or exists (select 1 from purchase where purchase.store_id = u.store_id and purchase.order_id = u.order_id)
      on conflict (store_id, occurred_at, event_id) do nothing
      returning 1
    )
    select (select count(*) from stored)::int as stored, (select count(*) from purchase)::int as purchases, (select count(*) from dropped)::int as drops`;
})();

/** The month partition of tracking_events holding `date` (UTC months). */
export function partitionOf(date: Date): { name: string; from: string; to: string } {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const from = new Date(Date.UTC(year, month, 1));
  const to = new Date(Date.UTC(year, month + 1, 1));
  return { name: `tracking_events_y${year}m${String(month + 1).padStart(2, '0')}`, from: from.toISOString(), to: to.toISOString() };
}

/**
 * Creates the month partitions holding these dates when missing. Processes take turns through a
 * transaction-level advisory lock (two `create table if not exists ... partition of` at once would
 * collide on the catalogue).
 */
export async function ensurePartitions(pool: pg.Pool, dates: Iterable<Date>): Promise<string[]> {
  const wanted = new Map<string, ReturnType<typeof partitionOf>>();
  for (const date of dates) {
    const partition = partitionOf(date);
    wanted.set(partition.name, partition);
  }
  if (wanted.size === 0) return [];
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'tracking_events'::regclass and c.relname = any($1::text[])`,
      [[...wanted.keys()]],
    );
    const existing = new Set(rows.map((row) => row.name));
    const missing = [...wanted.values()].filter((partition) => !existing.has(partition.name));
    if (missing.length === 0) return [...wanted.keys()];
    await client.query('begin');
    try {
      await client.query(`select pg_advisory_xact_lock(hashtext('storepulse.tracking-partitions'))`);
      for (const partition of missing) {
        await client.query(`create table if not exists "${partition.name}" partition of tracking_events for values from ('${partition.from}') to ('${partition.to}')`);
      }
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    }
    return [...wanted.keys()];
  } finally {
    client.release();
  }
}

export class EventWriter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private readonly knownPartitions = new Set<string>();
  private closed = false;
  private idle: (() => void)[] = [];
  /** Statements written and events per statement, for the benchmark's report. */
  readonly stats = { groups: 0, events: 0 };

  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Resolves once the events and counters are committed; rejects when the statement failed (nothing of it stored). */
  write(events: EventRow[], drops: DropCount[]): Promise<WriteResult> {
    if (this.closed) return Promise.reject(new Error('The event writer is closed'));
    if (events.length === 0 && drops.length === 0) return Promise.resolve({ stored: 0, duplicates: 0 });
    return new Promise<WriteResult>((resolve, reject) => {
      this.queue.push({ events, drops, resolve, reject });
      this.pump();
    });
  }

  /** Refuses new writes and waits for the queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.queue.length === 0 && this.inFlight === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const group: Pending[] = [];
      let size = 0;
      while (this.queue.length > 0 && (group.length === 0 || size + this.queue[0]!.events.length <= MAX_GROUP_EVENTS)) {
        const next = this.queue.shift()!;
        size += next.events.length;
        group.push(next);
      }
      this.inFlight += 1;
      void this.flush(group).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.pump();
        else if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  private async flush(group: Pending[]): Promise<void> {
    try {
      const results = await this.writeGroup(group);
      group.forEach((pending, index) => pending.resolve(results[index]!));
    } catch (error) {
      for (const pending of group) pending.reject(error);
    }
  }

  private async writeGroup(group: Pending[]): Promise<WriteResult[]> {
    const events: EventRow[] = [];
    const purchases: EventRow[] = [];
    const seenOrders = new Set<string>();
    // Per request: how many of its events went in, and how many were duplicate purchases within the group.
    const owners: { duplicatesInGroup: number; count: number }[] = [];
    for (const pending of group) {
      const owner = { duplicatesInGroup: 0, count: 0 };
      for (const event of pending.events) {
        if (event.name === 'purchase' && event.orderId) {
          const key = `${event.storeId}\u0000${event.orderId}`;
          if (seenOrders.has(key)) {
            owner.duplicatesInGroup += 1;
            continue;
          }
          seenOrders.add(key);
          purchases.push(event);
        }
        events.push(event);
        owner.count += 1;
      }
      owners.push(owner);
    }
    const partitions = new Set(events.map((event) => partitionOf(event.occurredAt).name));
    if ([...partitions].some((name) => !this.knownPartitions.has(name))) {
      for (const name of await ensurePartitions(this.pool, events.map((event) => event.occurredAt))) this.knownPartitions.add(name);
    }

    const columns: unknown[][] = EVENT_COLUMNS.map(() => []);
    for (const event of events) eventValues(event).forEach((value, index) => columns[index]!.push(value));
    const purchaseColumns: unknown[][] = Array.from({ length: PURCHASE_COLUMNS }, () => []);
    for (const purchase of purchases) {
      [purchase.storeId, purchase.orderId, purchase.occurredAt.toISOString(), purchase.source, purchase.anonymousId, purchase.emailHash, purchase.customerId, purchase.checkoutToken, purchase.valueMinor, purchase.currency].forEach((value, index) => purchaseColumns[index]!.push(value));
    }
    // One counter row per store, day and reason in a statement (sorted, so concurrent statements lock rows in one order).
    const dropTotals = new Map<string, DropCount>();
    for (const pending of group) {
      for (const drop of pending.drops) {
        const key = `${drop.storeId}\u0000${drop.reason}`;
        const total = dropTotals.get(key);
        if (total) total.count += drop.count;
        else dropTotals.set(key, { ...drop });
      }
    }
    const drops = [...dropTotals.values()].sort((a, b) => a.storeId - b.storeId || (a.reason < b.reason ? -1 : 1));
    // A named statement: each connection parses and plans the long text once, not on every group.
    const { rows } = await this.pool.query<{ stored: number; purchases: number }>({
      name: 'tracking-group-commit',
      text: GROUP_SQL,
      values: [...columns, ...purchaseColumns, drops.map((drop) => drop.storeId), drops.map((drop) => drop.reason), drops.map((drop) => drop.count)],
    });
    this.stats.groups += 1;
    this.stats.events += rows[0]!.stored;
    // Per-request figures: exact when the group stored every event (the usual case); otherwise the
    // events not stored (duplicates) are shared out in order: only the counts that the server API
    // answers with depend on it, never what is stored.
    let missing = events.length - rows[0]!.stored;
    return owners.map((owner) => {
      const notStored = Math.min(missing, owner.count);
      missing -= notStored;
      return { stored: owner.count - notStored, duplicates: notStored + owner.duplicatesInGroup };
    });
  }
}
