import type { AttributionReportOutput } from '../../../shared/attribution.ts';
import { csvCell } from '../../../shared/csv.ts';

// The figures of the touchpoints screen that are worked out in the browser: the totals of the
// channel filter's selection (KPI tiles), their change against the comparison period, and the
// table's CSV export.

type Period = AttributionReportOutput['current'];
type ChannelRow = Period['channels'][number];
type CampaignRow = Period['campaigns'][number];

/** The channel filter's value for every channel. */
export const ALL_CHANNELS = 'all';

export interface CreditTotals {
  orders: number;
  revenueMinor: number;
  spendMinor: number;
  /** Credited revenue / spend; null without spend. */
  roas: number | null;
  /** Spend per credited order (minor units); null without spend or orders. */
  cac: number | null;
  platformConversions: number;
  platformReportedRevenueMinor: number;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function withRatios(figures: Omit<CreditTotals, 'roas' | 'cac'>): CreditTotals {
  return {
    ...figures,
    roas: figures.spendMinor > 0 ? figures.revenueMinor / figures.spendMinor : null,
    cac: figures.spendMinor > 0 && figures.orders > 0 ? figures.spendMinor / figures.orders : null,
  };
}

/** The channel rows the filter keeps (every row for 'all'). */
export function channelRowsOf(period: Period, channel: string): ChannelRow[] {
  return channel === ALL_CHANNELS ? period.channels : period.channels.filter((row) => row.channel === channel);
}

export function campaignRowsOf(period: Period, channel: string): CampaignRow[] {
  return channel === ALL_CHANNELS ? period.campaigns : period.campaigns.filter((row) => row.channel === channel);
}

/**
 * What the KPI tiles show for the filter: the period's totals for 'All Channels' (every order once,
 * own sources included), else the one channel's credits.
 */
export function selectionTotals(period: Period, channel: string): CreditTotals {
  const rows = channelRowsOf(period, channel);
  const platform = { platformConversions: sum(rows.map((row) => row.platformConversions)), platformReportedRevenueMinor: sum(rows.map((row) => row.platformReportedRevenueMinor)) };
  if (channel === ALL_CHANNELS) {
    return withRatios({ orders: period.total.orders, revenueMinor: period.total.revenueMinor, spendMinor: period.total.spendMinor, ...platform });
  }
  return withRatios({ orders: sum(rows.map((row) => row.orders)), revenueMinor: sum(rows.map((row) => row.revenueMinor)), spendMinor: sum(rows.map((row) => row.spendMinor)), ...platform });
}

/** The table's totals row: the sums of the rows it shows (so it can be checked against the tiles). */
export function rowsTotals(rows: readonly (ChannelRow | CampaignRow)[]): CreditTotals {
  return withRatios({
    orders: sum(rows.map((row) => row.orders)),
    revenueMinor: sum(rows.map((row) => row.revenueMinor)),
    spendMinor: sum(rows.map((row) => row.spendMinor)),
    platformConversions: sum(rows.map((row) => row.platformConversions)),
    platformReportedRevenueMinor: sum(rows.map((row) => row.platformReportedRevenueMinor)),
  });
}

/** Change in percent (12.5 = +12.5 %); null when there is nothing to compare with. */
export function percentChange(current: number | null, previous: number | null | undefined): number | null {
  if (current === null || previous === null || previous === undefined || previous === 0) return null;
  return ((current - previous) / Math.abs(previous)) * 100;
}

/** How much more the platform claims than the pixel credits, in percent; null when it claims nothing or no more. */
export function overClaimPercent(platformMinor: number, creditedMinor: number): number | null {
  if (platformMinor <= 0 || platformMinor <= creditedMinor) return null;
  if (creditedMinor <= 0) return Infinity;
  return ((platformMinor - creditedMinor) / creditedMinor) * 100;
}

/** Whether credited orders are whole (first and last click) rather than shares. */
export function isWholeNumber(value: number): boolean {
  return Math.abs(value - Math.round(value)) < 1e-6;
}

export interface CsvColumns {
  channel: string;
  campaign: string;
  spend: string;
  orders: string;
  revenue: string;
  roas: string;
  cac: string;
  platformConversions: string;
  platformRevenue: string;
  total: string;
}

/** Minor units -> "1234.56" (decimal point, no grouping: what spreadsheets read in any language). */
const amount = (minor: number | null) => (minor === null ? null : (Math.round(minor) / 100).toFixed(2));
const ratio = (value: number | null) => (value === null ? null : value.toFixed(2));
const orders = (value: number) => (isWholeNumber(value) ? String(Math.round(value)) : value.toFixed(4).replace(/0+$/, ''));

/**
 * The table as CSV: one line per row (a campaign row names its channel), then the totals; money as
 * decimals in the store's currency, named in the header.
 */
export function creditsCsv(rows: readonly (ChannelRow | CampaignRow)[], columns: CsvColumns, currency: string, channelName: (channel: string) => string): string {
  const header = [columns.channel, columns.campaign, `${columns.spend} (${currency})`, columns.orders, `${columns.revenue} (${currency})`, columns.roas, `${columns.cac} (${currency})`, columns.platformConversions, `${columns.platformRevenue} (${currency})`];
  const line = (channel: string, campaign: string, figures: CreditTotals | ChannelRow) =>
    [
      csvCell(channel),
      csvCell(campaign),
      ...[amount(figures.spendMinor), orders(figures.orders), amount(figures.revenueMinor), ratio(figures.roas), amount(figures.cac), ratio(figures.platformConversions), amount(figures.platformReportedRevenueMinor)].map((value) => value ?? ''),
    ].join(',');
  const lines = rows.map((row) => line(channelName(row.channel), 'campaign' in row ? row.campaign : '', row));
  return [header.map(csvCell).join(','), ...lines, line(columns.total, '', rowsTotals(rows))].join('\r\n') + '\r\n';
}

/** How long before the order a visit came: whole minutes under an hour, hours under two days, else days. */
export function gapBefore(visitAt: string, placedAt: string): { unit: 'minutes' | 'hours' | 'days'; count: number } {
  const minutes = Math.max(0, Math.floor((Date.parse(placedAt) - Date.parse(visitAt)) / 60_000));
  if (minutes < 60) return { unit: 'minutes', count: minutes };
  if (minutes < 48 * 60) return { unit: 'hours', count: Math.floor(minutes / 60) };
  return { unit: 'days', count: Math.floor(minutes / (24 * 60)) };
}
