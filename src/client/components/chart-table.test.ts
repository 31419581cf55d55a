import { describe, expect, it } from 'vitest';
import { chartTable, seriesSummary } from './chart-table.ts';

const plain = (value: number) => String(value);

describe("a chart's text alternative", () => {
  it('is a row per category and a column per series, written as the tooltip writes them', () => {
    const table = chartTable(
      [
        { name: '10 Jun', data: [12.5, null, 3] },
        { name: '9 Jun', data: [10, 20, 30] },
      ],
      { xaxis: { categories: ['0', '1', '2'], labels: { formatter: (value: string) => `${value}:00` } }, tooltip: { y: { formatter: (value: number) => `£${value.toFixed(2)}` } } },
      'Hour',
      plain,
    );
    expect(table.headers).toEqual(['Hour', '10 Jun', '9 Jun']);
    // An hour still to come (null) stays empty rather than reading as £0.00.
    expect(table.rows).toEqual([
      ['0:00', '£12.50', '£10.00'],
      ['1:00', '', '£20.00'],
      ['2:00', '£3.00', '£30.00'],
    ]);
  });

  it('reads the slices of a donut from its labels, and falls back to the y axis or plain numbers', () => {
    expect(chartTable([60, 40], { labels: ['Shopify', 'Woo'] }, 'Platform', plain).rows).toEqual([
      ['Shopify', '60'],
      ['Woo', '40'],
    ]);
    const table = chartTable([{ name: 'Spend', data: [{ x: 'Google Ads', y: 1500 }] }], { yaxis: { labels: { formatter: (value: number) => `${value / 1000}k` } } }, 'Channel', plain);
    expect(table.rows).toEqual([['Google Ads', '1.5k']]);
  });
});

describe('a sparkline summary', () => {
  it('gives the first, last, lowest and highest values', () => {
    expect(seriesSummary([120, 80, 410, 340], (value) => `£${value}`)).toEqual({ first: '£120', last: '£340', lowest: '£80', highest: '£410' });
    expect(seriesSummary([], plain)).toBeNull();
  });
});
