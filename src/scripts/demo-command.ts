import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { STORE_HAS_DATA_MESSAGE } from '../shared/demo.ts';
import { loadDemoData, storeHasOrders, type DemoProgress } from '../server/modules/demo/demo.service.ts';
import { DEMO_DEFAULTS, DEMO_MAX_ORDERS, type DemoOptions } from '../server/modules/demo/generator.ts';
import { createStore } from '../server/modules/stores/stores.service.ts';
import { Store } from '../server/modules/stores/store.entity.ts';
import { User } from '../server/modules/users/user.entity.ts';
import { adminCaller, UsageError } from './admin-commands.ts';

export const DEMO_USAGE = `Usage: npm run demo -- [--user U] [--store ID] [--orders N] [--months 12] [--seed 42] [--campaigns 8] [--ad-months M]

Without --user or --store: the user "demo" (created with a business plan and a printed password
when missing) and its store "Demo Store". --user U: that user's active store (or a new "Demo Store").
--orders up to ${DEMO_MAX_ORDERS.toLocaleString('en')}; --campaigns per ad platform; --ad-months of campaign metrics (default --months).`;

const DEMO_USERNAME = 'demo';
const DEMO_STORE_NAME = 'Demo Store';

function wholeNumber(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return number;
}

export function parseDemoArgs(argv: string[]): { user?: string; store?: number; options: DemoOptions } {
  const { values } = parseArgs({
    args: argv,
    options: {
      user: { type: 'string' },
      store: { type: 'string' },
      orders: { type: 'string' },
      months: { type: 'string' },
      seed: { type: 'string' },
      campaigns: { type: 'string' },
      'ad-months': { type: 'string' },
    },
    strict: true,
  });
  return {
    user: values.user,
    store: wholeNumber(values.store, 'store', 1, Number.MAX_SAFE_INTEGER),
    options: {
      orders: wholeNumber(values.orders, 'orders', 1, DEMO_MAX_ORDERS),
      months: wholeNumber(values.months, 'months', 1, 36),
      seed: wholeNumber(values.seed, 'seed', 0, 2 ** 32 - 1),
      campaignsPerPlatform: wholeNumber(values.campaigns, 'campaigns', 1, 500),
      adHistoryMonths: wholeNumber(values['ad-months'], 'ad-months', 1, 36),
    },
  };
}

/** The store to fill: --store, the --user's active store, or the demo user's (created when missing). */
async function targetStore(em: EntityManager, args: { user?: string; store?: number }, log: (line: string) => void) {
  if (args.store !== undefined) {
    const store = await em.findOne(Store, { id: args.store });
    if (!store) throw new UsageError(`No store with id ${args.store}`);
    return store;
  }
  const username = args.user ?? DEMO_USERNAME;
  let user = await em.findOne(User, { username }, { populate: ['activeStore'] });
  if (!user) {
    if (args.user !== undefined) throw new UsageError(`No user named ${username}`);
    const password = randomBytes(12).toString('base64url');
    const admin = await adminCaller(em);
    await admin.createUser({ username, email: `${username}@example.com`, password, isAdmin: false });
    await admin.grantPlan({ username, tier: 'business', days: 365 });
    log(`Created user ${username} with the business plan; password: ${password}`);
    user = await em.findOneOrFail(User, { username }, { populate: ['activeStore'] });
  }
  if (user.activeStore) return user.activeStore;
  const store = await createStore(em, user, DEMO_STORE_NAME);
  log(`Created store "${DEMO_STORE_NAME}" (id ${store.id}) for ${username}`);
  return store;
}

/** `npm run demo`: fills a store with demo data and prints progress; returns the summary line. */
export async function runDemoCommand(args: ReturnType<typeof parseDemoArgs>, em: EntityManager, log: (line: string) => void = console.log): Promise<string> {
  const store = await targetStore(em, args, log);
  if (await storeHasOrders(em, store.id)) throw new UsageError(`${STORE_HAS_DATA_MESSAGE}: store ${store.id} ("${store.name}") has orders; pick an empty one with --store or --user`);
  const options = { ...args.options };
  const orders = options.orders ?? DEMO_DEFAULTS.orders;
  log(`Loading ${orders.toLocaleString('en')} demo orders into store ${store.id} ("${store.name}", ${store.currency}, ${store.timezone})...`);
  let lastPrinted = 0;
  const print = (progress: DemoProgress) => {
    if (progress.phase !== 'done' && progress.milliseconds - lastPrinted < 2_000) return;
    lastPrinted = progress.milliseconds;
    const seconds = progress.milliseconds / 1000;
    const rate = seconds > 0 ? Math.round(progress.orders / seconds) : 0;
    log(`  ${seconds.toFixed(1)} s  ${progress.phase.padEnd(14)} orders ${progress.orders.toLocaleString('en')} (${rate.toLocaleString('en')}/s)  refunds ${progress.refunds.toLocaleString('en')}  ad rows ${progress.adMetricRows.toLocaleString('en')}`);
  };
  const result = await loadDemoData(em, store, options, print);
  const j = result.journeys;
  const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(2)} %` : 'n/a');
  log(
    `Journeys: ${j.visits.toLocaleString('en')} visits (${j.nonBuyerVisitors.toLocaleString('en')} visitors who never buy), ${j.eventsStored.toLocaleString('en')} events stored, ${j.eventsDropped.toLocaleString('en')} dropped; ` +
      `${j.sessions.toLocaleString('en')} sessions, ${j.touchpoints.toLocaleString('en')} touchpoints`,
  );
  log(
    `Purchases matched to orders: ${j.ordersMatched.toLocaleString('en')} of ${j.orders.toLocaleString('en')} orders (${percent(j.ordersMatched, j.orders)}; ${j.phoneOrders.toLocaleString('en')} phone orders without visits); ` +
      `double-counted: ${j.doubleCounted.toLocaleString('en')} (${percent(j.doubleCounted, j.orders)}; ${j.duplicatePurchasesSent.toLocaleString('en')} purchases sent twice, stored once)`,
  );
  return `Loaded ${result.orders.toLocaleString('en')} orders, ${result.refunds.toLocaleString('en')} refunds, ${result.products} products, ${result.adMetricRows.toLocaleString('en')} ad metric rows and ${result.emailMetricRows.toLocaleString('en')} e-mail metric rows into store ${store.id} in ${(result.milliseconds / 1000).toFixed(1)} s (${Math.round(result.orders / (result.milliseconds / 1000)).toLocaleString('en')} orders/s)`;
}
