// Fixed-window request counters, as the e-mail platforms' fakes (test/fakes/klaviyo.ts,
// test/fakes/omnisend.ts) enforce the platforms' documented rate limits. Not used by production code:
// it lives here, beside the connectors whose fakes share it, because test/fakes holds one file per
// platform. A window of `ms` milliseconds starts at a multiple of `ms` (fixed windows, as Klaviyo
// documents its burst and steady windows), and a refused request does not count.

export interface RateWindow {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in milliseconds. */
  ms: number;
}

export type WindowVerdict =
  | { ok: true; /** Per window, in the order given: requests left after this one and seconds until it resets. */ windows: { remaining: number; resetSeconds: number }[] }
  | { ok: false; /** Whole seconds until the exhausted window resets (at least 1). */ retryAfterSeconds: number; window: RateWindow };

export class FixedWindows {
  private readonly counts = new Map<string, { start: number; count: number }>();

  /** Counts a request under `key` if every window has room; otherwise tells how long the fullest one stays closed. */
  take(key: string, windows: readonly RateWindow[], now: number): WindowVerdict {
    for (const window of windows) {
      const start = Math.floor(now / window.ms) * window.ms;
      const entry = this.counts.get(`${key}|${window.ms}`);
      const used = entry && entry.start === start ? entry.count : 0;
      if (used >= window.limit) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((start + window.ms - now) / 1000)), window };
    }
    const states = windows.map((window) => {
      const start = Math.floor(now / window.ms) * window.ms;
      const id = `${key}|${window.ms}`;
      const entry = this.counts.get(id);
      const count = entry && entry.start === start ? entry.count + 1 : 1;
      this.counts.set(id, { start, count });
      return { remaining: window.limit - count, resetSeconds: Math.max(1, Math.ceil((start + window.ms - now) / 1000)) };
    });
    return { ok: true, windows: states };
  }
}

/**
 * A fake's clock. 'real' follows the wall clock. 'skip-ahead' also jumps forward by every
 * Retry-After the fake announces, as if the client had waited exactly that long: tests whose HTTP
 * client only records its waits (instead of sleeping) then see the window reopen. Whether the client
 * really waited as long as it was told is for those tests to check, on the waits it recorded.
 */
export class FakeClock {
  private offsetMs: number;
  private readonly mode: 'real' | 'skip-ahead';

  /** `startAt`: the instant the clock shows now (it then runs with the wall clock); the wall clock's when absent. */
  constructor(mode: 'real' | 'skip-ahead', startAt?: Date) {
    this.mode = mode;
    this.offsetMs = startAt ? startAt.getTime() - Date.now() : 0;
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Called when the fake refuses with Retry-After `seconds`. */
  throttled(seconds: number): void {
    if (this.mode === 'skip-ahead') this.offsetMs += seconds * 1000;
  }
}
