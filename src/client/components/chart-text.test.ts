import type { ApexOptions } from 'apexcharts';
import { describe, expect, it } from 'vitest';
import { escapeHtml, withEscapedText } from './chart-text.ts';

const HOSTILE = '<img src=x onerror=window.__xss=1>';
const SHOWN = '&lt;img src=x onerror=window.__xss=1&gt;';

type Formatter = (value: any, context?: any) => string;
const call = (formatter: unknown, value: unknown, context?: unknown) => (formatter as Formatter)(value, context);
const yEntry = (options: ApexOptions, index = 0) => (Array.isArray(options.tooltip!.y) ? options.tooltip!.y[index]! : options.tooltip!.y!);

/** The HTML sinks of ApexCharts for a category / series name, as the wrapper leaves them. */
function htmlSinks(options: ApexOptions, name: string) {
  return {
    tooltipTitle: call(options.tooltip!.x!.formatter, name, { dataPointIndex: 0, seriesIndex: 0 }),
    seriesName: call(yEntry(options).title!.formatter, name),
    legend: call(options.legend!.formatter, name, { seriesIndex: 0 }),
  };
}

// The options of each chart of the app that shows a user's or platform's text, as its page builds them
// (the wrapper's defaults add tooltip.y.formatter for the numbers).
const number = (value: number) => value.toFixed(2);
const CHARTS: Record<string, ApexOptions> = {
  // /dashboards: horizontal bars, one per store (store names), value axis compact.
  'dashboards stores': {
    plotOptions: { bar: { horizontal: true } },
    xaxis: { categories: [HOSTILE, 'Plain shop'], labels: { formatter: (value: string) => `£${value}` } },
    yaxis: { labels: { maxWidth: 140, formatter: (value: number | string) => String(value) } },
    tooltip: { shared: true, intersect: false, y: { formatter: number } },
  },
  // /reports: bars by product or campaign name.
  'reports by product': { xaxis: { categories: [HOSTILE], labels: { rotate: -45 } }, tooltip: { y: { formatter: number } } },
  // /performance-distribution: campaign names, a column and a line on two axes.
  'performance distribution': {
    xaxis: { categories: [HOSTILE], labels: { trim: true }, tooltip: { enabled: false } },
    yaxis: [{ labels: { formatter: number } }, { opposite: true, labels: { formatter: number } }],
    tooltip: { shared: true, intersect: false, y: { formatter: (value: number, context?: { seriesIndex?: number }) => (context?.seriesIndex === 1 ? `${value}%` : number(value)) } },
  },
  // /revenue: a donut of channels (labels).
  'revenue channels donut': { labels: [HOSTILE, 'Direct'], legend: { position: 'bottom' }, tooltip: { y: { formatter: number } } },
  // /dashboard, /revenue, /analytics, ads: day categories with an axis formatter, series named by us.
  'daily trend': { xaxis: { categories: ['2026-03-01'], labels: { formatter: (value: string) => (value ? `day ${value}` : '') } }, tooltip: { shared: true, y: { formatter: number } } },
};

describe('chart texts written as HTML', () => {
  it('escapes the five characters HTML gives a meaning', () => {
    expect(escapeHtml(`${HOSTILE} & "quotes" 'too'`)).toBe(`${SHOWN} &amp; &quot;quotes&quot; &#39;too&#39;`);
  });

  it.each(Object.entries(CHARTS))('%s: a hostile name reaches the tooltip title, the tooltip rows and the legend only as text', (_chart, options) => {
    const safe = withEscapedText(options);
    const sinks = htmlSinks(safe, HOSTILE);
    // Through the page's own axis formatter first (the daily trend prefixes "day "), then escaped.
    const axisFormatter = options.plotOptions?.bar?.horizontal ? (options.yaxis as ApexYAxisLike).labels?.formatter : options.xaxis?.labels?.formatter;
    expect(sinks.tooltipTitle).toBe(axisFormatter ? escapeHtml(String(axisFormatter(HOSTILE as never))) : SHOWN);
    expect(sinks.seriesName).toBe(`${SHOWN}: `);
    expect(sinks.legend).toBe(SHOWN);
    for (const text of Object.values(sinks)) expect(text).not.toContain('<');
  });

  it('keeps what the pages format: numbers, day labels, their own tooltip titles, and the SVG axis labels as they are', () => {
    const trend = withEscapedText(CHARTS['daily trend']!);
    expect(call(trend.tooltip!.x!.formatter, '2026-03-01')).toBe('day 2026-03-01');
    expect(call(yEntry(trend).formatter, 1234.5)).toBe('1234.50');
    expect(call(yEntry(trend).title!.formatter, 'Net sales')).toBe('Net sales: ');
    // Axis labels are SVG text nodes (shown literally): left to the page, unescaped.
    expect(trend.xaxis!.labels!.formatter).toBe(CHARTS['daily trend']!.xaxis!.labels!.formatter);
    const stores = withEscapedText(CHARTS['dashboards stores']!);
    expect(call((stores.yaxis as ApexYAxisLike).labels!.formatter, HOSTILE)).toBe(HOSTILE);
    expect(stores.xaxis!.categories).toEqual([HOSTILE, 'Plain shop']);

    const pareto = withEscapedText(CHARTS['performance distribution']!);
    expect(call(yEntry(pareto).formatter, 42, { seriesIndex: 1 })).toBe('42%');
    expect(pareto.xaxis!.tooltip).toEqual({ enabled: false });

    // A page's own tooltip title or legend formatter still decides the words; they are escaped after it.
    const own = withEscapedText({
      tooltip: { x: { formatter: (_value: number, context?: { dataPointIndex?: number }) => `${HOSTILE} #${context?.dataPointIndex}` }, y: [{ formatter: number, title: { formatter: (name: string) => `${name} =` } }] },
      legend: { formatter: (name: string) => [name, '(shop)'] as unknown as string },
      xaxis: { tooltip: { formatter: (value: string) => `at ${value}` } },
    });
    expect(call(own.tooltip!.x!.formatter, 0, { dataPointIndex: 3 })).toBe(`${SHOWN} #3`);
    expect(call(yEntry(own).title!.formatter, HOSTILE)).toBe(`${SHOWN} =`);
    expect(call(own.legend!.formatter, HOSTILE)).toBe(`${SHOWN} (shop)`);
    expect(call(own.xaxis!.tooltip!.formatter, HOSTILE)).toBe(`at ${SHOWN}`);
  });

  it('leaves the tooltip title of a datetime axis (timestamps, no names) to ApexCharts', () => {
    const dated = withEscapedText({ xaxis: { type: 'datetime' }, legend: {} });
    expect(dated.tooltip!.x).toBeUndefined();
    expect(call(dated.legend!.formatter, HOSTILE)).toBe(SHOWN);
  });
});

type ApexYAxisLike = { labels?: { formatter?: (value: number) => string } };
