import { describe, expect, it } from 'vitest';
import { csvAttachmentHeader, csvCell, csvDocument, csvStream } from './csv.ts';

describe('csv', () => {
  it('quotes commas, quotes and line breaks the RFC 4180 way', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('defuses cells a spreadsheet would run as a formula, but keeps negative numbers', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(csvCell('+1 555')).toBe(`"'+1 555"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('-12.50')).toBe('-12.50');
    expect(csvCell(-3)).toBe('-3');
  });

  it('writes a document with CRLF line ends', () => {
    expect(csvDocument(['a', 'b'], [[1, 'x'], [2, null]])).toBe('a,b\r\n1,x\r\n2,\r\n');
  });

  it('streams batches in order, reading the next batch only when asked', async () => {
    const requested: number[] = [];
    async function* batches() {
      for (let index = 0; index < 3; index++) {
        requested.push(index);
        yield [[index, `row ${index}`]];
      }
    }
    let text = '';
    for await (const chunk of csvStream(['n', 'label'], batches())) text += chunk;
    expect(text).toBe('n,label\r\n0,row 0\r\n1,row 1\r\n2,row 2\r\n');
    expect(requested).toEqual([0, 1, 2]);
  });

  it('names the download safely', () => {
    expect(csvAttachmentHeader('orders "all"/x', '2026-11-21')).toBe('attachment; filename="orders-all-x-2026-11-21.csv"');
  });
});
