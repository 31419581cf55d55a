import { describe, expect, it } from 'vitest';
import { clearFxRates, setFxRates } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { convert, FxRates, loadFxRates, SEEDED_CURRENCIES, seedFxRates, syntheticRate, withFxRates } from './fx.ts';
import { sqlRunner } from './raw-sql.ts';

const database = useTestDatabase();

describe('FxRates', () => {
  const rates = new FxRates([
    { day: '2026-03-05', currency: 'USD', rate: 1.1 },
    { day: '2026-03-06', currency: 'USD', rate: 1.2 },
    { day: '2026-03-09', currency: 'USD', rate: 1.25 },
    { day: '2026-03-06', currency: 'GBP', rate: 0.8 },
  ]);

  it('EUR is always 1; other currencies take the latest rate on or before the day', () => {
    expect(rates.rate('EUR', '1999-01-01')).toBe(1);
    expect(rates.rate('USD', '2026-03-06')).toBe(1.2);
    // Saturday and Sunday use Friday's rate.
    expect(rates.rate('USD', '2026-03-07')).toBe(1.2);
    expect(rates.rate('USD', '2026-03-08')).toBe(1.2);
    expect(rates.rate('USD', '2026-03-09')).toBe(1.25);
    expect(rates.rate('USD', '2030-01-01')).toBe(1.25);
  });

  it('converts A -> B at rate(B) / rate(A), rounding to whole minor units', () => {
    // 100.00 USD -> GBP on 2026-03-06: 10000 * 0.8 / 1.2 = 6666.67
    expect(rates.convertExact(10_000, 'USD', 'GBP', '2026-03-06')).toBeCloseTo(6666.6667, 3);
    expect(rates.convert(10_000, 'USD', 'GBP', '2026-03-06')).toBe(6667);
    expect(rates.convert(-10_000, 'USD', 'GBP', '2026-03-06')).toBe(-6667);
    expect(rates.convert(10_000, 'EUR', 'USD', '2026-03-05')).toBe(11_000);
    expect(rates.convert(12_345, 'GBP', 'GBP', '1990-01-01')).toBe(12_345);
  });

  it('fails with a clear message when no rate exists on or before the day', () => {
    expect(() => rates.rate('USD', '2026-03-04')).toThrow('No exchange rate for USD on or before 2026-03-04');
    expect(() => rates.convert(100, 'CAD', 'EUR', '2026-03-06')).toThrow('No exchange rate for CAD on or before 2026-03-06');
  });
});

describe('the rates table', () => {
  it('is seeded with weekday EUR rates for USD, GBP, CAD and AUD over the last years, deterministically and idempotently', async () => {
    const em = database.orm.em.fork();
    const today = new Date().toISOString().slice(0, 10);
    const [coverage] = await sqlRunner(em).rows<{ currencies: number; first: string; last: string; weekend: number }>(
      `select count(distinct currency)::int as currencies, to_char(min(day), 'YYYY-MM-DD') as first, to_char(max(day), 'YYYY-MM-DD') as last,
              count(*) filter (where extract(isodow from day) >= 6)::int as weekend
         from fx_rates where source = 'synthetic'`,
    );
    expect(coverage!.currencies).toBe(4);
    expect(coverage!.first <= addDays(today, -2 * 366)).toBe(true);
    expect(coverage!.last >= addDays(today, -3)).toBe(true);
    expect(coverage!.weekend).toBe(0);
    expect(await seedFxRates(em)).toBe(0);

    const [usd] = await sqlRunner(em).rows<{ rate: number }>(`select rate::float8 as rate from fx_rates where currency = 'USD' and day = '2026-03-06'`);
    expect(usd!.rate).toBe(syntheticRate('USD', '2026-03-06'));
    for (const currency of SEEDED_CURRENCIES) {
      // A plausible, smooth series: within a few percent of the base and moving little from day to day.
      const a = syntheticRate(currency, '2026-03-05');
      const b = syntheticRate(currency, '2026-03-06');
      expect(Math.abs(b - a) / a).toBeLessThan(0.005);
    }
    expect(syntheticRate('GBP', '2026-03-06')).toBeGreaterThan(0.8);
    expect(syntheticRate('GBP', '2026-03-06')).toBeLessThan(0.9);
  });

  it('converts at the rate of the given day, from the database', async () => {
    const em = database.orm.em.fork();
    await setFxRates(em, [
      { day: '2025-01-10', currency: 'USD', rate: 1.03 },
      { day: '2025-01-10', currency: 'GBP', rate: 0.83 },
      { day: '2025-01-13', currency: 'USD', rate: 1.02 },
      { day: '2025-01-13', currency: 'GBP', rate: 0.84 },
    ]);
    // Sunday the 12th uses Friday the 10th: 100.00 USD = 100 * 0.83 / 1.03 GBP = 80.58
    expect(await convert(em, 10_000, 'USD', 'GBP', '2025-01-12')).toBe(8058);
    expect(await convert(em, 10_000, 'USD', 'GBP', '2025-01-13')).toBe(8235);
    const loaded = await loadFxRates(em, ['USD', 'GBP', 'EUR'], '2025-01-11', '2025-01-13');
    expect(loaded.rate('USD', '2025-01-11')).toBe(1.03);
    expect(loaded.rate('GBP', '2025-01-13')).toBe(0.84);
  });

  it('reads rows with the rates that convert them, also for a currency that was not expected', async () => {
    const em = database.orm.em.fork();
    // Before the synthetic seed's years: only these rates exist.
    await setFxRates(em, [
      { day: '2019-02-04', currency: 'USD', rate: 1.04 },
      { day: '2019-02-04', currency: 'GBP', rate: 0.84 },
      { day: '2019-02-04', currency: 'CAD', rate: 1.5 },
    ]);
    const read = (currencies: string[]) => sqlRunner(em).rows<{ currency: string }>(`select unnest($1::text[]) as currency`, [currencies]);
    const span = { from: '2019-02-04', to: '2019-02-05' };

    const [expectedOnly, fx] = await withFxRates(em, ['GBP', 'USD'], span, read(['USD', 'GBP']), (rows) => rows.map((row) => row.currency));
    expect(expectedOnly).toEqual([{ currency: 'USD' }, { currency: 'GBP' }]);
    expect(fx.convert(10_000, 'USD', 'GBP', '2019-02-05')).toBe(8077);
    expect(() => fx.rate('CAD', '2019-02-05')).toThrow('No exchange rate for CAD on or before 2019-02-05');

    // A row in CAD, which the caller did not expect: its rates are loaded too.
    const [withCad, fxWithCad] = await withFxRates(em, ['GBP', 'USD'], span, read(['CAD']), (rows) => rows.map((row) => row.currency));
    expect(withCad).toEqual([{ currency: 'CAD' }]);
    expect(fxWithCad.convert(15_000, 'CAD', 'GBP', '2019-02-05')).toBe(8400);
  });

  it('says which rate is missing', async () => {
    const em = database.orm.em.fork();
    await clearFxRates(em, ['AUD']);
    await expect(convert(em, 100, 'AUD', 'GBP', '2026-01-05')).rejects.toThrow('No exchange rate for AUD on or before 2026-01-05');
  });
});
