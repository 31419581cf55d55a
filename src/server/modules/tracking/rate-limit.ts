import type pg from 'pg';

// The collector's rate limits (per client address: requests; per store: events) in fixed windows of
// TRACKING_RATE_WINDOW_SECONDS (1 by default; the limit of a window is the per-second limit times its
// seconds: a longer window lets bursts through that a second would refuse, and a busy test machine
// fill one deterministically). Each process counts in its own memory, so the hot path makes no database round trip and a
// single process refuses at once; every SYNC_MS (250 ms) it adds what it admitted since the last sync
// into the shared unlogged table tracking_rate_windows and reads back each key's total over all
// processes, and from then on refuses when that total (its own count + the others' last read) is
// used up. Over-admission is bounded: the other processes' admissions are seen at most one sync
// late, so a window can admit up to the limit plus what the other processes took in their last
// 250 ms (at worst N × the limit with N processes that all fill a fresh window in one sync interval).

export interface RateLimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export const SYNC_MS = 250;
const KEEP_SECONDS = 60;

interface Window {
  /** The window's first second (epoch seconds). */
  second: number;
  /** Admitted here in this window. */
  count: number;
  /** Admitted here and not yet added to the shared table. */
  unsynced: number;
  /** The other processes' admissions in this window, as last read. */
  others: number;
}

export class WindowCounter {
  private windows = new Map<string, Window>();
  private lastSweep = 0;

  readonly perSecond: number;
  /** The limit of one window: perSecond × its seconds. */
  readonly perWindow: number;
  private readonly windowSeconds: number;
  private readonly now: () => number;

  constructor(perSecond: number, now: () => number = Date.now, windowSeconds = 1) {
    this.perSecond = perSecond;
    this.windowSeconds = windowSeconds;
    this.perWindow = perSecond * windowSeconds;
    this.now = now;
  }

  /** The first second of the window `now` is in. */
  private windowOf(now: number): number {
    return Math.floor(now / 1000 / this.windowSeconds) * this.windowSeconds;
  }

  /** Counts `amount` for the key; refuses (counting nothing) when the key's window is used up here and elsewhere. */
  take(key: string, amount = 1): RateLimitDecision {
    const now = this.now();
    const second = this.windowOf(now);
    if (now - this.lastSweep > 10_000) this.sweep(second);
    let window = this.windows.get(key);
    if (!window || window.second !== second) {
      window = { second, count: 0, unsynced: 0, others: 0 };
      this.windows.set(key, window);
    }
    const used = window.count + window.others;
    if (used + amount > this.perWindow && used > 0) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(second + this.windowSeconds - now / 1000)) };
    }
    window.count += amount;
    window.unsynced += amount;
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** This window's keys to sync (what each admitted since the last sync), marked as synced. */
  takeUnsynced(): { key: string; second: number; amount: number }[] {
    const second = this.windowOf(this.now());
    const out: { key: string; second: number; amount: number }[] = [];
    for (const [key, window] of this.windows) {
      if (window.second < second - this.windowSeconds) continue;
      out.push({ key, second: window.second, amount: window.unsynced });
      window.unsynced = 0;
    }
    return out;
  }

  /** A key's total over all processes for a window, as the shared table answered. */
  applyTotal(key: string, second: number, total: number): void {
    const window = this.windows.get(key);
    if (window && window.second === second) window.others = Math.max(0, total - window.count);
  }

  private sweep(second: number): void {
    this.lastSweep = second * 1000;
    for (const [key, window] of this.windows) if (window.second < second - this.windowSeconds) this.windows.delete(key);
  }
}

const SYNC_SQL = `
  insert into tracking_rate_windows as t (key, scope, second, count)
  select * from unnest($1::text[], $2::text[], $3::int8[], $4::int8[])
  on conflict (key, scope, second) do update set count = t.count + excluded.count
  returning key, scope, second::float8 as second, count::float8 as count`;

/**
 * The shared side of the limits (see the top of this file): one statement every SYNC_MS for all the
 * counters' active keys, and old windows deleted every ~10 s. The table (unlogged: counts of the
 * last seconds need no crash safety) comes from migration 20261128093100.
 */
export class SharedRateLimits {
  private timer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> | null = null;
  private lastCleanup = 0;
  private readonly pool: pg.Pool;
  private readonly counters: Record<string, WindowCounter>;
  private readonly onError: (error: unknown) => void;

  constructor(pool: pg.Pool, counters: Record<string, WindowCounter>, onError: (error: unknown) => void) {
    this.pool = pool;
    this.counters = counters;
    this.onError = onError;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.syncing ??= this.sync()
        .catch(this.onError)
        .finally(() => (this.syncing = null));
    }, SYNC_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.syncing;
  }

  /** Adds this process's new counts and reads back the totals. */
  async sync(): Promise<void> {
    const keys: string[] = [], scopes: string[] = [], seconds: number[] = [], amounts: number[] = [];
    for (const [scope, counter] of Object.entries(this.counters)) {
      for (const entry of counter.takeUnsynced()) {
        keys.push(entry.key);
        scopes.push(scope);
        seconds.push(entry.second);
        amounts.push(entry.amount);
      }
    }
    if (keys.length > 0) {
      const { rows } = await this.pool.query<{ key: string; scope: string; second: number; count: number }>(SYNC_SQL, [keys, scopes, seconds, amounts]);
      for (const row of rows) this.counters[row.scope]?.applyTotal(row.key, row.second, row.count);
    }
    const now = Date.now();
    if (now - this.lastCleanup > 10_000) {
      this.lastCleanup = now;
      await this.pool.query(`delete from tracking_rate_windows where second < $1`, [Math.floor(now / 1000) - KEEP_SECONDS]);
    }
  }
}
