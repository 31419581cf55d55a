import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, readRollups } from '../../../test/commerce-fixtures.ts';
import { CONTRACT_ADAPTERS, type ContractFake } from '../../../test/fakes/contract-adapters.ts';
import { createTestDatabase } from '../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../shared/platforms.ts';
import type { PlatformSettings } from '../config.ts';
import { sqlRunner } from '../modules/commerce/raw-sql.ts';
import { PlatformConnection } from '../modules/connections/platform-connection.entity.ts';
import { SyncRun } from '../modules/integrations/integration.entities.ts';
import { integrationsSettingsFrom, type IntegrationsSettings } from '../modules/integrations/integrations-runtime.ts';
import { queueSync, runSync, sealCredentials, type RunSyncOptions } from '../modules/integrations/sync-runner.ts';
import type { ConnectorCredentials } from './connector.ts';
import { CONNECTORS, registeredPlatforms } from './registry.ts';

// The contract every connector keeps with the sync engine, run for each registered platform against
// its fake and a real database: the full backfill stores exactly the fake's rows, an incremental
// sync picks up a change and nothing else, a replay changes nothing, a crash mid-backfill resumes
// without duplicates or gaps, throttling and server errors are retried, and a refused credential
// disconnects the connection with a reason while the data stays.

const BACKFILL_MONTHS = 3;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = database.orm;
});
afterAll(() => database?.close());

function settingsFor(platform: PlatformKey, fake: ContractFake): IntegrationsSettings {
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms[platform] = { baseUrl: fake.baseUrl, ...(fake.oauth ?? {}) };
  return integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-contract'), platforms });
}

/** Rows a platform's syncs write, keyed like the adapters' mutate() keys, with their values as text. */
async function snapshot(em: EntityManager, storeId: number, platform: PlatformKey): Promise<Map<string, string>> {
  const kind = CONNECTORS[platform].kind;
  const sql =
    kind === 'store'
      ? `select external_id as key, concat_ws('|', status, gross_minor, discounts_minor, refunds_minor, net_sales_minor, is_test, updated_at) as value from orders where store_id = $1 and platform = $2`
      : kind === 'ads'
        ? `select campaign_id || '|' || to_char(day, 'YYYY-MM-DD') as key, concat_ws('|', spend_minor, impressions, clicks, conversions, conversion_value_minor) as value from ad_metrics_daily where store_id = $1 and platform = $2`
        : `select campaign_id || '|' || to_char(day, 'YYYY-MM-DD') as key, concat_ws('|', sends, opens, clicks, attributed_orders, attributed_revenue_minor) as value from email_metrics_daily where store_id = $1 and platform = $2`;
  const rows = await sqlRunner(em).rows<{ key: string; value: string }>(sql, [storeId, platform]);
  return new Map(rows.map((row) => [row.key, row.value]));
}

/** The stored figures comparable with ExpectedFigures: row count and spend (ads) or sends (e-mail). */
async function stored(em: EntityManager, storeId: number, platform: PlatformKey): Promise<{ rows: number; amount: number | null }> {
  const kind = CONNECTORS[platform].kind;
  const sql =
    kind === 'store'
      ? `select count(*)::int as rows, null as amount from orders where store_id = $1 and platform = $2`
      : kind === 'ads'
        ? `select count(*)::int as rows, coalesce(sum(spend_minor), 0)::bigint as amount from ad_metrics_daily where store_id = $1 and platform = $2`
        : `select count(*)::int as rows, coalesce(sum(sends), 0)::bigint as amount from email_metrics_daily where store_id = $1 and platform = $2`;
  const [row] = await sqlRunner(em).rows<{ rows: number; amount: string | null }>(sql, [storeId, platform]);
  return { rows: row!.rows, amount: row!.amount === null ? null : Number(row!.amount) };
}

describe.each(registeredPlatforms())('connector contract: %s', (platform) => {
  const adapter = CONTRACT_ADAPTERS[platform];
  let fake: ContractFake;
  let settings: IntegrationsSettings;
  const waits: number[] = [];
  const now = new Date();

  beforeAll(async () => {
    if (!adapter) throw new Error(`No contract adapter for ${platform}: add one to test/fakes/contract-adapters.ts`);
    fake = await adapter.start(now);
    settings = settingsFor(platform, fake);
  });
  afterAll(() => fake?.close());

  function options(extra: Partial<RunSyncOptions> = {}): RunSyncOptions {
    // One page per ingest batch, so that the batches below are the connector's pages.
    return { settings, connector: fake.connector, http: { sleep: async (ms) => void waits.push(ms), maxAttempts: 4 }, ingestBatchRows: 1, ...extra };
  }

  /** A store in UTC with the platform connected (credentials sealed) and never synced. */
  async function connectedStore(credentials: ConnectorCredentials = fake.credentials) {
    const store = await createCommerceStore(orm, { timezone: 'UTC', currency: 'USD' });
    const em = orm.em.fork();
    const connection = em.create(PlatformConnection, { store: store.id, platform, status: 'connected', connected: true, backfillMonths: BACKFILL_MONTHS });
    await em.flush();
    sealCredentials(settings, connection, credentials);
    await em.flush();
    return { store, connectionId: connection.id };
  }

  async function queue(connectionId: number, kind?: 'backfill' | 'incremental') {
    const em = orm.em.fork();
    const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
    return (await queueSync(em, connection, { kind })).id;
  }

  async function runOf(runId: number) {
    return orm.em.fork().findOneOrFail(SyncRun, { id: runId });
  }

  /** Runs the sync to its end and expects success (showing the run's error otherwise). */
  async function syncs(runId: number, extra: Partial<RunSyncOptions> = {}) {
    await runSync(orm.em.fork(), runId, options(extra));
    const run = await runOf(runId);
    expect({ status: run.status, error: run.error }).toEqual({ status: 'succeeded', error: null });
    return run;
  }

  let clean: { storeId: number; connectionId: number; batches: number };

  it('backfills exactly the rows the platform holds for the window', async () => {
    const { store, connectionId } = await connectedStore();
    const runId = await queue(connectionId);
    let batches = 0;
    await syncs(runId, { afterIngest: (batch) => void (batches = batch) });
    const run = await runOf(runId);
    expect(run.kind).toBe('backfill');
    const expected = fake.expected({ since: run.windowSince, until: run.windowUntil });
    expect(expected.rows).toBeGreaterThan(0);
    expect(await stored(orm.em.fork(), store.id, platform)).toEqual(expected);
    expect(run.rowsDone).toBeGreaterThanOrEqual(expected.rows);
    const connection = await orm.em.fork().findOneOrFail(PlatformConnection, { id: connectionId });
    expect(connection).toMatchObject({ status: 'connected', lastError: null });
    expect(connection.syncedUntil?.getTime()).toBe(run.windowUntil.getTime());
    clean = { storeId: store.id, connectionId, batches };
  });

  it('replaying the same window changes nothing (its pages ingested together this time)', async () => {
    const before = await readRollups(orm.em.fork(), clean.storeId);
    const rowsBefore = await snapshot(orm.em.fork(), clean.storeId, platform);
    const runId = await queue(clean.connectionId, 'backfill');
    await syncs(runId, { ingestBatchRows: undefined });
    expect(await snapshot(orm.em.fork(), clean.storeId, platform)).toEqual(rowsBefore);
    expect(await readRollups(orm.em.fork(), clean.storeId)).toEqual(before);
  });

  it('resumes a backfill that crashed mid-way without duplicates or gaps', async () => {
    const { store, connectionId } = await connectedStore();
    const runId = await queue(connectionId);
    const crashAt = clean.batches >= 3 ? 2 : 1;
    const crash = () => {
      throw new Error('worker died');
    };
    await expect(runSync(orm.em.fork(), runId, options({ afterIngest: (batch) => (batch === crashAt ? crash() : undefined) }))).rejects.toThrow('worker died');
    const crashed = await runOf(runId);
    expect(crashed.status).toBe('running');
    if (crashAt > 1) expect(crashed.cursor).not.toBeNull();
    // pg-boss retries the job: the run goes on from its stored cursor.
    await syncs(runId);
    const run = await runOf(runId);
    expect(await stored(orm.em.fork(), store.id, platform)).toEqual(fake.expected({ since: run.windowSince, until: run.windowUntil }));
    expect(await snapshot(orm.em.fork(), store.id, platform)).toEqual(await snapshot(orm.em.fork(), clean.storeId, platform));
    expect(await readRollups(orm.em.fork(), store.id)).toEqual(await readRollups(orm.em.fork(), clean.storeId));
  });

  it('retries rate limits and server errors', async (context) => {
    if (!fake.injectFault('rate_limit')) return context.skip();
    fake.injectFault('server_error');
    const { store, connectionId } = await connectedStore();
    const runId = await queue(connectionId);
    waits.length = 0;
    await syncs(runId);
    expect(fake.faultServed('rate_limit')).toBe(true);
    expect(fake.faultServed('server_error')).toBe(true);
    expect(waits.length).toBeGreaterThanOrEqual(2);
    const run = await runOf(runId);
    expect(await stored(orm.em.fork(), store.id, platform)).toEqual(fake.expected({ since: run.windowSince, until: run.windowUntil }));
  });

  it('an incremental sync picks up a change and nothing else', async () => {
    const before = await snapshot(orm.em.fork(), clean.storeId, platform);
    const { key, credentials } = fake.mutate(new Date());
    if (credentials) {
      const em = orm.em.fork();
      const connection = await em.findOneOrFail(PlatformConnection, { id: clean.connectionId });
      sealCredentials(settings, connection, credentials);
      await em.flush();
    }
    const runId = await queue(clean.connectionId);
    expect((await runOf(runId)).kind).toBe('incremental');
    await syncs(runId);
    const after = await snapshot(orm.em.fork(), clean.storeId, platform);
    expect(before.has(key)).toBe(true);
    const changed = [...after.keys()].filter((candidate) => after.get(candidate) !== before.get(candidate));
    expect(changed).toEqual([key]);
  });

  it('a refused credential disconnects the connection with a reason and keeps the data', async (context) => {
    if (!fake.revoke) return context.skip();
    const before = await snapshot(orm.em.fork(), clean.storeId, platform);
    fake.revoke();
    const runId = await queue(clean.connectionId);
    expect(await runSync(orm.em.fork(), runId, options())).toBe('failed');
    const connection = await orm.em.fork().findOneOrFail(PlatformConnection, { id: clean.connectionId });
    expect(connection.status).toBe('disconnected');
    expect(connection.connected).toBe(false);
    expect(connection.sealedCredentials).toBeNull();
    expect(connection.disconnectReason).toMatch(/\w{8,}/);
    expect((await runOf(runId)).error).toBe(connection.disconnectReason);
    expect(await snapshot(orm.em.fork(), clean.storeId, platform)).toEqual(before);
  });
});
