import { ArrowDownRightIcon, ArrowRightIcon, ArrowUpRightIcon, ChevronRightIcon, HourglassIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { NO_VALUE } from '../../shared/metrics.ts';
import { formatChange } from '../lib/figure-format.ts';
import { seriesSummary } from './chart-table.ts';
import { Sparkline } from './chart.tsx';

export interface KpiCardProps {
  label: string;
  /** Already formatted by the caller ("£12,340", "3.25×"); null or undefined shows "—". */
  value: string | null | undefined;
  /** Change against the comparison period in percent (12.5 = +12.5 %); null when there is none to compute. */
  delta?: number | null;
  /** For costs (CAC, spend): a rise is shown in red, a fall in green. */
  lowerIsBetter?: boolean;
  /** The values of the range (per day, or per hour for one day), drawn as a sparkline. */
  sparkline?: number[];
  /** What one point of the sparkline is. */
  sparklineUnit?: 'day' | 'hour';
  /** Writes a sparkline point for its text alternative (the card's value format); plain numbers by default. */
  formatPoint?: (value: number) => string;
  /** A short explanation under the label. */
  hint?: string;
  /** A caveat that matters more than the hint (shown in its place, marked): e.g. customers too recent to judge. */
  note?: string;
  /** What the delta compares with; defaults to "vs previous period". */
  comparisonLabel?: string;
  /** The comparison period's value, in words ("Previous period: £9,870"): a tooltip on the change. */
  previous?: string;
  /** False for a figure that has no comparison period (a current state, e.g. the model in use): no change row. */
  comparable?: boolean;
  /** Where the card leads (the analytics view of the metric): the whole card is then a link. */
  href?: string;
  testId?: string;
}

type Direction = 'up' | 'down' | 'flat';

function directionOf(percent: number): Direction {
  const rounded = Number(percent.toFixed(1));
  if (rounded > 0) return 'up';
  if (rounded < 0) return 'down';
  return 'flat';
}

/** Green for a change in the good direction, red for the bad one, grey for none. */
export function deltaTone(percent: number, lowerIsBetter = false): 'good' | 'bad' | 'neutral' {
  const direction = directionOf(percent);
  if (direction === 'flat') return 'neutral';
  return (direction === 'up') !== lowerIsBetter ? 'good' : 'bad';
}

const TONE_CLASS = {
  good: 'badge-success',
  bad: 'badge-error',
  neutral: 'badge-ghost',
} as const;

const DIRECTION_ICON = { up: ArrowUpRightIcon, down: ArrowDownRightIcon, flat: ArrowRightIcon } as const;

/**
 * One KPI: label, value, change against the comparison period (the previous value in a tooltip) and
 * the shape of the range. With `href`, the label is a link stretched over the card (click anywhere);
 * the sparkline stays its own tab stop above it.
 */
export function KpiCard({
  label,
  value,
  delta,
  lowerIsBetter = false,
  sparkline,
  sparklineUnit = 'day',
  formatPoint,
  hint,
  note,
  comparisonLabel,
  previous,
  comparable = true,
  href,
  testId = 'kpi-card',
}: KpiCardProps) {
  const { t, i18n } = useTranslation('data');
  const locale = i18n.resolvedLanguage ?? 'en';
  const hasValue = value !== null && value !== undefined && value !== NO_VALUE;
  const hasDelta = typeof delta === 'number' && Number.isFinite(delta);
  const tone = hasDelta ? deltaTone(delta, lowerIsBetter) : 'neutral';
  const DeltaIcon = hasDelta ? DIRECTION_ICON[directionOf(delta)] : null;
  const showSparkline = sparkline && sparkline.length > 1 && sparkline.some((point) => point !== 0);
  const pointFormat = formatPoint ?? ((point: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(point));
  const summary = showSparkline ? seriesSummary(sparkline, pointFormat) : null;

  return (
    <article
      className={`group/card bg-base-100 border-base-content/10 rounded-box relative flex w-full min-w-0 flex-col border p-4 shadow-xs ${href ? 'hover:border-primary/40 focus-within:border-primary/40 transition-colors' : ''}`}
      data-testid={testId}
      aria-label={label}
    >
      <h3 className="text-base-content/80 flex items-start justify-between gap-1 text-sm leading-snug font-semibold break-words hyphens-auto" lang={locale}>
        {href ? (
          <Link href={href} className="min-w-0 after:absolute after:inset-0 after:rounded-box focus-visible:outline-none after:focus-visible:outline-2 after:focus-visible:outline-primary" data-testid="kpi-link">
            {label}
            <span className="sr-only">{t('kpi.openAnalytics')}</span>
          </Link>
        ) : (
          <span className="min-w-0">{label}</span>
        )}
        {href && <ChevronRightIcon className="text-base-content/40 mt-0.5 size-4 shrink-0" aria-hidden="true" />}
      </h3>
      {note ? (
        <p className="text-base-content/80 bg-warning/10 border-warning/30 rounded-field mt-1 flex items-start gap-1 border px-1.5 py-0.5 text-xs leading-snug" data-testid="kpi-note">
          <HourglassIcon className="text-warning mt-0.5 size-3 shrink-0" aria-hidden="true" />
          <span>{note}</span>
        </p>
      ) : (
        hint && <p className="text-base-content/70 mt-0.5 text-xs leading-snug break-words">{hint}</p>
      )}
      <p className="mt-3 text-xl font-semibold tracking-tight break-words tabular-nums sm:text-2xl" data-testid="kpi-value">
        {hasValue ? (
          value
        ) : (
          <>
            <span aria-hidden="true" className="text-base-content/45">
              {NO_VALUE}
            </span>
            <span className="sr-only">{t('kpi.noValue')}</span>
          </>
        )}
      </p>
      {/* Above the stretched link, so that hovering the change shows the previous value. */}
      {comparable && (
        <div className="group/delta relative z-20 mt-2 flex min-h-6 flex-wrap items-center gap-x-2 gap-y-1 text-xs">
          {hasDelta && DeltaIcon ? (
            <span className={`badge badge-sm badge-soft gap-0.5 font-semibold whitespace-nowrap tabular-nums ${TONE_CLASS[tone]}`} data-testid="kpi-delta" data-tone={tone}>
              <DeltaIcon className="size-3" aria-hidden="true" />
              {formatChange(delta, locale)}
            </span>
          ) : (
            <span className="badge badge-sm badge-ghost" data-testid="kpi-delta" data-tone="none">
              {NO_VALUE}
            </span>
          )}
          <span className="text-base-content/65">{comparisonLabel ?? t('kpi.vsPrevious')}</span>
          {previous && (
            <>
              <span className="sr-only">{previous}</span>
              {/* Shown on hover (or while the card's link has focus), as wide as the card and no wider: not
                  rendered otherwise, so it never widens a phone's page. */}
              <span
                aria-hidden="true"
                className="bg-neutral text-neutral-content rounded-field pointer-events-none absolute inset-x-0 top-full z-20 mt-1 hidden px-2 py-1 text-xs leading-snug shadow-md group-hover/delta:block group-focus-within/card:block"
                data-testid="kpi-previous"
              >
                {previous}
              </span>
            </>
          )}
        </div>
      )}
      {showSparkline && summary && (
        <Sparkline
          values={sparkline}
          ariaLabel={t(sparklineUnit === 'hour' ? 'kpi.sparklineHourly' : 'kpi.sparkline', { label })}
          summary={t('kpi.sparklineSummary', summary)}
          className="relative z-10 -mx-1 mt-3"
        />
      )}
    </article>
  );
}

/**
 * A KPI's money value from minor units, in the user's language: whole units from 1,000 up (the
 * cents add nothing on a dashboard card), two decimals below ("£12,340", "£48.25").
 */
export function formatKpiMoney(amountMinor: number | null | undefined, currency: string, locale: string): string | null {
  if (typeof amountMinor !== 'number' || !Number.isFinite(amountMinor)) return null;
  const amount = amountMinor / 100;
  const digits = Math.abs(amount) >= 1_000 ? 0 : 2;
  return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
}

/** A count in the user's language ("12,345"), or null. */
export function formatKpiCount(value: number | null | undefined, locale: string): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);
}

/** The name of a sales channel or platform key ("googleads" -> "Google Ads", "organic_search" -> "Organic search"). */
export function useChannelName(): (channel: string) => string {
  const { t } = useTranslation('data');
  return (channel: string) => t(`channels.${channel}`, { defaultValue: channel });
}
