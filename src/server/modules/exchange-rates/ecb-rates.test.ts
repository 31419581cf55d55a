import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeEcb, type EcbRates } from '../../../../test/fakes/ecb.ts';
import { createTestDatabase } from '../../../../test/harness.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { loadFxRates, seedFxRates } from '../commerce/fx.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { ECB_RATES_JOB } from './ecb-job.ts';
import { EcbRatesError, ecbFileFor, loadEcbRates, parseEcbHistoryCsv, parseEcbXml } from './ecb-rates.ts';

// The ECB's files from a loopback fake in their documented shapes, loaded into a real database that holds
// the synthetic seed (three years of weekday rates up to today).

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let ecb: FakeEcb;

/** Working days of November 2026 (and late October), but not Friday 20 November: a "TARGET closing day" here. */
function fixture(): EcbRates {
  const rates: EcbRates = {};
  for (let day = '2026-10-26'; day <= '2026-11-27'; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6 || day === '2026-11-20') continue;
    const n = Number(day.slice(8));
    rates[day] = { USD: 1.05 + n / 1000, JPY: 160 + n, GBP: 0.83 + n / 10_000, CAD: 1.46, AUD: 1.61 };
  }
  return rates;
}

beforeAll(async () => {
  database = await createTestDatabase();
  ecb = await new FakeEcb(fixture()).start();
});
afterAll(async () => {
  await ecb?.close();
  await database?.close();
});

const rowsOf = (day: string, currency: string) =>
  sqlRunner(database.orm.em.fork()).rows<{ rate: number; source: string }>(`select rate::float8 as rate, source from fx_rates where day = $1::date and currency = $2`, [day, currency]);

it('reads the XML files and the history CSV (N/A cells, the trailing comma), keeping the supported currencies', () => {
  expect(parseEcbXml(`<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject><Cube><Cube time='2026-11-27'><Cube currency='USD' rate='1.0812'/><Cube currency='JPY' rate='163.2'/><Cube currency='GBP' rate='0.8597'/></Cube></Cube></gesmes:Envelope>`)).toEqual([
    { day: '2026-11-27', currency: 'USD', rate: 1.0812, source: 'ecb' },
    { day: '2026-11-27', currency: 'GBP', rate: 0.8597, source: 'ecb' },
  ]);
  expect(parseEcbHistoryCsv('Date,USD,JPY,CYP,GBP,\n2026-11-27,1.0812,163.2,N/A,0.8597,\n1999-01-04,1.1789,133.73,0.58231,0.7111,\n')).toEqual([
    { day: '2026-11-27', currency: 'USD', rate: 1.0812, source: 'ecb' },
    { day: '2026-11-27', currency: 'GBP', rate: 0.8597, source: 'ecb' },
    { day: '1999-01-04', currency: 'USD', rate: 1.1789, source: 'ecb' },
    { day: '1999-01-04', currency: 'GBP', rate: 0.7111, source: 'ecb' },
  ]);
  expect(() => parseEcbXml('<html><body>Service unavailable</body></html>')).toThrow(EcbRatesError);
  expect(() => parseEcbHistoryCsv('<html>')).toThrow('does not start with a "Date" column');
});

it('picks the file that brings the rates up to date: the history first, the 90 days after a gap, else the daily one', () => {
  expect(ecbFileFor(null, '2026-11-27')).toBe('history');
  expect(ecbFileFor('2026-08-01', '2026-11-27')).toBe('history');
  expect(ecbFileFor('2026-11-10', '2026-11-27')).toBe('ninetyDays');
  expect(ecbFileFor('2026-11-26', '2026-11-27')).toBe('daily');
  expect(ecbFileFor('2026-11-20', '2026-11-23')).toBe('daily');
});

it('a failed download changes nothing and says what the ECB answered', async () => {
  const before = await rowsOf('2026-11-13', 'GBP');
  ecb.failNext = 503;
  await expect(loadEcbRates(database.orm.em.fork(), { baseUrl: ecb.url, today: '2026-11-27' })).rejects.toThrow(`The ECB answered HTTP 503 for ${ecb.url}/eurofxref-hist.zip.`);
  expect(await rowsOf('2026-11-13', 'GBP')).toEqual(before);
  expect(before).toEqual([{ rate: expect.any(Number), source: 'synthetic' }]);
});

it("the first load takes the whole history; the ECB's rates replace the synthetic ones and its closing days use its previous working day", async () => {
  const result = await loadEcbRates(database.orm.em.fork(), { baseUrl: ecb.url, today: '2026-11-27' });
  expect(result).toMatchObject({ file: 'history', firstDay: '2026-10-26', lastDay: '2026-11-27' });
  expect(result.rates).toBe(24 * 4);
  expect(await rowsOf('2026-11-13', 'GBP')).toEqual([{ rate: 0.8313, source: 'ecb' }]);
  expect(await rowsOf('2026-11-13', 'JPY')).toEqual([]);
  // The closing day has no row any more (its synthetic one is gone), so it converts at Thursday's ECB rate;
  // so do the days after the ECB's newest (the seed had filled them up to today).
  expect(await rowsOf('2026-11-20', 'GBP')).toEqual([]);
  const fx = await loadFxRates(database.orm.em.fork(), ['GBP'], '2026-11-20', '2026-11-29');
  expect(fx.rate('GBP', '2026-11-20')).toBe(0.8319);
  expect(fx.rate('GBP', '2026-11-29')).toBe(0.8327);
  const [synthetic] = await sqlRunner(database.orm.em.fork()).rows<{ after: number; before: number }>(
    `select count(*) filter (where day >= '2026-10-26')::int as after, count(*) filter (where day < '2026-10-26')::int as before from fx_rates where source = 'synthetic' and currency = 'GBP'`,
  );
  expect(synthetic).toEqual({ after: 0, before: expect.any(Number) });
  expect(synthetic!.before).toBeGreaterThan(500);
  // The start's seed never puts a synthetic rate back from the first ECB day on.
  await seedFxRates(database.orm.em.fork(), '2026-12-04');
  expect(await rowsOf('2026-12-01', 'GBP')).toEqual([]);
  expect(await rowsOf('2026-11-20', 'GBP')).toEqual([]);
});

it('the next working day comes from the daily file; a corrected rate replaces the stored one', async () => {
  ecb.rates['2026-11-30'] = { USD: 1.09, GBP: 0.85, CAD: 1.47, AUD: 1.62 };
  const result = await loadEcbRates(database.orm.em.fork(), { baseUrl: ecb.url, today: '2026-11-30' });
  expect(result).toMatchObject({ file: 'daily', rates: 4, firstDay: '2026-11-30', lastDay: '2026-11-30' });
  expect(await rowsOf('2026-11-30', 'GBP')).toEqual([{ rate: 0.85, source: 'ecb' }]);
  ecb.rates['2026-11-27']!.GBP = 0.8401;
  await loadEcbRates(database.orm.em.fork(), { baseUrl: ecb.url, file: 'ninetyDays' });
  expect(await rowsOf('2026-11-27', 'GBP')).toEqual([{ rate: 0.8401, source: 'ecb' }]);
});

it('the job loads nothing with FX_SOURCE=synthetic and the ECB file with FX_SOURCE=ecb', async () => {
  const context = { em: database.orm.em.fork(), baseUrl: 'http://localhost', log: () => {} };
  const saved = { FX_SOURCE: process.env.FX_SOURCE, ECB_RATES_URL: process.env.ECB_RATES_URL };
  try {
    process.env.FX_SOURCE = 'synthetic';
    expect(await ECB_RATES_JOB.handle(context, {})).toEqual({ skipped: 'FX_SOURCE is synthetic' });
    process.env.FX_SOURCE = 'ecb';
    process.env.ECB_RATES_URL = ecb.url;
    ecb.rates['2026-12-01'] = { USD: 1.1, GBP: 0.86, CAD: 1.48, AUD: 1.63 };
    expect(await ECB_RATES_JOB.handle(context, {})).toMatchObject({ lastDay: '2026-12-01' });
    expect(await rowsOf('2026-12-01', 'GBP')).toEqual([{ rate: 0.86, source: 'ecb' }]);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
