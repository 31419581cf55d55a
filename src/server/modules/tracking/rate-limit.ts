// The collector's rate limits (per client address: requests; per store: events), counted in this
// process's memory in fixed one-second windows: the collector's hot path makes no database round trip
// for them. With N app processes each allows its own share, so a deployment sets the limits per
// process (README, "Tracking").

export interface RateLimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export class WindowCounter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  readonly perSecond: number;
  private readonly now: () => number;

  constructor(perSecond: number, now: () => number = Date.now) {
    this.perSecond = perSecond;
    this.now = now;
  }

  /** Counts `amount` for the key; refuses (counting nothing) when the key's second is used up. */
  take(key: string, amount = 1): RateLimitDecision {
    const now = this.now();
    const start = now - (now % 1000);
    if (now - this.lastSweep > 10_000) this.sweep(start);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count + amount > this.perSecond && window.count > 0) {
      return { allowed: false, retryAfterSeconds: 1 };
    }
    window.count += amount;
    return { allowed: true, retryAfterSeconds: 0 };
  }

  private sweep(start: number): void {
    this.lastSweep = start;
    for (const [key, window] of this.windows) if (window.start < start) this.windows.delete(key);
  }
}
