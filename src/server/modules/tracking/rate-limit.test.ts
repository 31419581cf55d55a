import { describe, expect, it } from 'vitest';
import { WindowCounter } from './rate-limit.ts';

describe('WindowCounter', () => {
  it('admits the per-second limit times the window, then refuses until the window ends (Retry-After: the seconds left)', () => {
    let now = 12_300; // 2.3 s into the window that starts at 10 s
    const counter = new WindowCounter(2, () => now, 5);
    for (let event = 0; event < 10; event++) expect(counter.take('store:1').allowed).toBe(true);
    expect(counter.take('store:1')).toEqual({ allowed: false, retryAfterSeconds: 3 });
    // Another key has its own window.
    expect(counter.take('store:2').allowed).toBe(true);
    now = 14_999;
    expect(counter.take('store:1')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 15_000;
    expect(counter.take('store:1').allowed).toBe(true);
  });

  it('counts what other processes admitted in the same window, as the shared table reported it', () => {
    const now = 20_100;
    const counter = new WindowCounter(3, () => now, 1);
    expect(counter.take('ip:a').allowed).toBe(true);
    const [unsynced] = counter.takeUnsynced();
    expect(unsynced).toEqual({ key: 'ip:a', second: 20, amount: 1 });
    counter.applyTotal('ip:a', 20, 3); // two more elsewhere
    expect(counter.take('ip:a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });
});
