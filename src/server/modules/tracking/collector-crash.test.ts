import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { HANG_GUARD_MS, startServerProcess, type ServerProcess } from '../../../../test/server-process.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { trackingSettingsOf } from './tracking-settings.service.ts';

// Durability of the collector, the way src/server/jobs/crash-recovery.test.ts proves the ingest's: the
// real server (src/server/main.ts) in a child process, loaded with concurrent batches, killed with
// SIGKILL in the middle of the run, and the stored events counted: every event whose batch was
// answered 204 must be in the database (the answer waits for the group commit).

const database = useTestDatabase();
const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});

describe('collector crash safety', () => {
  it('kill -9 under load loses no acknowledged event', async () => {
    const storeId = (await createCommerceStore(database.orm)).id;
    const { storeKey } = await trackingSettingsOf(database.orm.em.fork(), storeId);
    const server = await startServerProcess('collector', database.url, {
      TRACKING_REQUESTS_PER_IP_PER_SECOND: '1000000',
      TRACKING_EVENTS_PER_STORE_PER_SECOND: '10000000',
      SCHEDULED_SYNCS: 'false',
    });
    servers.push(server);
    const run = randomBytes(3).toString('hex');
    const acknowledged: string[] = [];
    let failures = 0;
    let killing: Promise<void> | null = null;
    const KILL_AFTER = 3_000;
    const BATCH = 10;

    const worker = async (number: number) => {
      for (let request = 0; ; request++) {
        const ids = Array.from({ length: BATCH }, (_, index) => `k${run}_${number}_${request}_${index}`);
        const body = JSON.stringify({
          key: storeKey,
          aid: `crash_${run}_${number}`,
          consent: 1,
          now: Date.now(),
          events: ids.map((id) => ({ name: 'page_view', id, ts: Date.now(), url: `https://shop.example/p/${request}` })),
        });
        try {
          const answer = await fetch(`${server.baseUrl}/p/e`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36' }, body });
          if (answer.status !== 204) throw new Error(`status ${answer.status}: ${await answer.text()}`);
          acknowledged.push(...ids);
          if (acknowledged.length >= KILL_AFTER && !killing) killing = server.kill();
        } catch (error) {
          // Refused or cut off: the process is gone (or going). Anything else is a failure of the test.
          failures += 1;
          if (!killing) throw error;
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, number) => worker(number)));
    await killing;
    expect(await server.exited).toBe('SIGKILL');
    expect(failures).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

    const [row] = await sqlRunner(database.orm.em.fork()).rows<{ n: number }>(
      `select count(*)::int as n from tracking_events where store_id = $1 and event_id = any($2::text[])`,
      [storeId, acknowledged],
    );
    expect(row!.n).toBe(acknowledged.length);
  }, HANG_GUARD_MS);
});
