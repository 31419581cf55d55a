import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKlaviyoFake, type KlaviyoFake } from '../../../../test/fakes/klaviyo.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { createTestApp, createTestDatabase } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { startJobs, type JobRunner } from '../../jobs/boss.ts';
import { INTEGRATION_JOBS } from './integration-jobs.ts';
import { SyncRun } from './integration.entities.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender } from './integrations-runtime.ts';

// The sync engine's queues on a real pg-boss: connecting a platform sends the backfill job, which a
// worker of this process runs to its end.

const DAY_MS = 86_400_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
let jobs: JobRunner;
let klaviyo: KlaviyoFake;

beforeAll(async () => {
  database = await createTestDatabase();
  app = await createTestApp(database.orm);
  klaviyo = await startKlaviyoFake({ seed: 8, campaigns: 10, start: new Date(Date.now() - 30 * DAY_MS).toISOString().slice(0, 10), days: 30 });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.klaviyo = { baseUrl: klaviyo.apiUrl };
  configureIntegrations(integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-jobs-test'), platforms }));
  jobs = await startJobs({
    databaseUrl: database.url,
    orm: database.orm,
    baseUrl: 'http://localhost',
    logger: { info: () => {}, error: () => {} },
    jobs: INTEGRATION_JOBS,
    schedule: false,
  });
  setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await jobs?.stop();
  await app?.close();
  await klaviyo?.close();
  await database?.close();
});

describe('integrations.sync on pg-boss', () => {
  it('runs the backfill queued by connecting, in the background', async () => {
    const owner = await ownerWithStore(app, database.orm, 'Queued shop');
    const connected = await owner.client.post('/trpc/integrations.connect', { platform: 'klaviyo', credentials: { apiKey: klaviyo.options.apiKey } });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const runId = connected.body.result.data.currentRun.id as number;
    const readRun = () => database.orm.em.fork().findOneOrFail(SyncRun, { id: runId });
    await expect.poll(async () => (await readRun()).status).toMatch(/^(succeeded|failed)$/);
    const run = await readRun();
    expect({ status: run.status, error: run.error }).toEqual({ status: 'succeeded', error: null });
    expect(run.rowsDone).toBeGreaterThan(0);
  });
});
