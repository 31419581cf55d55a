// Benchmark: how well the loyalty model predicts, and how fast it runs (README, "Customer loyalty";
// BENCHMARKS.md, "i18-loyalty-core"). On the store with the most orders in the database (or STORE_ID):
// cut-off = 90 days before the store's last order; the BG/NBD model is fitted on the orders before
// it and predicts each customer's repeat order days in the next 90; printed: calibration (predicted
// vs actual, total and by decile of predicted), the MAE of the model against the naive baseline
// (x / T × 90), as mean forecasts and as median forecasts (goal: ≥ 10 % lower, judged as stored per store: on the medians), the Gamma-Gamma independence check, and the time to fit and
// score 100,000 customers (goal < 30 s; the store's histories resampled up to 100,000 when it has
// fewer), plus the whole job on the store. Uses DATABASE_URL or the embedded PostgreSQL under DATA_DIR.
// The model's predictions are × the store's seasonal index over the 90 days (from the orders before
// the cut-off; README); the error is also shown without it, by customer group (one-time buyers,
// repeat buyers, repeat orders × days since the last), as a squared error, and against a forecast of
// 0 for everyone (absolute error favours whatever predicts the most common count, 0). EARLIER
// (default 91,182,273) repeats the holdout at cut-offs that many days earlier, for other seasons.
// `DATA_DIR=/tmp/h18-loyalty npm run bench:loyalty`
import os from 'node:os';
import { addDays } from '../src/shared/date-ranges.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/database/database.ts';
import { sqlRunner } from '../src/server/modules/commerce/raw-sql.ts';
import { recomputeLoyalty } from '../src/server/modules/loyalty/loyalty-job.ts';
import { fitStoreModel, holdout, scoreCustomers, type CustomerHistory } from '../src/server/modules/loyalty/scoring.ts';
import { customerHistories, dayNumber, lastOrderDay, storeSeasonalIndex } from '../src/server/modules/loyalty/summaries.ts';

const HORIZON = 90;
const TARGET_CUSTOMERS = Number(process.env.CUSTOMERS ?? 100_000);

const database = await openDatabase(loadConfig());
try {
  const em = () => database.orm.em.fork();
  const [store] = await sqlRunner(em()).rows<{ id: number; currency: string; name: string; orders: number }>(
    process.env.STORE_ID
      ? `select s.id, s.currency, s.name, (select count(*)::int from orders o where o.store_id = s.id) as orders from stores s where s.id = $1`
      : `select s.id, s.currency, s.name, count(o.id)::int as orders from stores s join orders o on o.store_id = s.id group by s.id order by orders desc limit 1`,
    process.env.STORE_ID ? [Number(process.env.STORE_ID)] : [],
  );
  if (!store) throw new Error('No store with orders: run `npm run demo` first');
  const load = () => os.loadavg().map((value) => value.toFixed(2)).join(' ');
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${load()}, ${new Date().toISOString()}`);
  const last = (await lastOrderDay(em(), store.id))!;
  const cut = addDays(last, -HORIZON);
  const [span] = await sqlRunner(em()).rows<{ first: string; customers: number }>(
    `select to_char(min(placed_day), 'YYYY-MM-DD') as first, count(distinct customer_id)::int as customers from orders where store_id = $1`, [store.id]);
  console.log(`Store ${store.id} "${store.name}": ${store.orders.toLocaleString('en')} orders, ${span!.customers.toLocaleString('en')} customers, ${span!.first} to ${last}; cut-off ${cut}`);

  // ---- accuracy: fit before the cut-off, predict the 90 days after it ----
  let started = performance.now();
  const { histories, laterDays } = await customerHistories(em(), store, cut, HORIZON);
  const readMs = performance.now() - started;
  const cutDay = dayNumber(cut);
  started = performance.now();
  const model = fitStoreModel(histories, cutDay);
  const fitMs = performance.now() - started;
  console.log(`Calibration period: ${histories.length.toLocaleString('en')} customers (read in ${(readMs / 1000).toFixed(2)} s); model ${model.model}${model.fallbackReason ? ` (${model.fallbackReason})` : ''}, fitted in ${(fitMs / 1000).toFixed(2)} s`);
  if (model.bgnbd) console.log(`  BG/NBD (days): r ${model.bgnbd.r.toFixed(4)}, alpha ${model.bgnbd.alpha.toFixed(3)}, a ${model.bgnbd.a.toFixed(4)}, b ${model.bgnbd.b.toFixed(4)}`);
  if (model.gammaGamma) console.log(`  Gamma-Gamma (minor units): p ${model.gammaGamma.p.toFixed(3)}, q ${model.gammaGamma.q.toFixed(3)}, gamma ${model.gammaGamma.gamma.toFixed(1)}`);
  const index = await storeSeasonalIndex(em(), store.id, cut, HORIZON);
  console.log(`Seasonal index of the ${HORIZON} days after the cut-off (from the store's orders up to it): ${index === null ? 'none (history too short): × 1' : index.toFixed(3)}`);
  const result = holdout(histories, laterDays, cutDay, HORIZON, index);
  const plain = holdout(histories, laterDays, cutDay, HORIZON);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  if (!result || !plain) {
    console.log('The model cannot be fitted on this store: no holdout.');
  } else {
    console.log(`Repeat order days in the ${HORIZON} days after the cut-off: predicted ${sum(result.predicted).toFixed(0)} (without the seasonal index ${sum(plain.predicted).toFixed(0)}), naive baseline ${sum(result.baseline).toFixed(0)}, actual ${sum(result.actual)}`);
    const order = result.predicted.map((_, i) => i).sort((a, b) => result.predicted[a]! - result.predicted[b]!);
    console.log('Decile of predicted   customers   mean predicted   mean actual   mean naive');
    for (let d = 0; d < 10; d++) {
      const part = order.slice(Math.floor((d * order.length) / 10), Math.floor(((d + 1) * order.length) / 10));
      const mean = (xs: number[]) => sum(part.map((i) => xs[i]!)) / Math.max(1, part.length);
      console.log(`  ${String(d + 1).padStart(2)}                  ${String(part.length).padStart(9)}   ${mean(result.predicted).toFixed(4).padStart(14)}   ${mean(result.actual).toFixed(4).padStart(11)}   ${mean(result.baseline).toFixed(4).padStart(10)}`);
    }
    console.log(`MAE per customer, mean forecasts: model ${result.modelMae.toFixed(4)} (without the seasonal index ${plain.modelMae.toFixed(4)}), naive baseline ${result.baselineMae.toFixed(4)}: ${((1 - result.modelMae / result.baselineMae) * 100).toFixed(1)} % lower`);
    console.log(`  A forecast of 0 for every customer: MAE ${(sum(result.actual) / result.customers).toFixed(4)}, ${((1 - sum(result.actual) / result.customers / result.baselineMae) * 100).toFixed(1)} % below the naive baseline`);
    const [medians, naiveMedians] = [result.predictedMedian, result.baselineMedian];
    const maeOf = (xs: number[]) => sum(xs.map((x, i) => Math.abs(x - result.actual[i]!))) / xs.length;
    console.log(`  Median forecasts (least expected absolute error): model ${maeOf(medians).toFixed(4)} (${medians.filter((m) => m > 0).length.toLocaleString('en')} customers above 0), naive rate's Poisson median ${maeOf(naiveMedians).toFixed(4)} (${naiveMedians.filter((m) => m > 0).length.toLocaleString('en')} above 0): ${((1 - maeOf(medians) / maeOf(naiveMedians)) * 100).toFixed(1)} % lower; vs the naive baseline's mean forecast ${((1 - maeOf(medians) / result.baselineMae) * 100).toFixed(1)} % lower`);
    const improvement = 1 - result.modelMedianMae / result.baselineMedianMae;
    console.log(`Holdout as stored and shown per store (median forecasts): model ${result.modelMedianMae.toFixed(4)}, naive baseline ${result.baselineMedianMae.toFixed(4)}: ${(improvement * 100).toFixed(1)} % lower (goal ≥ 10 %: ${improvement >= 0.1 ? 'met' : 'NOT met'})`);
    console.log('By group         customers  predicted  naive  actual   MAE model  naive  lower    MSE model  naive  lower');
    const group = (name: string, keep: (h: CustomerHistory) => boolean) => {
      const members = histories.map((_, i) => i).filter((i) => keep(histories[i]!));
      if (members.length === 0) return;
      const total = (xs: number[]) => sum(members.map((i) => xs[i]!));
      const mae = (xs: number[]) => sum(members.map((i) => Math.abs(xs[i]! - result.actual[i]!))) / members.length;
      const mse = (xs: number[]) => sum(members.map((i) => (xs[i]! - result.actual[i]!) ** 2)) / members.length;
      const lower = (model: number, naive: number) => `${((1 - model / naive) * 100).toFixed(1)} %`.padStart(8);
      console.log(`  ${name.padEnd(15)}${String(members.length).padStart(8)} ${total(result.predicted).toFixed(0).padStart(9)} ${total(result.baseline).toFixed(0).padStart(6)} ${String(total(result.actual)).padStart(7)}   ${mae(result.predicted).toFixed(4).padStart(9)} ${mae(result.baseline).toFixed(4)} ${lower(mae(result.predicted), mae(result.baseline))}   ${mse(result.predicted).toFixed(4).padStart(9)} ${mse(result.baseline).toFixed(4)} ${lower(mse(result.predicted), mse(result.baseline))}`);
    };
    group('all', () => true);
    group('one-time (x=0)', (h) => h.orderDays === 1);
    group('repeat (x>0)', (h) => h.orderDays > 1);
    for (const [low, high, label] of [[1, 1, 'x=1'], [2, 3, 'x=2-3'], [4, Infinity, 'x>=4']] as const) {
      for (const [from, to] of [[0, 29], [30, 89], [90, 179], [180, Infinity]] as const) {
        group(`${label} last ${from}${to === Infinity ? '+' : `-${to}`}d`, (h) => h.orderDays - 1 >= low && h.orderDays - 1 <= high && cutDay - h.lastDay >= from && cutDay - h.lastDay <= to);
      }
    }
    group('first <30d ago', (h) => cutDay - h.firstDay < 30);
  }

  // The same holdout at earlier cut-offs (other seasons): total calibration and MAE, with and without the index.
  for (const earlier of (process.env.EARLIER ?? '91,182,273').split(',').filter(Boolean).map(Number)) {
    const otherCut = addDays(cut, -earlier);
    const other = await customerHistories(em(), store, otherCut, HORIZON);
    const otherIndex = await storeSeasonalIndex(em(), store.id, otherCut, HORIZON);
    const adjusted = holdout(other.histories, other.laterDays, dayNumber(otherCut), HORIZON, otherIndex);
    const unadjusted = holdout(other.histories, other.laterDays, dayNumber(otherCut), HORIZON);
    if (!adjusted || !unadjusted) continue;
    const repeat = other.histories.map((_, i) => i).filter((i) => other.histories[i]!.orderDays > 1);
    const repeatMae = (xs: number[]) => sum(repeat.map((i) => Math.abs(xs[i]! - adjusted.actual[i]!))) / repeat.length;
    console.log(`Cut-off ${otherCut}: index ${otherIndex === null ? 'none' : otherIndex.toFixed(3)}; predicted ${sum(adjusted.predicted).toFixed(0)} (without index ${sum(unadjusted.predicted).toFixed(0)}), naive ${sum(adjusted.baseline).toFixed(0)}, actual ${sum(adjusted.actual)}; MAE model ${adjusted.modelMae.toFixed(4)} (without index ${unadjusted.modelMae.toFixed(4)}) vs naive ${adjusted.baselineMae.toFixed(4)}: ${((1 - adjusted.modelMae / adjusted.baselineMae) * 100).toFixed(1)} % lower; forecast 0: ${(sum(adjusted.actual) / adjusted.customers).toFixed(4)}; repeat buyers ${repeatMae(adjusted.predicted).toFixed(4)} vs ${repeatMae(adjusted.baseline).toFixed(4)}: ${((1 - repeatMae(adjusted.predicted) / repeatMae(adjusted.baseline)) * 100).toFixed(1)} % lower; median forecasts ${adjusted.modelMedianMae.toFixed(4)} vs ${adjusted.baselineMedianMae.toFixed(4)}: ${((1 - adjusted.modelMedianMae / adjusted.baselineMedianMae) * 100).toFixed(1)} % lower`);
  }
  // Gamma-Gamma assumes spend per order independent of frequency (Hardie's note 025): their correlation among repeat buyers.
  const repeaters = histories.filter((h) => h.orderDays > 1);
  if (repeaters.length > 2) {
    const xs = repeaters.map((h) => h.orderDays - 1);
    const ms = repeaters.map((h) => (h.spentMinor - h.firstDaySpentMinor) / (h.orderDays - 1));
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const [mx, mm] = [mean(xs), mean(ms)];
    const cov = mean(xs.map((x, i) => (x - mx) * (ms[i]! - mm)));
    const sd = (v: number[], m: number) => Math.sqrt(mean(v.map((x) => (x - m) ** 2)));
    console.log(`Gamma-Gamma check: correlation of repeat frequency and mean repeat order value = ${(cov / (sd(xs, mx) * sd(ms, mm))).toFixed(3)} (${repeaters.length.toLocaleString('en')} repeat buyers)`);
  }

  // ---- speed: fit + score 100,000 customers ----
  const all = await customerHistories(em(), store, last);
  const lastDay = dayNumber(last);
  const population: CustomerHistory[] = [];
  // Resampled with replacement (a fixed linear congruential sequence) up to the target, each with its own id.
  let seed = 12345;
  for (let i = 0; i < TARGET_CUSTOMERS; i++) {
    let source: CustomerHistory;
    if (all.histories.length >= TARGET_CUSTOMERS) source = all.histories[i]!;
    else {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      source = all.histories[seed % all.histories.length]!;
    }
    population.push({ ...source, customerId: i + 1 });
  }
  const cpuBefore = process.cpuUsage();
  started = performance.now();
  const fitted = fitStoreModel(population, lastDay);
  const fitted100kMs = performance.now() - started;
  const scores = scoreCustomers(population, lastDay, fitted);
  const total100kMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  console.log(`Fit + score ${population.length.toLocaleString('en')} customers (${all.histories.length >= TARGET_CUSTOMERS ? 'the store\'s' : `resampled from the store's ${all.histories.length.toLocaleString('en')}`}): fit ${(fitted100kMs / 1000).toFixed(2)} s, fit + score ${(total100kMs / 1000).toFixed(2)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s), ${scores.length} scores, model ${fitted.model} (goal < 30 s: ${total100kMs < 30_000 ? 'met' : 'NOT met'}), load average ${load()}`);

  started = performance.now();
  const job = await recomputeLoyalty(em(), store.id);
  console.log(`The loyalty job on the store (read, fit, score, holdout, write in one transaction): ${((performance.now() - started) / 1000).toFixed(2)} s for ${job?.customers.toLocaleString('en')} customers, model ${job?.model}${job?.holdout ? `, stored holdout MAE ${job.holdout.modelMae.toFixed(4)} vs naive ${job.holdout.baselineMae.toFixed(4)}` : ''}`);
} finally {
  await database.close();
}
