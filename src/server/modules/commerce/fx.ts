import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import { addDays, daysBetween, type DayRange } from '../../../shared/date-ranges.ts';
import { sqlRunner } from './raw-sql.ts';

/** Rates are quoted per 1 EUR (the ECB's convention); EUR itself is always 1 and has no rows. */
export const FX_BASE_CURRENCY = 'EUR';

/**
 * The synthetic seed: a plausible, deterministic EUR rate per currency with a slow and a faster
 * smooth swing. Real rates (e.g. the ECB's daily reference rates) can be loaded over them at any
 * time with `upsertFxRates`; the seed never overwrites a row.
 */
const SYNTHETIC_RATES = {
  USD: { base: 1.085, slow: 0.035, fast: 0.008, phase: 0.4 },
  GBP: { base: 0.855, slow: 0.018, fast: 0.005, phase: 1.9 },
  CAD: { base: 1.475, slow: 0.03, fast: 0.007, phase: 3.1 },
  AUD: { base: 1.64, slow: 0.04, fast: 0.01, phase: 4.6 },
} as const;

export const SEEDED_CURRENCIES = Object.keys(SYNTHETIC_RATES) as (keyof typeof SYNTHETIC_RATES)[];

/** How far back the seed reaches from today (the demo needs 12 months, the benchmarks 2 years). */
export const FX_SEED_YEARS = 3;

const EPOCH_DAY = '2000-01-01';

/** The synthetic rate of `currency` per EUR on `day` (a pure function of the date). */
export function syntheticRate(currency: keyof typeof SYNTHETIC_RATES, day: string): number {
  const { base, slow, fast, phase } = SYNTHETIC_RATES[currency];
  const t = daysBetween(EPOCH_DAY, day);
  const swing = slow * Math.sin((2 * Math.PI * t) / 411 + phase) + fast * Math.sin((2 * Math.PI * t) / 47 + 2 * phase);
  return Number((base * (1 + swing)).toFixed(6));
}

export interface FxRateRow {
  day: string;
  currency: string;
  rate: number;
  source?: string;
}

/** Writes rates, replacing what is there for the same (day, currency); for loading real rates. */
export async function upsertFxRates(em: EntityManager, rows: FxRateRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sqlRunner(em).run(
    `insert into fx_rates (day, currency, rate, source)
     select x.day, x.currency, x.rate, coalesce(x.source, 'manual')
     from jsonb_to_recordset($1::jsonb) as x(day date, currency text, rate numeric, source text)
     on conflict (day, currency) do update set rate = excluded.rate, source = excluded.source`,
    [JSON.stringify(rows)],
  );
}

/**
 * Adds the synthetic weekday rates (like the ECB, none on Saturdays and Sundays) from FX_SEED_YEARS
 * ago up to `today` that are missing, before a currency's first ECB rate; existing rows, synthetic or
 * real, are left alone. Runs at every
 * start, so a long-running installation keeps a rate for recent days. Returns the rows added.
 */
export async function seedFxRates(em: EntityManager, today: string = new Date().toISOString().slice(0, 10)): Promise<number> {
  const start = addDays(today, -FX_SEED_YEARS * 366);
  const rows: FxRateRow[] = [];
  for (let day = start; day <= today; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    for (const currency of SEEDED_CURRENCIES) rows.push({ day, currency, rate: syntheticRate(currency, day), source: 'synthetic' });
  }
  // Never from a currency's first ECB rate on: those days use the ECB's rates (exchange-rates/ecb-rates.ts).
  return sqlRunner(em).run(
    `with first_ecb as (select currency, min(day) as day from fx_rates where source = 'ecb' group by currency)
     insert into fx_rates (day, currency, rate, source)
     select x.day, x.currency, x.rate, x.source
     from jsonb_to_recordset($1::jsonb) as x(day date, currency text, rate numeric, source text)
     left join first_ecb on first_ecb.currency = x.currency
     where first_ecb.day is null or x.day < first_ecb.day
     on conflict (day, currency) do nothing`,
    [JSON.stringify(rows)],
  );
}

export class FxRateMissingError extends AppError {
  constructor(currency: string, day: string) {
    super('BAD_REQUEST', `No exchange rate for ${currency} on or before ${day}: load rates into fx_rates (README, "Exchange rates")`);
  }
}

/** Rates of some currencies over a span of days, in memory; each lookup takes the latest rate on or before the day. */
export class FxRates {
  readonly #series: Map<string, { days: string[]; rates: number[] }>;

  constructor(rows: FxRateRow[]) {
    this.#series = new Map();
    const sorted = [...rows].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
    for (const row of sorted) {
      let series = this.#series.get(row.currency);
      if (!series) this.#series.set(row.currency, (series = { days: [], rates: [] }));
      series.days.push(row.day);
      series.rates.push(row.rate);
    }
  }

  /** Units of `currency` per 1 EUR on `day`. */
  rate(currency: string, day: string): number {
    if (currency === FX_BASE_CURRENCY) return 1;
    const series = this.#series.get(currency);
    if (series) {
      // The last index whose day is <= day.
      let low = 0;
      let high = series.days.length - 1;
      let found = -1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        if (series.days[middle]! <= day) {
          found = middle;
          low = middle + 1;
        } else {
          high = middle - 1;
        }
      }
      if (found >= 0) return series.rates[found]!;
    }
    throw new FxRateMissingError(currency, day);
  }

  /** How many units of `to` one unit of `from` buys on `day` (rate(to) / rate(from)). */
  factor(from: string, to: string, day: string): number {
    if (from === to) return 1;
    return this.rate(to, day) / this.rate(from, day);
  }

  /** Converted amount without rounding, for sums that are rounded once at the end. */
  convertExact(amountMinor: number, from: string, to: string, day: string): number {
    return amountMinor * this.factor(from, to, day);
  }

  /** Converted amount in whole minor units (half away from zero). All five currencies have 2 decimals. */
  convert(amountMinor: number, from: string, to: string, day: string): number {
    return roundMinor(this.convertExact(amountMinor, from, to, day));
  }
}

export function roundMinor(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** Loads what converting these currencies between `from` and `to` needs: the span plus the latest rate before it. */
export async function loadFxRates(em: EntityManager, currencies: Iterable<string>, from: string, to: string): Promise<FxRates> {
  const wanted = [...new Set(currencies)].filter((currency) => currency !== FX_BASE_CURRENCY);
  if (wanted.length === 0) return new FxRates([]);
  const rows = await sqlRunner(em).rows<{ currency: string; day: string; rate: number }>(
    `select currency, to_char(day, 'YYYY-MM-DD') as day, rate::float8 as rate
       from fx_rates where currency = any($1::text[]) and day between $2::date and $3::date
     union all
     (select distinct on (currency) currency, to_char(day, 'YYYY-MM-DD'), rate::float8
        from fx_rates where currency = any($1::text[]) and day < $2::date
       order by currency, day desc)`,
    [wanted, from, to],
  );
  return new FxRates(rows.map((row) => ({ ...row, rate: Number(row.rate) })));
}

/**
 * `read`'s rows with the FX rates that convert them over `span`, in one round trip instead of two:
 * the rates of the expected currencies (the display currency and the store's; EUR needs none) load
 * alongside the rows, and only rows in yet another currency (rare: orders or an ad account in a
 * second currency) load the rates again.
 */
export async function withFxRates<T>(
  em: EntityManager,
  expected: Iterable<string>,
  span: DayRange,
  read: Promise<T>,
  currenciesOf: (result: T) => Iterable<string>,
): Promise<[T, FxRates]> {
  const expectedCurrencies = new Set([...expected, FX_BASE_CURRENCY]);
  const [result, expectedFx] = await Promise.all([read, loadFxRates(em, expectedCurrencies, span.from, span.to)]);
  const currencies = new Set([...expectedCurrencies, ...currenciesOf(result)]);
  return [result, currencies.size === expectedCurrencies.size ? expectedFx : await loadFxRates(em, currencies, span.from, span.to)];
}

/**
 * The day a row is converted at, as SQL for grouping: its own day, except that rows already in the
 * display currency need no rate and all fall on `firstDay` (one group per product or campaign).
 */
export function conversionDaySql(currencyColumn: string, dayColumn: string, displayCurrency: string, firstDay: string): string {
  return `(case when ${currencyColumn} = ${displayCurrency} then ${firstDay}::date else ${dayColumn} end)`;
}

/** Converts one amount at the rate of its own day: convert(1000, 'USD', 'GBP', '2026-03-01'). */
export async function convert(em: EntityManager, amountMinor: number, from: string, to: string, day: string): Promise<number> {
  if (from === to) return amountMinor;
  return (await loadFxRates(em, [from, to], day, day)).convert(amountMinor, from, to, day);
}

/**
 * SQL for the rate of a currency column on a day column (latest on or before; null when none).
 * Used where conversion must happen inside a set-based statement (customers' total spent, KPIs).
 * The currency is compared as char(3), the column's type, so that it is part of the index condition
 * (not a filter on every row walked), and the order matches both indexes of fx_rates.
 */
export function rateSql(currencyExpression: string, dayExpression: string, sameDayRate?: string): string {
  const latest = `(select f.rate from fx_rates f where f.currency = (${currencyExpression})::bpchar and f.day <= ${dayExpression} order by f.currency desc, f.day desc limit 1)`;
  // `sameDayRate`: the day's own rate, joined by the caller (a hash join is far cheaper than a
  // lookup per row); the lookup then runs only for days without one (weekends, holidays).
  return `(case when ${currencyExpression} = '${FX_BASE_CURRENCY}' then 1::numeric else ${sameDayRate ? `coalesce(${sameDayRate}, ${latest})` : latest} end)`;
}

/** Throws FxRateMissingError unless every currency has a rate on or before `day` (EUR needs none). */
export async function assertFxCoverage(em: EntityManager, currencies: Iterable<string>, day: string): Promise<void> {
  const wanted = [...new Set(currencies)].filter((currency) => currency !== FX_BASE_CURRENCY);
  if (wanted.length === 0) return;
  const rows = await sqlRunner(em).rows<{ currency: string }>(
    `select distinct currency from fx_rates where currency = any($1::text[]) and day <= $2::date`,
    [wanted, day],
  );
  const covered = new Set(rows.map((row) => row.currency));
  const missing = wanted.find((currency) => !covered.has(currency));
  if (missing) throw new FxRateMissingError(missing, day);
}
