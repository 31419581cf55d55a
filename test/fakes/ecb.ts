import { strToU8, zipSync } from 'fflate';
import { FakeServer } from './fake-server.ts';

// A loopback fake of the ECB's euro foreign exchange reference rates files (docs/platform-notes.md, "ECB
// reference rates"), served from `rates` (day -> currency -> units per 1 EUR), working days only:
// - /eurofxref-daily.xml: the newest day, in the gesmes Envelope / Cube time / Cube currency+rate shape;
// - /eurofxref-hist-90d.xml: the days of the last 90 calendar days before the newest, newest first;
// - /eurofxref-hist.zip: a zip holding eurofxref-hist.csv, "Date,USD,JPY,...," newest first, "N/A" for a
//   currency without a rate that day, and the trailing comma of every line of the real file.

export type EcbRates = Record<string, Record<string, number>>;

const HISTORY_COLUMNS = ['USD', 'JPY', 'BGN', 'CYP', 'CZK', 'DKK', 'GBP', 'HUF', 'PLN', 'SEK', 'CHF', 'NOK', 'AUD', 'CAD', 'NZD'];

function cubeXml(days: string[], rates: EcbRates): string {
  const cubes = days
    .map((day) => `\t\t<Cube time='${day}'>\n${Object.entries(rates[day]!).map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`).join('\n')}\n\t\t</Cube>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
${cubes}
\t</Cube>
</gesmes:Envelope>`;
}

export class FakeEcb {
  readonly server = new FakeServer();
  rates: EcbRates;
  /** Answer every file with this status instead (then cleared). */
  failNext: number | null = null;

  constructor(rates: EcbRates) {
    this.rates = rates;
    const newestFirst = () => Object.keys(this.rates).sort().reverse();
    const failure = () => {
      const status = this.failNext;
      this.failNext = null;
      return status === null ? null : { status, headers: { 'content-type': 'text/html' }, body: '<html><body>Service unavailable</body></html>' };
    };
    this.server.route('GET', '/eurofxref-daily.xml', () => failure() ?? { headers: { 'content-type': 'text/xml' }, body: cubeXml(newestFirst().slice(0, 1), this.rates) });
    this.server.route('GET', '/eurofxref-hist-90d.xml', () => {
      const days = newestFirst();
      const cutoff = new Date(Date.parse(`${days[0]}T00:00:00Z`) - 90 * 86_400_000).toISOString().slice(0, 10);
      return failure() ?? { headers: { 'content-type': 'text/xml' }, body: cubeXml(days.filter((day) => day > cutoff), this.rates) };
    });
    this.server.route('GET', '/eurofxref-hist.zip', () => {
      const lines = [`Date,${HISTORY_COLUMNS.join(',')},`];
      for (const day of newestFirst()) lines.push(`${day},${HISTORY_COLUMNS.map((currency) => this.rates[day]![currency] ?? 'N/A').join(',')},`);
      return failure() ?? { headers: { 'content-type': 'application/zip' }, body: zipSync({ 'eurofxref-hist.csv': strToU8(`${lines.join('\n')}\n`) }) };
    });
  }

  async start(port = 0): Promise<this> {
    await this.server.start(port);
    return this;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
