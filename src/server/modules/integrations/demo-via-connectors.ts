import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startKlaviyoFake } from '../../../../test/fakes/klaviyo.ts';
import { startMetaAdsFake } from '../../../../test/fakes/metaads.ts';
import { startShopifyFake } from '../../../../test/fakes/shopify.ts';
import { PLATFORM_NAMES, type PlatformKey } from '../../../shared/platforms.ts';
import { loadConfig } from '../../config.ts';
import { allowOutboundHosts } from '../../outbound/outbound-http.ts';
import { openDatabase } from '../../database/database.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { createStore } from '../stores/stores.service.ts';
import { Store, type StoreEntity } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';
import { SyncRun } from './integration.entities.ts';
import { integrationsSettingsFrom, type IntegrationsSettings } from './integrations-runtime.ts';
import { completeOAuth, connectWithCredentials, listConnectionAccounts, setChosenAccounts, startOAuth } from './integrations.service.ts';
import { disconnectConnection, runSync } from './sync-runner.ts';

// `npm run demo -- --via-connectors`: the Shopify, Meta Ads and Klaviyo fakes on loopback ports,
// connected to a store the way a user connects them (OAuth through each fake's consent page, the
// Klaviyo key through the form's procedure), then their backfills through the real sync runner.

const DAY_MS = 86_400_000;
export const DEMO_FAKES_STOPPED_REASON = 'Demo data: the fake platform stopped with the demo command. Connect the real platform to keep syncing.';
const DEMO_STORE_NAME = 'Demo Store (via connectors)';

export interface ViaConnectorsOptions {
  /** The store to fill; else a new store of `user` (default "demo", created when missing). */
  storeId?: number;
  user?: string;
  orders?: number;
  seed?: number;
}

async function targetStore(em: EntityManager, options: ViaConnectorsOptions, log: (line: string) => void): Promise<{ store: StoreEntity; userId: number }> {
  if (options.storeId !== undefined) {
    const store = await em.findOne(Store, { id: options.storeId });
    if (!store) throw new Error(`No store with id ${options.storeId}`);
    return { store, userId: store.owner.id };
  }
  const username = options.user ?? 'demo';
  let user = await em.findOne(User, { username });
  if (!user && options.user === undefined) {
    const { adminCaller } = await import('../../../scripts/admin-commands.ts');
    const password = randomBytes(12).toString('base64url');
    const admin = await adminCaller(em);
    await admin.createUser({ username, email: `${username}@example.com`, password, isAdmin: false });
    await admin.grantPlan({ username, tier: 'business', days: 365 });
    log(`Created user ${username} with the business plan; password: ${password}`);
    user = await em.findOneOrFail(User, { username });
  }
  if (!user) throw new Error(`No user named ${username}`);
  const store = await createStore(em, user, DEMO_STORE_NAME);
  log(`Created store "${DEMO_STORE_NAME}" (id ${store.id}) for ${username}`);
  return { store, userId: user.id };
}

/** Follows a fake consent page's "Allow" link: the query the platform sends back to our callback. */
export async function allowOnConsentPage(authorizeUrl: string): Promise<Record<string, string>> {
  // Plain fetch, not the outbound module: this plays the user's browser on a fake the demo (or a test)
  // started itself; no server-side request to a user-influenced address.
  const html = await (await fetch(authorizeUrl)).text();
  const href = /id="allow"[^>]*href="([^"]+)"/.exec(html)?.[1];
  if (!href) throw new Error(`No Allow button on the consent page ${authorizeUrl}`);
  const unescaped = href.replace(/&(amp|#38);/g, '&').replace(/&(quot|#34);/g, '"').replace(/&(lt|#60);/g, '<').replace(/&(gt|#62);/g, '>');
  const callback = new URL(unescaped);
  return Object.fromEntries(callback.searchParams);
}

export async function loadDemoViaConnectors(em: EntityManager, options: ViaConnectorsOptions = {}, log: (line: string) => void = console.log): Promise<string> {
  const started = performance.now();
  const { store, userId } = await targetStore(em, options, log);
  const now = Date.now();
  const shopify = await startShopifyFake({ seed: options.seed ?? 42, orders: options.orders ?? 3000, products: 40, from: new Date(now - 360 * DAY_MS), to: new Date(now - 60_000), rateLimit: false });
  const meta = await startMetaAdsFake({ seed: options.seed ?? 42, campaigns: 6 });
  const klaviyo = await startKlaviyoFake({ seed: options.seed ?? 42, campaigns: 80, start: new Date(now - 360 * DAY_MS).toISOString().slice(0, 10), days: 360 });
  try {
    const config = loadConfig();
    // The fakes listen on loopback ports (their API, Shopify's bulk files): reachable by this command's
    // connectors only (production refuses unless OUTBOUND_ALLOW_HOSTS names 127.0.0.1).
    allowOutboundHosts('127.0.0.1');
    const settings: IntegrationsSettings = integrationsSettingsFrom({
      ...config,
      platforms: {
        ...config.platforms,
        shopify: { baseUrl: shopify.url, authorizeUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret },
        metaads: { baseUrl: meta.url, authorizeUrl: meta.url, clientId: meta.auth.clientId, clientSecret: meta.auth.clientSecret },
        klaviyo: { baseUrl: klaviyo.apiUrl },
      },
    });
    const user = await em.findOneOrFail(User, { id: userId });
    const origin = config.publicUrl ?? `http://localhost:${config.port}`;

    for (const platform of ['shopify', 'metaads'] as const) {
      // The flow starts and ends in this process: one made-up session stands for the browser's.
      const sessionKey = randomBytes(32).toString('hex');
      const authorizeUrl = await startOAuth(em, { store, user, origin, platform, shop: platform === 'shopify' ? shopify.shop : undefined, sessionKey }, settings);
      await completeOAuth(em, platform, await allowOnConsentPage(authorizeUrl), { sessionUserId: userId, sessionKey, settings });
      // The Meta login reaches two ad accounts (USD and EUR): the demo syncs both, as an owner choosing them would.
      const waiting = await em.findOne(PlatformConnection, { store: store.id, platform, status: 'choose_accounts' });
      if (waiting) {
        const { accounts } = await listConnectionAccounts(em, store, platform, settings);
        await setChosenAccounts(em, store, platform, accounts.filter((account) => !account.isManager).map((account) => account.accountId), settings);
      }
      log(`Connected ${PLATFORM_NAMES[platform]} through its consent page`);
    }
    await connectWithCredentials(em, store, 'klaviyo', { apiKey: klaviyo.options.apiKey }, settings);
    log('Connected Klaviyo with its API key');

    const summary: string[] = [];
    for (const platform of ['shopify', 'metaads', 'klaviyo'] as PlatformKey[]) {
      const connection = await em.findOneOrFail(PlatformConnection, { store: store.id, platform });
      const run = await em.findOneOrFail(SyncRun, { connection: connection.id, status: 'queued' }, { orderBy: { id: 'desc' } });
      const runStarted = performance.now();
      const status = await runSync(em.fork(), run.id, { settings, log });
      const finished = await em.fork().findOneOrFail(SyncRun, { id: run.id });
      if (status !== 'succeeded') throw new Error(`${PLATFORM_NAMES[platform]} backfill ${status}: ${finished.error ?? ''}`);
      const line = `${PLATFORM_NAMES[platform]}: ${finished.rowsDone.toLocaleString('en')} rows in ${((performance.now() - runStarted) / 1000).toFixed(1)} s`;
      log(`  ${line}`);
      summary.push(line);
      // The fakes end with this command; the integrations screen says so instead of failing health checks.
      await disconnectConnection(em, await em.findOneOrFail(PlatformConnection, { id: connection.id }, { refresh: true }), DEMO_FAKES_STOPPED_REASON);
    }
    return `Synced into store ${store.id} ("${store.name}") through the connectors in ${((performance.now() - started) / 1000).toFixed(1)} s: ${summary.join('; ')}`;
  } finally {
    await Promise.all([shopify.close(), meta.close(), klaviyo.close()]);
  }
}

/** The command line of `npm run demo -- --via-connectors [--store ID] [--user U] [--orders N] [--seed S]`; returns the exit code. */
export async function demoViaConnectorsCommand(argv: string[]): Promise<number> {
  let options: ViaConnectorsOptions;
  try {
    const { values } = parseArgs({
      args: argv.filter((argument) => argument !== '--via-connectors'),
      options: { store: { type: 'string' }, user: { type: 'string' }, orders: { type: 'string' }, seed: { type: 'string' } },
      strict: true,
    });
    const number = (value: string | undefined, name: string) => {
      if (value === undefined) return undefined;
      if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number`);
      return Number(value);
    };
    options = { storeId: number(values.store, 'store'), user: values.user, orders: number(values.orders, 'orders'), seed: number(values.seed, 'seed') };
  } catch (error) {
    console.error(`${(error as Error).message}\n\nUsage: npm run demo -- --via-connectors [--store ID] [--user U] [--orders N] [--seed S]`);
    return 1;
  }
  const database = await openDatabase(loadConfig());
  try {
    console.log(await loadDemoViaConnectors(database.orm.em.fork(), options));
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  } finally {
    await database.close();
  }
}
