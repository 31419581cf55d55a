import type ApexCharts from 'apexcharts';
import type { ApexOptions } from 'apexcharts';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCompactNumber } from '../lib/format.ts';
import { chartTable, type ChartTable } from './chart-table.ts';
import { withEscapedText } from './chart-text.ts';

/** The types apexcharts-build.ts registers. */
export type ChartType = 'line' | 'area' | 'bar' | 'donut';

export interface ChartProps {
  type: ChartType;
  series: ApexOptions['series'];
  /**
   * Merged over the defaults (theme colours, fonts, grid, locale-aware axis numbers). Memoise it
   * (useMemo): a new object draws the chart afresh with exactly these options (nothing of the
   * previous set survives).
   */
  options?: ApexOptions;
  height?: number;
  /** What the chart shows, for screen readers (the drawing itself is hidden from them). */
  ariaLabel: string;
  /**
   * The text alternative read instead of the drawing: a one-line summary (sparklines), else a
   * visually hidden table of the figures (by default built from the series and the options).
   */
  summary?: string;
  /** The heading of the hidden table's first column ("Day", "Hour", "Channel"). */
  categoryHeading?: string;
  className?: string;
  testId?: string;
}

let apexCharts: Promise<typeof import('./apexcharts-build.ts')> | null = null;

/**
 * The chart library (its own chunk), requested once. Pages with charts above the fold call it as soon
 * as their own chunk runs, so it downloads in parallel with their data rather than after it.
 */
export function loadApexCharts(): Promise<typeof import('./apexcharts-build.ts')> {
  apexCharts ??= import('./apexcharts-build.ts').catch((error: unknown) => {
    apexCharts = null; // a failed download is tried again by the next chart
    throw error;
  });
  return apexCharts;
}

/** The daisyUI theme colours the charts draw with, in series order. */
const PALETTE_VARIABLES = ['--color-primary', '--color-info', '--color-secondary', '--color-success', '--color-accent', '--color-warning'];

interface ThemeColours {
  mode: 'light' | 'dark';
  palette: string[];
  text: string;
  mutedText: string;
  grid: string;
}

let paintCanvas: CanvasRenderingContext2D | null | undefined;

/**
 * A CSS colour as "r, g, b". The theme's colours are oklch(), which ApexCharts cannot shade, so the
 * browser paints one pixel and we read it back in sRGB.
 */
function rgbOf(cssColour: string): string {
  paintCanvas ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  if (!paintCanvas || !cssColour) return '128, 128, 128';
  paintCanvas.clearRect(0, 0, 1, 1);
  paintCanvas.fillStyle = '#808080';
  paintCanvas.fillStyle = cssColour;
  paintCanvas.fillRect(0, 0, 1, 1);
  const [r, g, b] = paintCanvas.getImageData(0, 0, 1, 1).data;
  return `${r}, ${g}, ${b}`;
}

function readThemeColours(): ThemeColours {
  const root = document.documentElement;
  const style = getComputedStyle(root);
  const variable = (name: string) => rgbOf(style.getPropertyValue(name).trim());
  const text = variable('--color-base-content');
  return {
    mode: root.dataset.theme === 'dark' ? 'dark' : 'light',
    palette: PALETTE_VARIABLES.map((name) => `rgb(${variable(name)})`),
    text: `rgba(${text}, 0.85)`,
    mutedText: `rgba(${text}, 0.65)`,
    grid: `rgba(${text}, 0.1)`,
  };
}

/** The theme's colours, read again whenever the light/dark theme switches (data-theme on <html>). */
function useThemeColours(): ThemeColours | null {
  const [colours, setColours] = useState<ThemeColours | null>(null);
  useEffect(() => {
    // Read after the theme provider has applied the theme (its effect runs after ours on a switch).
    const update = () => setColours(readThemeColours());
    update();
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class'] });
    return () => observer.disconnect();
  }, []);
  return colours;
}

type PlainObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** `override` over `base`, objects merged key by key; arrays and other values replace. */
function mergeOptions<T extends PlainObject>(base: T, override: PlainObject | undefined): T {
  if (!override) return base;
  const merged: PlainObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    merged[key] = isPlainObject(value) && isPlainObject(merged[key]) ? mergeOptions(merged[key] as PlainObject, value) : value;
  }
  return merged as T;
}

/** Axis numbers: in the user's language below 10,000, in the compact form of the spec above ("12k", "1.25m"). */
function axisNumberFormatter(locale: string): (value: number) => string {
  const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  return (value: number) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return '';
    return Math.abs(value) >= 10_000 ? formatCompactNumber(value) : plain.format(value);
  };
}

function prefersReducedMotion(): boolean {
  return typeof window !== 'undefined' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

function defaultOptions(type: ChartType, height: number, colours: ThemeColours, locale: string, noDataText: string): ApexOptions {
  const formatNumber = axisNumberFormatter(locale);
  const circular = type === 'donut';
  return {
    chart: {
      type,
      height,
      // ApexCharts' own keyboard support makes the drawing and every legend entry a tab stop (one
      // per series); the wrapper is the chart's one tab stop and carries its text alternative.
      accessibility: { enabled: false },
      fontFamily: 'inherit',
      foreColor: colours.mutedText,
      background: 'transparent',
      toolbar: { show: false },
      zoom: { enabled: false },
      animations: { enabled: !prefersReducedMotion() },
      parentHeightOffset: 0,
    },
    theme: { mode: colours.mode },
    colors: colours.palette,
    dataLabels: { enabled: false },
    stroke: circular ? { width: 2, colors: ['transparent'] } : { curve: 'monotoneCubic', width: type === 'line' || type === 'area' ? 2.5 : 0 },
    fill: type === 'area' ? { type: 'gradient', gradient: { shadeIntensity: 1, opacityFrom: 0.35, opacityTo: 0.02, stops: [0, 95] } } : {},
    grid: { borderColor: colours.grid, strokeDashArray: 4, padding: { left: 8, right: 8 } },
    legend: { position: circular ? 'bottom' : 'top', horizontalAlign: 'left', labels: { colors: colours.text }, fontSize: '12px' },
    tooltip: { theme: colours.mode, y: { formatter: (value: number) => formatNumber(value) } },
    xaxis: { axisBorder: { show: false }, axisTicks: { show: false }, labels: { hideOverlappingLabels: true, rotate: 0, trim: true } },
    yaxis: circular ? {} : { labels: { formatter: formatNumber } },
    noData: { text: noDataText, style: { color: colours.mutedText } },
    plotOptions: { bar: { borderRadius: 4, columnWidth: '60%' } },
    states: { active: { filter: { type: 'none' } } },
  };
}

/**
 * The one chart of the app: ApexCharts, loaded on first use (its own chunk), drawn in the theme's
 * colours and redrawn when the series, options, theme or language change.
 */
export function Chart({ type, series, options, height = 300, ariaLabel, summary, categoryHeading, className = '', testId }: ChartProps) {
  const { t, i18n } = useTranslation('data');
  const locale = i18n.resolvedLanguage ?? 'en';
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<ApexCharts | null>(null);
  // data-chart-status: "loading" until the first drawing, "drawing" while a later one (new series,
  // options, theme or language) is under way, "ready" once what is on screen matches the props.
  const [status, setStatus] = useState<'loading' | 'drawing' | 'ready' | 'error'>('loading');
  const colours = useThemeColours();
  const noDataText = t('chart.noData');

  // Series are compared by content: callers usually build them inline.
  const seriesKey = JSON.stringify(series);
  const config = useMemo(() => {
    if (!colours) return null;
    // Names of stores, products and campaigns reach the legend and tooltips, which ApexCharts writes as HTML.
    return withEscapedText(mergeOptions(defaultOptions(type, height, colours, locale, noDataText) as PlainObject, options as PlainObject | undefined) as ApexOptions);
  }, [type, height, colours, locale, noDataText, options]);
  /** The options the drawing was made with: new series alone update it, new options draw it afresh. */
  const drawnConfig = useRef<ApexOptions | null>(null);

  useEffect(() => {
    if (!config) return;
    const seriesData = JSON.parse(seriesKey) as ApexOptions['series'];
    let cancelled = false;
    setStatus((current) => (current === 'loading' ? 'loading' : 'drawing'));
    loadApexCharts()
      .then(async ({ default: ApexChartsClass }) => {
        if (cancelled || !container.current) return;
        if (chart.current && drawnConfig.current === config) {
          // Also marks ready when new series arrive while the first drawing is still under way.
          await chart.current.updateSeries(seriesData ?? [], true);
        } else {
          // ApexCharts merges updateOptions() into the options it holds, so an option the new set
          // leaves out (a formatter, an offset of the phone layout) would survive: draw afresh.
          chart.current?.destroy();
          const instance = new ApexChartsClass(container.current, { ...config, series: seriesData });
          chart.current = instance;
          drawnConfig.current = config;
          await instance.render();
        }
        if (!cancelled) setStatus('ready');
      })
      .catch(() => {
        if (!cancelled) setStatus('error');
      });
    return () => {
      cancelled = true;
    };
  }, [config, seriesKey]);

  useEffect(
    () => () => {
      chart.current?.destroy();
      chart.current = null;
    },
    [],
  );

  const descriptionId = useId();
  const table = useMemo<ChartTable | null>(
    () => (summary === undefined ? chartTable(JSON.parse(seriesKey) as ApexOptions['series'], options ?? {}, categoryHeading ?? '', axisNumberFormatter(locale)) : null),
    [summary, seriesKey, options, categoryHeading, locale],
  );
  return (
    // One tab stop per chart: focus lands here and a screen reader reads the label, then the summary or table.
    // A div with the figure role: daisyUI's .card lays out <figure> as a centred flex box, which shrank the drawing.
    <div
      role="figure"
      className={`relative rounded-box focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary ${className}`}
      style={{ minHeight: height }}
      tabIndex={0}
      aria-label={ariaLabel}
      aria-describedby={summary !== undefined ? descriptionId : undefined}
      data-testid={testId}
      data-chart-status={status}
    >
      <div ref={container} aria-hidden="true" />
      {summary !== undefined ? (
        <p id={descriptionId} className="sr-only" data-testid="chart-summary">
          {summary}
        </p>
      ) : (
        table && (
          // sr-only on a wrapper: a table grows to its content whatever its own width, and widened the page.
          <div className="sr-only">
            <table data-testid="chart-table">
              <caption>{ariaLabel}</caption>
              <thead>
                <tr>
                  {table.headers.map((header, index) => (
                    <th key={index} scope="col">
                      {header}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {table.rows.map((row, rowIndex) => (
                  <tr key={rowIndex}>
                    {row.map((cell, cellIndex) =>
                      cellIndex === 0 ? (
                        <th key={cellIndex} scope="row">
                          {cell}
                        </th>
                      ) : (
                        <td key={cellIndex}>{cell}</td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      )}
      {status === 'loading' && <div className="skeleton absolute inset-0 rounded-box opacity-60" aria-hidden="true" />}
      {status === 'error' && (
        <p className="text-base-content/70 absolute inset-0 grid place-items-center text-sm">{t('chart.failed')}</p>
      )}
    </div>
  );
}

const SPARKLINE_OPTIONS: ApexOptions = {
  chart: { sparkline: { enabled: true }, animations: { enabled: false } },
  stroke: { width: 1.75 },
  tooltip: { enabled: false },
  fill: { type: 'gradient', gradient: { opacityFrom: 0.3, opacityTo: 0, stops: [0, 100] } },
  states: { hover: { filter: { type: 'none' } } },
};

const SPARKLINE_HEIGHT = 40;

/** A small area chart without axes, grid or tooltip: the shape of a daily series, with a one-line summary for screen readers. */
export function Sparkline({ values, ariaLabel, summary, className = '' }: { values: number[]; ariaLabel: string; summary: string; className?: string }) {
  return <Chart type="area" series={[{ name: ariaLabel, data: values }]} options={SPARKLINE_OPTIONS} height={SPARKLINE_HEIGHT} ariaLabel={ariaLabel} summary={summary} className={className} />;
}
