import { describe, expect, it } from 'vitest';
import { blackFriday, demoOrderBatches, demoPlan, REPEAT_PROCESS } from './generator.ts';

// The demo's returning customers, checked the way a data scientist would look at a real shop's
// order history before fitting a buy-till-you-die model to it (README, "Demo data"). The bounds
// fail on the generator before issue 18 (a geometric 0..n repeats at 5 + Exp(38 / 70) day gaps):
// it gave 59 % one-time buyers, repeat counts under-dispersed (variance/mean 0.6, at most 8),
// gaps from 4.3 days with a coefficient of variation of 0.94, and 93 % of early repeat buyers silent
// at the end (everyone stopped).

const DAY_MS = 86_400_000;
const NOW = new Date('2026-03-18T15:20:00Z');

/** Order times (days) per customer of a two-year demo store, in the order they were placed. */
function history(seed: number) {
  const plan = demoPlan({ currency: 'GBP', timezone: 'Europe/London' }, { now: NOW, months: 24, orders: 20_000, seed });
  const byCustomer = new Map<string, number[]>();
  for (const batch of demoOrderBatches(plan)) {
    for (const order of batch.orders) {
      if (!order.customer) continue;
      const time = Date.parse(String(order.placedAt)) / DAY_MS;
      const times = byCustomer.get(order.customer.externalId);
      if (times) times.push(time);
      else byCustomer.set(order.customer.externalId, [time]);
    }
  }
  return { start: Date.parse(`${plan.firstOrderDay}T00:00:00Z`) / DAY_MS, end: NOW.getTime() / DAY_MS, customers: [...byCustomer.values()] };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const variance = (values: number[]) => {
  const m = mean(values);
  return mean(values.map((value) => (value - m) ** 2));
};

describe('the demo returning-customer process', () => {
  const { start, end, customers } = history(42);
  // Customers whose first order leaves a whole year to watch.
  const watched = customers.filter((times) => times[0]! <= end - 365);
  const repeatsInFirstYear = watched.map((times) => times.filter((time) => time < times[0]! + 365).length - 1);

  it('has about two thirds one-time buyers in their first year, as e-commerce shops do', () => {
    expect(watched.length).toBeGreaterThan(3_000);
    const oneTime = repeatsInFirstYear.filter((count) => count === 0).length / watched.length;
    expect(oneTime).toBeGreaterThan(0.6);
    expect(oneTime).toBeLessThan(0.75);
  });

  it('has heavy-tailed repeat counts: over-dispersed, with a few customers buying very often', () => {
    const repeaters = repeatsInFirstYear.filter((count) => count > 0);
    expect(variance(repeaters) / mean(repeaters)).toBeGreaterThan(1.5);
    expect(repeatsInFirstYear.filter((count) => count >= 8).length / watched.length).toBeGreaterThan(0.01);
    expect(Math.max(...repeatsInFirstYear)).toBeGreaterThanOrEqual(12);
  });

  it('spaces purchases at least a few days apart, with gaps as irregular as a mix of exponentials', () => {
    const gaps = customers.flatMap((times) => times.slice(1).map((time, index) => time - times[index]!));
    expect(gaps.length).toBeGreaterThan(5_000);
    expect(Math.min(...gaps)).toBeGreaterThan(REPEAT_PROCESS.minGapDays - 1);
    const sorted = [...gaps].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(median).toBeGreaterThan(20);
    expect(median).toBeLessThan(90);
    expect(Math.sqrt(variance(gaps)) / mean(gaps)).toBeGreaterThan(1.05);
  });

  it('loses some customers for good and keeps others: of repeat buyers in the first half, about half never buy in the last third', () => {
    const span = end - start;
    const early = customers.filter((times) => times.filter((time) => time < start + span / 2).length >= 2);
    expect(early.length).toBeGreaterThan(500);
    const silent = early.filter((times) => !times.some((time) => time >= end - span / 3)).length / early.length;
    expect(silent).toBeGreaterThan(0.35);
    expect(silent).toBeLessThan(0.75);
  });

  it('brings returning customers back when shoppers come: on Black Friday, 2-4 times as many repeat orders as on an October day', () => {
    const repeatDays = customers.flatMap((times) => times.slice(1)).map((time) => new Date(time * DAY_MS).toISOString().slice(0, 10));
    const blackFridays = repeatDays.filter((day) => day === blackFriday(2024) || day === blackFriday(2025)).length / 2;
    const octoberDays = repeatDays.filter((day) => day.slice(5, 7) === '10').length / 62;
    expect(blackFridays / octoberDays).toBeGreaterThan(2);
    expect(blackFridays / octoberDays).toBeLessThan(4.5);
  });
});
