import { ArrowDownRightIcon, ArrowRightIcon, ArrowUpRightIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { formatPercentChange, NO_VALUE } from '../../shared/metrics.ts';
import { Sparkline } from './chart.tsx';

export interface KpiCardProps {
  label: string;
  /** Already formatted by the caller ("£12,340", "3.25x"); null or undefined shows "—". */
  value: string | null | undefined;
  /** Change against the comparison period in percent (12.5 = +12.5 %); null when there is none to compute. */
  delta?: number | null;
  /** For costs (CAC, spend): a rise is shown in red, a fall in green. */
  lowerIsBetter?: boolean;
  /** The daily values of the range, drawn as a sparkline. */
  sparkline?: number[];
  /** A short explanation under the label. */
  hint?: string;
  /** What the delta compares with; defaults to "vs previous period". */
  comparisonLabel?: string;
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

/** One KPI: label, value, change against the comparison period and the daily shape. */
export function KpiCard({ label, value, delta, lowerIsBetter = false, sparkline, hint, comparisonLabel, testId = 'kpi-card' }: KpiCardProps) {
  const { t } = useTranslation('data');
  const hasValue = value !== null && value !== undefined && value !== NO_VALUE;
  const hasDelta = typeof delta === 'number' && Number.isFinite(delta);
  const tone = hasDelta ? deltaTone(delta, lowerIsBetter) : 'neutral';
  const DeltaIcon = hasDelta ? DIRECTION_ICON[directionOf(delta)] : null;
  const showSparkline = sparkline && sparkline.length > 1 && sparkline.some((point) => point !== 0);

  return (
    <article className="bg-base-100 border-base-content/10 rounded-box flex w-full min-w-0 flex-col border p-4 shadow-xs" data-testid={testId} aria-label={label}>
      <h3 className="text-base-content/80 truncate text-sm font-semibold">{label}</h3>
      {hint && (
        <p className="text-base-content/70 mt-0.5 truncate text-xs" title={hint}>
          {hint}
        </p>
      )}
      <p className="mt-3 truncate text-2xl font-semibold tracking-tight tabular-nums" data-testid="kpi-value">
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
      <div className="mt-2 flex min-h-6 flex-wrap items-center gap-x-2 gap-y-1 text-xs">
        {hasDelta && DeltaIcon ? (
          <span className={`badge badge-sm badge-soft gap-0.5 font-semibold tabular-nums ${TONE_CLASS[tone]}`} data-testid="kpi-delta" data-tone={tone}>
            <DeltaIcon className="size-3" aria-hidden="true" />
            {formatPercentChange(delta)}
          </span>
        ) : (
          <span className="badge badge-sm badge-ghost" data-testid="kpi-delta" data-tone="none">
            {NO_VALUE}
          </span>
        )}
        <span className="text-base-content/65">{comparisonLabel ?? t('kpi.vsPrevious')}</span>
      </div>
      {showSparkline && <Sparkline values={sparkline} ariaLabel={t('kpi.sparkline', { label })} className="-mx-1 mt-3" />}
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
