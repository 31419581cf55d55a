import type { EntityManager } from '@mikro-orm/postgresql';
import { XMLParser } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { outboundFetch } from '../../outbound/outbound-http.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { CURRENCY_CODES } from '../../../shared/currencies.ts';
import { FX_BASE_CURRENCY, type FxRateRow } from '../commerce/fx.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';

// The European Central Bank's euro foreign exchange reference rates
// (https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html):
// "usually updated around 16:00 CET on every working day, except on TARGET closing days", quoted as
// units of the currency per 1 EUR, which is fx_rates' own convention. Three files under
// {ECB_RATES_URL} (docs/platform-notes.md, "ECB reference rates"):
// - eurofxref-daily.xml: the latest working day, <Cube><Cube time="YYYY-MM-DD"><Cube currency=".." rate=".."/>...
// - eurofxref-hist-90d.xml: the same with one <Cube time> per working day of the last 90 days;
// - eurofxref-hist.zip: eurofxref-hist.csv, every working day since 1999: "Date,USD,JPY,...", one row
//   a day, "N/A" where a currency had no rate that day (e.g. before it was quoted), a trailing comma.
// Only the currencies the app supports are kept. Every file is fetched through the outbound module.

export const ECB_FILES = { daily: 'eurofxref-daily.xml', ninetyDays: 'eurofxref-hist-90d.xml', history: 'eurofxref-hist.zip' } as const;
export type EcbFile = keyof typeof ECB_FILES;

const WANTED = new Set<string>(CURRENCY_CODES.filter((code) => code !== FX_BASE_CURRENCY));
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class EcbRatesError extends Error {
  override name = 'EcbRatesError';
}

function rateOf(text: string): number | null {
  const value = Number(text.trim());
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** The rates of eurofxref-daily.xml or eurofxref-hist-90d.xml. */
export function parseEcbXml(xml: string): FxRateRow[] {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, isArray: (name) => name === 'Cube' });
  let document: { Envelope?: { Cube?: { Cube?: { time?: string; Cube?: { currency?: string; rate?: string }[] }[] }[] } };
  try {
    document = parser.parse(xml);
  } catch (error) {
    throw new EcbRatesError(`The ECB's XML could not be read: ${(error as Error).message}`);
  }
  const days = document.Envelope?.Cube?.[0]?.Cube;
  if (!days) throw new EcbRatesError('The ECB\'s XML has no <Cube time="..."> element: not a eurofxref file.');
  const rows: FxRateRow[] = [];
  for (const day of days) {
    if (!day.time || !DAY.test(day.time)) throw new EcbRatesError(`The ECB's XML has a day that is not a date: ${String(day.time)}`);
    for (const quote of day.Cube ?? []) {
      const rate = quote.rate === undefined ? null : rateOf(quote.rate);
      if (quote.currency && WANTED.has(quote.currency) && rate !== null) rows.push({ day: day.time, currency: quote.currency, rate, source: 'ecb' });
    }
  }
  return rows;
}

/** The rates of eurofxref-hist.csv. */
export function parseEcbHistoryCsv(csv: string): FxRateRow[] {
  const lines = csv.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = lines[0]?.split(',').map((cell) => cell.trim());
  if (!header || header[0] !== 'Date') throw new EcbRatesError('The ECB\'s history CSV does not start with a "Date" column.');
  const rows: FxRateRow[] = [];
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    const day = cells[0]!.trim();
    if (!DAY.test(day)) throw new EcbRatesError(`The ECB's history CSV has a day that is not a date: ${day}`);
    header.forEach((currency, index) => {
      if (index === 0 || !WANTED.has(currency)) return;
      const rate = rateOf(cells[index] ?? '');
      if (rate !== null) rows.push({ day, currency, rate, source: 'ecb' });
    });
  }
  return rows;
}

/** The history file: a zip holding eurofxref-hist.csv. */
export function parseEcbHistoryZip(zip: Uint8Array): FxRateRow[] {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch (error) {
    throw new EcbRatesError(`The ECB's history file is not a readable zip: ${(error as Error).message}`);
  }
  const name = Object.keys(files).find((file) => file.toLowerCase().endsWith('.csv'));
  if (!name) throw new EcbRatesError("The ECB's history zip holds no CSV file.");
  return parseEcbHistoryCsv(new TextDecoder().decode(files[name]));
}

export async function downloadEcbRates(baseUrl: string, file: EcbFile): Promise<FxRateRow[]> {
  const url = `${baseUrl}/${ECB_FILES[file]}`;
  let response: Response;
  try {
    response = await outboundFetch(url, { headers: { accept: file === 'history' ? 'application/zip' : 'application/xml, text/xml' } }, { timeoutMs: 60_000, maxBodyBytes: 32 * 1024 * 1024 });
  } catch (error) {
    throw new EcbRatesError(`The ECB's rates could not be fetched from ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new EcbRatesError(`The ECB answered HTTP ${response.status} for ${url}.`);
  const rows = file === 'history' ? parseEcbHistoryZip(new Uint8Array(await response.arrayBuffer())) : parseEcbXml(await response.text());
  if (rows.length === 0) throw new EcbRatesError(`The ECB's ${ECB_FILES[file]} held no rate of ${[...WANTED].join(', ')}.`);
  return rows;
}

/**
 * Which file brings the rates up to date: the whole history when none of the ECB's is stored yet (or
 * the newest is older than the 90-day file reaches), the 90-day file after a gap of more than a few
 * days, else the daily one.
 */
export function ecbFileFor(latestEcbDay: string | null, today: string): EcbFile {
  if (!latestEcbDay || latestEcbDay < addDays(today, -80)) return 'history';
  return latestEcbDay < addDays(today, -4) ? 'ninetyDays' : 'daily';
}

export interface EcbLoadResult {
  file: EcbFile;
  rates: number;
  firstDay: string;
  lastDay: string;
  /** Synthetic rows removed on the ECB's own closing days inside the loaded span. */
  syntheticRemoved: number;
}

/**
 * Loads the ECB's rates into fx_rates: its rows replace what is there for the same day and currency,
 * and a synthetic row of a loaded currency from the first loaded day on that the ECB has no rate for
 * (a TARGET closing day, or a day after its newest) is removed, so that day uses the ECB's previous
 * working day like every weekend, never a synthetic value between real ones. One transaction.
 */
export async function loadEcbRates(em: EntityManager, options: { baseUrl: string; today?: string; file?: EcbFile }): Promise<EcbLoadResult> {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const sql = sqlRunner(em);
  const [latest] = await sql.rows<{ day: string | null }>(`select to_char(max(day), 'YYYY-MM-DD') as day from fx_rates where source = 'ecb'`);
  const file = options.file ?? ecbFileFor(latest?.day ?? null, today);
  const rows = await downloadEcbRates(options.baseUrl, file);
  const days = rows.map((row) => row.day).sort();
  const firstDay = days[0]!;
  const lastDay = days[days.length - 1]!;
  const currencies = [...new Set(rows.map((row) => row.currency))];
  let syntheticRemoved = 0;
  await em.transactional(async (tx) => {
    const run = sqlRunner(tx);
    await run.run(
      `insert into fx_rates (day, currency, rate, source)
       select x.day, x.currency, x.rate, 'ecb' from jsonb_to_recordset($1::jsonb) as x(day date, currency text, rate numeric)
       on conflict (day, currency) do update set rate = excluded.rate, source = 'ecb'
       where fx_rates.rate is distinct from excluded.rate or fx_rates.source <> 'ecb'`,
      [JSON.stringify(rows.map(({ day, currency, rate }) => ({ day, currency, rate })))],
    );
    syntheticRemoved = await run.run(`delete from fx_rates where source = 'synthetic' and currency = any($1::bpchar[]) and day >= $2::date`, [currencies, firstDay]);
  });
  return { file, rates: rows.length, firstDay, lastDay, syntheticRemoved };
}
