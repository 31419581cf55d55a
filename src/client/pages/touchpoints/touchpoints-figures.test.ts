import { describe, expect, it } from 'vitest';
import type { AttributionReportOutput } from '../../../shared/attribution.ts';
import { ALL_CHANNELS, creditsCsv, gapBefore, isWholeNumber, overClaimPercent, percentChange, rowsTotals, selectionTotals } from './touchpoints-figures.ts';

const row = (channel: string, figures: Partial<AttributionReportOutput['current']['channels'][number]> = {}) => ({
  channel,
  orders: 0,
  revenueMinor: 0,
  ownSourceOrders: 0,
  ownSourceRevenueMinor: 0,
  spendMinor: 0,
  roas: null,
  cac: null,
  platformConversions: 0,
  platformReportedRevenueMinor: 0,
  ...figures,
});

const period: AttributionReportOutput['current'] = {
  from: '2026-11-01',
  to: '2026-11-07',
  total: { orders: 3, revenueMinor: 30_000, spendMinor: 5_000, ownSourceOrders: 0.5, ownSourceRevenueMinor: 2_500 },
  channels: [
    row('googleads', { orders: 1.5, revenueMinor: 20_000, spendMinor: 4_000, roas: 5, cac: 2_666.67, platformConversions: 2.5, platformReportedRevenueMinor: 26_000 }),
    row('metaads', { orders: 1, revenueMinor: 7_500, spendMinor: 1_000, roas: 7.5, cac: 1_000, platformConversions: 3, platformReportedRevenueMinor: 9_000 }),
    row('direct', { orders: 0.5, revenueMinor: 2_500, ownSourceOrders: 0.5, ownSourceRevenueMinor: 2_500 }),
  ],
  campaigns: [{ ...row('googleads', { orders: 1.5, revenueMinor: 20_000, spendMinor: 4_000, roas: 5, cac: 2_666.67 }), campaign: '=HYPERLINK("x"), brand' }],
};

describe('the KPI tiles of the channel filter', () => {
  it("'All Channels' shows the period's totals with ROAS and CAC worked out from them", () => {
    expect(selectionTotals(period, ALL_CHANNELS)).toEqual({ orders: 3, revenueMinor: 30_000, spendMinor: 5_000, roas: 6, cac: 5_000 / 3, platformConversions: 5.5, platformReportedRevenueMinor: 35_000 });
  });

  it("one channel shows that channel's credits; no spend means no ROAS or CAC", () => {
    expect(selectionTotals(period, 'metaads')).toMatchObject({ orders: 1, revenueMinor: 7_500, spendMinor: 1_000, roas: 7.5, cac: 1_000 });
    expect(selectionTotals(period, 'direct')).toMatchObject({ orders: 0.5, revenueMinor: 2_500, roas: null, cac: null });
    expect(selectionTotals(period, 'tiktokads')).toMatchObject({ orders: 0, revenueMinor: 0, roas: null, cac: null });
  });

  it("the table's totals row adds up its rows, so 'All Channels' equals the tiles", () => {
    expect(rowsTotals(period.channels).revenueMinor).toBe(selectionTotals(period, ALL_CHANNELS).revenueMinor);
    expect(rowsTotals(period.channels).orders).toBe(3);
  });

  it('changes in percent, none without a comparison value', () => {
    expect(percentChange(150, 100)).toBe(50);
    expect(percentChange(50, -100)).toBe(150);
    expect(percentChange(1, 0)).toBeNull();
    expect(percentChange(null, 4)).toBeNull();
    expect(percentChange(4, undefined)).toBeNull();
  });
});

describe('over-claiming and whole orders', () => {
  it('is the share the platform claims above our credit', () => {
    expect(overClaimPercent(26_000, 20_000)).toBe(30);
    expect(overClaimPercent(20_000, 20_000)).toBeNull();
    expect(overClaimPercent(0, 100)).toBeNull();
    expect(overClaimPercent(100, 0)).toBe(Infinity);
  });

  it('tells whole credited orders from shares', () => {
    expect(isWholeNumber(3)).toBe(true);
    expect(isWholeNumber(2.9999999)).toBe(true);
    expect(isWholeNumber(1.5)).toBe(false);
    expect(isWholeNumber(0.333333)).toBe(false);
  });
});

describe('the CSV export', () => {
  const columns = { channel: 'Channel', campaign: 'Campaign', spend: 'Spend', orders: 'Credited orders', revenue: 'Credited revenue', roas: 'ROAS', cac: 'CAC', platformConversions: 'Platform conversions', platformRevenue: 'Platform-reported revenue', total: 'Total' };
  const names: Record<string, string> = { googleads: 'Google Ads', metaads: 'Meta Ads', direct: 'Direct' };

  it('writes a line per row then the totals, money as decimals in the named currency', () => {
    const lines = creditsCsv(period.channels, columns, 'EUR', (channel) => names[channel]!).split('\r\n');
    expect(lines).toEqual([
      'Channel,Campaign,Spend (EUR),Credited orders,Credited revenue (EUR),ROAS,CAC (EUR),Platform conversions,Platform-reported revenue (EUR)',
      'Google Ads,,40.00,1.5,200.00,5.00,26.67,2.50,260.00',
      'Meta Ads,,10.00,1,75.00,7.50,10.00,3.00,90.00',
      'Direct,,0.00,0.5,25.00,,,0.00,0.00',
      'Total,,50.00,3,300.00,6.00,16.67,5.50,350.00',
      '',
    ]);
  });

  it('quotes text with commas and quotes, and never lets a spreadsheet run a campaign name as a formula', () => {
    const lines = creditsCsv(period.campaigns, columns, 'USD', (channel) => names[channel]!).split('\r\n');
    expect(lines[1]).toBe(`Google Ads,"'=HYPERLINK(""x""), brand",40.00,1.5,200.00,5.00,26.67,0.00,0.00`);
  });
});

describe('how long before the order a visit came', () => {
  it('in minutes, hours or days', () => {
    expect(gapBefore('2026-11-01T10:00:00Z', '2026-11-01T10:25:30Z')).toEqual({ unit: 'minutes', count: 25 });
    expect(gapBefore('2026-11-01T10:00:00Z', '2026-11-02T12:00:00Z')).toEqual({ unit: 'hours', count: 26 });
    expect(gapBefore('2026-11-01T10:00:00Z', '2026-11-09T09:00:00Z')).toEqual({ unit: 'days', count: 7 });
  });
});
