import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { startServerProcess, type ServerProcess } from '../../../../test/server-process.ts';
import { trackingSettingsOf } from './tracking-settings.service.ts';

// The collector's per-store limit over two real server processes on one database (rate-limit.ts):
// each counts in memory and shares its counts through tracking_rate_windows every 250 ms.

const database = useTestDatabase();
const servers: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

const LIMIT = 600;
const BATCH = 200;
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('collector rate limits over two processes', () => {
  it('holds the per-store limit across both (429 + Retry-After), and one process alone refuses at once', async () => {
    const storeId = (await createCommerceStore(database.orm)).id;
    const { storeKey } = await trackingSettingsOf(database.orm.em.fork(), storeId);
    const env = { TRACKING_REQUESTS_PER_IP_PER_SECOND: '1000000', TRACKING_EVENTS_PER_STORE_PER_SECOND: String(LIMIT), SCHEDULED_SYNCS: 'false', SESSION_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
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

    // One process: a second's worth on A, and A's next batch in that second is refused at once (no sync needed).
    let refusedAtOnce: Response | null = null;
    for (let attempt = 0; attempt < 20 && !refusedAtOnce; attempt++) {
      const statuses = [];
      for (let batch = 0; batch < LIMIT / BATCH; batch++) statuses.push((await send(a, BATCH)).status);
      const next = await send(a, 1);
      if (statuses.every((status) => status === 204) && next.status === 429) refusedAtOnce = next;
    }
    expect(refusedAtOnce?.headers.get('retry-after')).toBe('1');

    // Two processes: most of a second's worth on A, then single events on B. B refuses while its own
    // count in that second is below the limit: only the counts it read from the shared table can make it.
    let refusedByB: Response | null = null;
    for (let cycle = 0; cycle < 30 && !refusedByB; cycle++) {
      // Each cycle starts with a fresh one-second window (the limits' unit): the state waited for is the clock's.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
      const started = Date.now();
      let acceptedOnA = 0;
      for (let batch = 0; batch < LIMIT / BATCH; batch++) if ((await send(a, BATCH)).status === 204) acceptedOnA += BATCH;
      if (acceptedOnA < LIMIT - BATCH) continue;
      const acceptedOnBPerSecond = new Map<number, number>();
      // Until A's window has certainly ended (then the next cycle fills a fresh one).
      while (Date.now() - started < 1_500) {
        const second = Math.floor(Date.now() / 1000);
        const answer = await send(b, 1);
        // A refusal once B alone has used up a fresh second proves nothing: the next cycle tries again.
        if (answer.status === 429 && (acceptedOnBPerSecond.get(second) ?? 0) >= LIMIT) break;
        if (answer.status === 429) {
          refusedByB = answer;
          break;
        }
        expect(answer.status).toBe(204);
        acceptedOnBPerSecond.set(second, (acceptedOnBPerSecond.get(second) ?? 0) + 1);
      }
    }
    expect(refusedByB?.status).toBe(429);
    expect(refusedByB?.headers.get('retry-after')).toBe('1');
  });
});
