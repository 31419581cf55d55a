import { describe, expect, it } from 'vitest';
import { ConnectorAuthError, MalformedResponseError } from '../connector.ts';
import { runWindow } from '../email-shared/test-support.ts';
import { testContext, utcWindow } from '../test-support.ts';
import { describeCsvErrors, parseEmailCsv } from './csv.ts';
import { EMAIL_CSV_BATCH_SIZE, emailConnector } from './index.ts';

const HEADER = 'day,campaign_id,campaign_name,sends,opens,clicks,orders,revenue,cost,currency';

function ctx(csvText: string, fileName = 'brevo-january.csv') {
  return testContext('email', '', { csvText, fileName }, { currency: 'EUR' });
}

function bigCsv(rows: number): string {
  const lines = [HEADER];
  for (let index = 0; index < rows; index++) {
    const day = new Date(Date.UTC(2026, 0, 1) + (index % 90) * 86_400_000).toISOString().slice(0, 10);
    lines.push(`${day},c${index},Campaign ${index},${100 + index},${index % 50},${index % 7},${index % 3},${index % 100}.${String(index % 100).padStart(2, '0')},1.5,EUR`);
  }
  return lines.join('\n');
}

describe('e-mail CSV parser', () => {
  it('reads the documented columns exactly, in any order, quoted values and CRLF included', () => {
    const text = `\uFEFFCampaign ID,Day,Campaign Name,Sends,Opens,Clicks,Orders,Revenue,Cost,Currency\r\nspring-1,2026-01-10,"Spring sale, ""early""",1000,420,80,12,850.5,25,eur\r\n`;
    const result = parseEmailCsv(text, { defaultCurrency: 'USD' });
    expect(result.errors).toEqual([]);
    expect(result.rows).toEqual([{
      line: 2, platform: 'email', campaignId: 'spring-1', day: '2026-01-10', campaignName: 'Spring sale, "early"', currency: 'EUR',
      sends: 1000, opens: 420, clicks: 80, attributedOrders: 12, attributedRevenueMinor: 85_050, spendMinor: 2_500,
    }]);
  });

  it('fills left-out columns: zero counts, the store currency, the id as name; semicolon files work', () => {
    const result = parseEmailCsv('day;campaign_id;revenue\n2026-02-01;x1;19.99\n\n2026-02-02;x1;0.5\n', { defaultCurrency: 'JPY' });
    expect(result.errors).toEqual([]);
    expect(result.rows.map(({ campaignName, currency, sends, attributedRevenueMinor, line }) => ({ campaignName, currency, sends, attributedRevenueMinor, line }))).toEqual([
      { campaignName: 'x1', currency: 'JPY', sends: 0, attributedRevenueMinor: 20, line: 2 },
      { campaignName: 'x1', currency: 'JPY', sends: 0, attributedRevenueMinor: 1, line: 4 },
    ]);
  });

  it('reports every problem with its line', () => {
    const text = [
      HEADER,
      '2026-01-10,a,A,10,5,1,0,10.00,0,EUR',
      '2026-13-01,b,B,10,5,1,0,10.00,0,EUR',
      '2026-01-11,c,C,10,5,1,0,"12,5",0,EUR',
      '2026-01-11,d,D,1.5,-2,1,0,10,0,EURO',
      '2026-01-10,a,A again,10,5,1,0,10.00,0,EUR',
      '2026-01-12,e,E,10,5',
      '2026-01-12,f,"F,1,1,1,1,1,1,EUR',
    ].join('\n');
    const result = parseEmailCsv(text, { defaultCurrency: 'EUR' });
    expect(result.rows).toEqual([]);
    expect(result.errors).toEqual([
      'Line 3: day "2026-13-01" is not a date like 2026-01-31',
      'Line 4: revenue "12,5" is not a number (use a dot for decimals, no thousands separators)',
      'Line 5: currency "EURO" is not a three-letter code like EUR',
      'Line 5: sends "1.5" is not a whole number',
      'Line 5: opens "-2" must not be negative',
      'Line 6: campaign "a" on 2026-01-10 already appears on line 2',
      'Line 7: expected 10 values like the header, found 5',
      'Line 8: a quoted value is not closed (a " is missing)',
    ]);
  });

  it('checks the header', () => {
    expect(parseEmailCsv('', { defaultCurrency: 'EUR' }).errors[0]).toMatch(/^Line 1: the file is empty/);
    expect(parseEmailCsv('campaign_id,spend,campaign_id\n', { defaultCurrency: 'EUR' }).errors).toEqual([
      'Line 1: unknown column "spend" (the columns are day, campaign_id, campaign_name, sends, opens, clicks, orders, revenue, cost, currency)',
      'Line 1: the column "campaign_id" appears twice',
      'Line 1: the column "day" is missing',
    ]);
  });

  it('lists the first 20 problems and counts the rest', () => {
    const text = [HEADER, ...Array.from({ length: 25 }, (_, index) => `2026-01-01,c${index},C,x,0,0,0,0,0,EUR`)].join('\n');
    const message = describeCsvErrors(parseEmailCsv(text, { defaultCurrency: 'EUR' }));
    expect(message.split('\n')).toHaveLength(21);
    expect(message).toMatch(/…and 5 more$/);
  });
});

describe('e-mail CSV connector', () => {
  it('verify() accepts a clean file and names the account after it', async () => {
    await expect(emailConnector.verify(ctx(bigCsv(3)))).resolves.toEqual({ accountId: 'upload:brevo-january.csv', accountName: 'brevo-january.csv', currency: 'EUR' });
  });

  it('verify() refuses a file with errors, quoting the lines', async () => {
    const error = await emailConnector.verify(ctx(`${HEADER}\n2026-01-11,c,C,10,5,1,0,"12,5",0,EUR`)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toContain('Line 2: revenue "12,5" is not a number');
    await expect(emailConnector.fetchBatch(ctx(`${HEADER}\nbad`), utcWindow('2026-01-01', '2026-02-01'), null)).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('pages through the rows 1,000 at a time with the next row index as cursor', async () => {
    const text = bigCsv(2_500);
    const window = utcWindow('2026-01-01', '2026-04-01');
    const { batches, rows } = await runWindow(emailConnector, ctx(text), window);
    expect(batches.map(({ cursor, batch }) => [cursor, batch.nextCursor, batch.emailMetrics!.length])).toEqual([
      [null, '1000', EMAIL_CSV_BATCH_SIZE],
      ['1000', '2000', EMAIL_CSV_BATCH_SIZE],
      ['2000', null, 500],
    ]);
    expect(rows).toHaveLength(2_500);
    expect(batches[0]!.batch.estimatedTotal).toBe(2_500);
    expect(await emailConnector.fetchBatch(ctx(text), window, '1000')).toEqual(batches[1]!.batch);
  });

  it("returns only the rows of the window's days", async () => {
    const january = utcWindow('2026-01-01', '2026-02-01');
    const { rows, batches } = await runWindow(emailConnector, ctx(bigCsv(2_500)), january);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.day >= '2026-01-01' && row.day <= '2026-01-31')).toBe(true);
    expect(batches[0]!.batch.estimatedTotal).toBe(rows.length);
    await expect(emailConnector.fetchBatch(ctx(bigCsv(2)), january, 'abc')).rejects.toThrow(/cursor/);
  });
});
