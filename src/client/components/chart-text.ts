import { escapeHtml } from '../../shared/html.ts';
import type { ApexOptions } from 'apexcharts';

/**
 * ApexCharts writes some texts into the page as HTML (innerHTML), others as SVG text nodes:
 * - HTML: the legend (legend.formatter's result), the tooltip title (tooltip.x.formatter's result,
 *   or by default the axis label formatter's), each tooltip row's series name (tooltip.y.title.formatter)
 *   and value (tooltip.y.formatter), the x-axis tooltip (xaxis.tooltip.formatter, or the tooltip title),
 *   tooltip.z, legend.tooltipHoverFormatter;
 * - SVG text (shown literally, safe): axis labels, data labels, the donut's centre labels.
 * Store, product and campaign names come from users and platforms, so a name such as
 * `<img src=x onerror=...>` would run in the page (stored HTML injection). `withEscapedText` routes
 * every HTML sink through a formatter that escapes its result, and leaves the SVG ones alone (escaped
 * there, "&lt;" would be shown as such). Read in ApexCharts 7.6 src/modules/legend/Legend.js,
 * src/modules/tooltip/Labels.js (DOMHandling, getValuesToPrint) and src/modules/Formatters.js.
 */

export { escapeHtml };

// ApexCharts calls formatters with (value, context) and accepts a string or an array of lines.
type Formatter = (value: any, context?: any) => any;

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Array.isArray(value) ? value.join(' ') : String(value);
}

const identity: Formatter = (value) => value;

/** The formatter's result, escaped: what ApexCharts then puts into innerHTML shows as text. */
function escaping(formatter: Formatter | undefined): (value: any, context?: any) => string {
  const inner = formatter ?? identity;
  return (value, context) => escapeHtml(asText(inner(value, context)));
}

type YTooltip = NonNullable<NonNullable<ApexOptions['tooltip']>['y']>;
type YTooltipEntry = Exclude<YTooltip, readonly unknown[]>;

function escapedYTooltip(entry: YTooltipEntry | undefined): YTooltipEntry {
  const title = entry?.title?.formatter as Formatter | undefined;
  return {
    ...entry,
    formatter: escaping(entry?.formatter as Formatter | undefined),
    // ApexCharts' own default title: "Name: " before the value.
    title: { ...entry?.title, formatter: escaping(title ?? ((name: unknown) => (name ? `${asText(name)}: ` : ''))) },
  };
}

function firstOf<T>(value: T | T[] | undefined): T | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The tooltip title as ApexCharts would write it without tooltip.x.formatter (the category through the
 * axis label formatter: the y axis of a horizontal bar chart, else the x axis), escaped.
 */
function tooltipTitle(options: ApexOptions): (value: any, context?: any) => string {
  const own = options.tooltip?.x?.formatter as Formatter | undefined;
  if (own) return escaping(own);
  const horizontal = options.plotOptions?.bar?.horizontal === true;
  const axisFormatter = (horizontal ? firstOf(options.yaxis)?.labels?.formatter : options.xaxis?.labels?.formatter) as Formatter | undefined;
  return escaping(axisFormatter);
}

/** The options with every text ApexCharts writes as HTML escaped (see above); nothing else changes. */
export function withEscapedText(options: ApexOptions): ApexOptions {
  const tooltip = options.tooltip ?? {};
  const legend = options.legend ?? {};
  const xaxisTooltip = options.xaxis?.tooltip;
  // A datetime axis formats its timestamps itself (numbers, no names): its title is left to ApexCharts.
  const datetime = options.xaxis?.type === 'datetime' && !tooltip.x?.formatter;
  return {
    ...options,
    tooltip: {
      ...tooltip,
      ...(datetime ? {} : { x: { ...tooltip.x, formatter: tooltipTitle(options) } }),
      y: (Array.isArray(tooltip.y) ? tooltip.y.map(escapedYTooltip) : escapedYTooltip(tooltip.y)) as NonNullable<ApexOptions['tooltip']>['y'],
      ...(tooltip.z?.formatter ? { z: { ...tooltip.z, formatter: escaping(tooltip.z.formatter as Formatter) } } : {}),
    },
    legend: {
      ...legend,
      formatter: escaping(legend.formatter as Formatter | undefined),
      ...(legend.tooltipHoverFormatter ? { tooltipHoverFormatter: escaping(legend.tooltipHoverFormatter as Formatter) } : {}),
    },
    ...(xaxisTooltip?.formatter
      ? { xaxis: { ...options.xaxis, tooltip: { ...xaxisTooltip, formatter: escaping(xaxisTooltip.formatter as Formatter) } } }
      : {}),
  };
}
