// Benchmark: the quality of anomaly detection (README, "Anomaly insights"). A demo store (the
// project's demo generator and ingest, 14 months ending NOW so that last year's Black Friday is in
// the data) in a fresh embedded PostgreSQL under DATA_DIR (default /tmp/i18-anomalies-bench/data,
// thrown away first) or DATABASE_URL; its daily figures read from the rollups as the job reads them;
// detection run day by day over every day with a full baseline: the alerts on the clean data are
// the false alarms (per store-month; Black Friday / Cyber Monday ± 3 days shown apart), then known
// anomalies injected into copies of the figures (PER_KIND of each kind, default 8) give the recall.
// `npm run bench:anomalies` (BENCHMARKS.md, "i18-anomalies"). ORDERS (default 40000), NOW (default
// 2026-11-28T12:00:00Z). SAVE_DATA=<file> writes the figures read from the rollups to a file and
// FROM_DATA=<file> evaluates such a file without loading the demo again (for trying settings).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const orders = Number(process.env.ORDERS ?? 40_000);
const perKind = Number(process.env.PER_KIND ?? 8);
const now = new Date(process.env.NOW ?? '2026-11-28T12:00:00Z');
if (process.env.FROM_DATA) {
  const { measureQuality } = await import('../src/server/modules/anomalies/quality.ts');
  const saved = JSON.parse(readFileSync(process.env.FROM_DATA, 'utf8'));
  await report(reviveStoreData(saved.data), saved.to, measureQuality);
  process.exit(0);
}
if (!process.env.DATABASE_URL) {
  process.env.DATA_DIR ??= '/tmp/i18-anomalies-bench/data';
  rmSync(process.env.DATA_DIR, { recursive: true, force: true });
}
const { loadConfig } = await import('../src/server/config.ts');
const { openDatabase } = await import('../src/server/database/database.ts');
const { adminCaller } = await import('../src/scripts/admin-commands.ts');
const { sqlRunner } = await import('../src/server/modules/commerce/raw-sql.ts');
const { loadDemoData } = await import('../src/server/modules/demo/demo.service.ts');
const { loadStoreData, newestSettledDay } = await import('../src/server/modules/anomalies/anomalies.service.ts');
const { measureQuality } = await import('../src/server/modules/anomalies/quality.ts');
const { addDays } = await import('../src/shared/date-ranges.ts');

function load() {
  return os.loadavg().map((value) => value.toFixed(2)).join(' ');
}
console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${load()}, Node ${process.version}, ${new Date().toISOString()}`);
const database = await openDatabase(loadConfig());
try {
  const em = database.orm.em.fork();
  const admin = await adminCaller(em);
  await admin.createUser({ username: 'anomalies', email: 'anomalies@example.com', password: 'anomalies-password-123', isAdmin: false });
  const [owner] = await sqlRunner(em).rows<{ id: number }>(`select id from users where username = 'anomalies'`);
  const [store] = await sqlRunner(em).rows<{ id: number; name: string; currency: string; timezone: string }>(
    `insert into stores (owner_id, name, currency, timezone, created_at, updated_at) values ($1, 'Anomaly bench', 'GBP', 'Europe/London', now(), now()) returning id, name, currency, timezone`,
    [owner!.id],
  );
  let started = performance.now();
  const demo = await loadDemoData(em.fork(), store!, { months: 14, orders, now, seed: 42 });
  console.log(`Demo store: ${demo.orders.toLocaleString('en')} orders over 14 months to ${now.toISOString()} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const to = (await newestSettledDay(em.fork(), store!, now))!;
  started = performance.now();
  const data = await loadStoreData(em.fork(), store!, addDays(to, -430), to);
  console.log(`Read from the rollups: ${data.store.size} days, ${data.channels.size} channels, ${data.campaigns.size} campaigns, pixel purchases ${data.pixelPurchases ? 'yes' : 'no'} (${(performance.now() - started).toFixed(0)} ms)`);
  if (process.env.SAVE_DATA) writeFileSync(process.env.SAVE_DATA, JSON.stringify({ to, data: plainStoreData(data) }));
  await report(data, to, measureQuality);
} finally {
  await database.close();
}

type StoreData = import('../src/server/modules/anomalies/detect.ts').StoreData;

function plainStoreData(data: StoreData) {
  return { ...data, store: [...data.store], channels: [...data.channels].map(([key, days]) => [key, [...days]]), campaigns: [...data.campaigns].map(([key, campaign]) => [key, { ...campaign, days: [...campaign.days] }]), pixelPurchases: data.pixelPurchases ? [...data.pixelPurchases] : null };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function reviveStoreData(saved: any): StoreData {
  return {
    storeName: saved.storeName, store: new Map(saved.store), channels: new Map(saved.channels.map(([key, days]: [string, []]) => [key, new Map(days)])),
    campaigns: new Map(saved.campaigns.map(([key, campaign]: [string, { days: [] }]) => [key, { ...campaign, days: new Map(campaign.days) }])),
    pixelPurchases: saved.pixelPurchases ? new Map(saved.pixelPurchases) : null,
  };
}

async function report(data: StoreData, to: string, measureQuality: typeof import('../src/server/modules/anomalies/quality.ts').measureQuality): Promise<void> {
  const started = performance.now();
  const report = measureQuality(data, to, perKind);
  const seconds = (performance.now() - started) / 1000;
  console.log(`Evaluated ${report.from} to ${report.to} (${report.storeMonths.toFixed(1)} store-months) in ${seconds.toFixed(1)} s, load average ${load()}`);
  console.log(`False alarms on the clean data: ${report.cleanAlerts.length} = ${report.falseAlarmsPerStoreMonth.toFixed(2)} per store-month (goal <= 1)`);
  for (const alert of report.cleanAlerts) console.log(`  ${alert.day} ${alert.metric} ${alert.scope.level}:${alert.scope.label} value ${alert.value.toFixed(1)} expected ${alert.expected.toFixed(1)} z ${alert.robustZ.toFixed(1)} ${alert.severity}`);
  console.log(`Black Friday / Cyber Monday ± 3 days: ${report.eventDaysJudged} days judged, ${report.eventDayAlerts.length} alerts`);
  for (const [kind, entry] of Object.entries(report.recallByKind)) console.log(`  ${kind.padEnd(28)} ${entry.detected}/${entry.injected}`);
  for (const { injection, detected } of report.injected) if (!detected) console.log(`  missed: ${injection.kind} ${injection.scopeKey} ${injection.days[0]}`);
  console.log(`Recall of injected anomalies: ${(report.recall * 100).toFixed(1)} % (goal >= 90 %)`);
}
