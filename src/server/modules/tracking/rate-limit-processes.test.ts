import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { startServerProcess, type ServerProcess } from '../../../../test/server-process.ts';
import { trackingSettingsOf } from './tracking-settings.service.ts';

// The collector's per-store limit over two real server processes on one database (rate-limit.ts):
// each counts in memory and shares its counts through tracking_rate_windows every 250 ms. Windows of
// 5 s (TRACKING_RATE_WINDOW_SECONDS; 120 events a second = 600 a window): a busy machine still fills
// one from a single process with time to spare, which one-second windows did not always allow.

const database = useTestDatabase();
const servers: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

const WINDOW_SECONDS = 5;
const PER_SECOND = 120;
const LIMIT = PER_SECOND * WINDOW_SECONDS;
const BATCH = 200;
const WINDOW_MS = WINDOW_SECONDS * 1000;
/** Until the next window starts (the state waited for is the clock's: each attempt fills a fresh window). */
const nextWindow = () => new Promise((resolve) => setTimeout(resolve, WINDOW_MS - (Date.now() % WINDOW_MS)));
const windowOf = (ms: number) => Math.floor(ms / WINDOW_MS);
/** Retry-After: the whole seconds left in the window, at least 1. */
const retryAfterOf = (answer: Response | null) => Number(answer?.headers.get('retry-after'));
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('collector rate limits over two processes', () => {
  it('holds the per-store limit across both (429 + Retry-After), and one process alone refuses at once', async () => {
    const storeId = (await createCommerceStore(database.orm)).id;
    const { storeKey } = await trackingSettingsOf(database.orm.em.fork(), storeId);
    const env = { TRACKING_REQUESTS_PER_IP_PER_SECOND: '1000000', TRACKING_EVENTS_PER_STORE_PER_SECOND: String(PER_SECOND), TRACKING_RATE_WINDOW_SECONDS: String(WINDOW_SECONDS), SCHEDULED_SYNCS: 'false', SESSION_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    const [a, b] = await Promise.all([startServerProcess('A', database.url, env), startServerProcess('B', database.url, env)]);
    servers.push(a, b);
    let counter = 0;
    const send = (server: ServerProcess, events: number) => {
      const now = Date.now();
      const list = Array.from({ length: events }, () => ({ name: 'page_view', id: `rl_${(counter += 1)}_${randomBytes(4).toString('hex')}`, ts: now, url: 'https://shop.example/' }));
      return fetch(`${server.baseUrl}/p/e`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example', 'user-agent': BROWSER_UA },
        body: JSON.stringify({ key: storeKey, aid: 'rate_limit_visitor', consent: 1, now, events: list }),
      });
    };

    // One process: a window's worth on A, and A's next batch in that window is refused at once (no sync needed).
    let refusedAtOnce: Response | null = null;
    for (let attempt = 0; attempt < 5 && !refusedAtOnce; attempt++) {
      await nextWindow();
      const window = windowOf(Date.now());
      const statuses = [];
      for (let batch = 0; batch < LIMIT / BATCH; batch++) statuses.push((await send(a, BATCH)).status);
      const next = await send(a, 1);
      if (windowOf(Date.now()) !== window) continue;
      expect(statuses).toEqual(Array(LIMIT / BATCH).fill(204));
      expect(next.status).toBe(429);
      refusedAtOnce = next;
    }
    expect(retryAfterOf(refusedAtOnce)).toBeGreaterThanOrEqual(1);
    expect(retryAfterOf(refusedAtOnce)).toBeLessThanOrEqual(WINDOW_SECONDS);

    // Two processes: most of a window's worth on A, then single events on B. B refuses while its own
    // count in that window is below the limit: only the counts it read from the shared table can make it.
    let refusedByB: Response | null = null;
    for (let cycle = 0; cycle < 5 && !refusedByB; cycle++) {
      await nextWindow();
      const window = windowOf(Date.now());
      let acceptedOnA = 0;
      for (let batch = 0; batch < LIMIT / BATCH; batch++) if ((await send(a, BATCH)).status === 204) acceptedOnA += BATCH;
      if (acceptedOnA < LIMIT - BATCH || windowOf(Date.now()) !== window) continue;
      let acceptedOnB = 0;
      // Until A's window has ended (then the next cycle fills a fresh one).
      while (windowOf(Date.now()) === window) {
        const answer = await send(b, 1);
        if (answer.status === 429 && windowOf(Date.now()) === window) {
          // B alone never reached the limit in this window: the refusal comes from A's counts.
          expect(acceptedOnB).toBeLessThan(LIMIT);
          refusedByB = answer;
          break;
        }
        if (answer.status === 429) break; // the window ended meanwhile
        expect(answer.status).toBe(204);
        acceptedOnB += 1;
      }
    }
    expect(refusedByB?.status).toBe(429);
    expect(retryAfterOf(refusedByB)).toBeGreaterThanOrEqual(1);
    expect(retryAfterOf(refusedByB)).toBeLessThanOrEqual(WINDOW_SECONDS);
  });
});
