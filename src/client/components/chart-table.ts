import type { ApexOptions } from 'apexcharts';

/** The figures of a chart as a table: what a screen reader reads instead of the drawing. */
export interface ChartTable {
  /** The first column's heading (the category: day, hour, channel), then one per series. */
  headers: string[];
  rows: string[][];
}

type Formatter = (value: any, context?: any) => unknown;

function asFormatter(value: unknown): Formatter | undefined {
  return typeof value === 'function' ? (value as Formatter) : undefined;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Array.isArray(value) ? value.join(' ') : String(value);
}

/**
 * The table a chart's series and options describe, its values written as the chart's tooltip writes
 * them (else as its y axis does, else `formatNumber`), its categories as the x axis labels them:
 * - line, area, bar: a row per category (options.xaxis.categories, or each point's x), a column per series;
 * - donut, pie: a row per slice (options.labels) with its value.
 * A point without a value (null: an hour still to come) is left empty.
 */
export function chartTable(series: ApexOptions['series'], options: ApexOptions, categoryHeading: string, formatNumber: (value: number) => string): ChartTable {
  const tooltipY = Array.isArray(options.tooltip?.y) ? options.tooltip.y[0] : options.tooltip?.y;
  const yaxis = Array.isArray(options.yaxis) ? options.yaxis[0] : options.yaxis;
  const valueFormatter = asFormatter(tooltipY?.formatter) ?? asFormatter(yaxis?.labels?.formatter);
  const value = (raw: unknown): string => {
    if (raw === null || raw === undefined || (typeof raw === 'number' && !Number.isFinite(raw))) return '';
    if (typeof raw !== 'number') return text(raw);
    return valueFormatter ? text(valueFormatter(raw)) : formatNumber(raw);
  };
  const list = (series ?? []) as unknown[];
  if (list.every((entry) => typeof entry === 'number' || entry === null)) {
    const labels = options.labels ?? [];
    return { headers: [categoryHeading, ''], rows: list.map((entry, index) => [text(labels[index]), value(entry)]) };
  }
  const named = list as { name?: string; data: unknown[] }[];
  const categoryFormatter = asFormatter(options.xaxis?.labels?.formatter);
  const categories: unknown[] = options.xaxis?.categories ?? named[0]?.data.map((point) => (point && typeof point === 'object' && 'x' in point ? (point as { x: unknown }).x : '')) ?? [];
  const rowCount = Math.max(categories.length, ...named.map((entry) => entry.data.length));
  const rows: string[][] = [];
  for (let index = 0; index < rowCount; index += 1) {
    const category = categories[index];
    const label = categoryFormatter && category !== undefined ? text(categoryFormatter(category as never)) : text(category);
    rows.push([
      label,
      ...named.map((entry) => {
        const point = entry.data[index];
        return value(point && typeof point === 'object' && 'y' in point ? (point as { y: unknown }).y : point);
      }),
    ]);
  }
  return { headers: [categoryHeading, ...named.map((entry) => entry.name ?? '')], rows };
}

/**
 * A one-line account of a daily series for a sparkline, whose table would be too long to listen to:
 * its first and last values and its lowest and highest ("from £120 to £340, lowest £80, highest £410").
 */
export function seriesSummary(values: number[], format: (value: number) => string): { first: string; last: string; lowest: string; highest: string } | null {
  const known = values.filter((point) => Number.isFinite(point));
  if (known.length === 0) return null;
  return {
    first: format(known[0]!),
    last: format(known.at(-1)!),
    lowest: format(Math.min(...known)),
    highest: format(Math.max(...known)),
  };
}
