import { CalendarDaysIcon } from 'lucide-react';
import { useCallback, useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { COMPARISONS, type Comparison } from '../../shared/commerce-constants.ts';
import {
  comparisonRange,
  dayInZone,
  DEFAULT_RANGE_PRESET,
  presetOf,
  presetRange,
  RANGE_PRESETS,
  rangeProblem,
  type DayRange,
  type RangePreset,
} from '../../shared/date-ranges.ts';
import { useStores } from '../lib/use-access.ts';

const DEFAULT_COMPARISON: Comparison = 'previous_period';

/** Today in the active store's time zone (the browser's until the store is known). */
export function useStoreToday(): string {
  const { activeStore } = useStores();
  const timeZone = activeStore?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return dayInZone(new Date(), timeZone);
}

function isComparison(value: string | null): value is Comparison {
  return (COMPARISONS as readonly string[]).includes(value ?? '');
}

/** Where the last range chosen in this tab is kept, for screens opened without one in their URL. */
const LAST_RANGE_KEY = 'storepulse.dateRange';

function lastRangeQuery(): string {
  try {
    return window.sessionStorage.getItem(LAST_RANGE_KEY) ?? '';
  } catch {
    return '';
  }
}

function rememberRangeQuery(query: string): void {
  try {
    window.sessionStorage.setItem(LAST_RANGE_KEY, query);
  } catch {
    // Storage blocked: screens opened from the menu start at the default range.
  }
}

/**
 * The range and comparison a query string asks for. Without a valid one: the range last chosen in
 * this tab (`fallback`, a query string too), else the default preset.
 */
export function rangeFromSearch(search: string, today: string, fallback = ''): DayRange & { compare: Comparison } {
  const params = new URLSearchParams(search);
  const compareParam = params.get('compare');
  const from = params.get('from');
  const to = params.get('to');
  if (rangeProblem(from, to) === null) return { from: from!, to: to!, compare: isComparison(compareParam) ? compareParam : DEFAULT_COMPARISON };
  if (fallback) {
    const remembered = rangeFromSearch(fallback, today);
    return params.has('compare') && isComparison(compareParam) ? { ...remembered, compare: compareParam } : remembered;
  }
  return { ...presetRange(DEFAULT_RANGE_PRESET, today), compare: isComparison(compareParam) ? compareParam : DEFAULT_COMPARISON };
}

export interface DateRangeState extends DayRange {
  compare: Comparison;
  /** The preset these days match today, or 'custom'. */
  preset: RangePreset | 'custom';
  /** The period compared with, or null for 'none'. */
  previous: DayRange | null;
  setPreset: (preset: RangePreset) => void;
  setRange: (range: DayRange) => void;
  setCompare: (compare: Comparison) => void;
}

/**
 * The date range of every data screen, kept in the URL query (?from&to&compare) so a reload or a
 * shared link shows the same days; a screen opened from the menu (no query) starts at the range
 * last chosen in this tab, so every screen reads the same days.
 */
export function useDateRange(): DateRangeState {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const today = useStoreToday();
  const { from, to, compare } = rangeFromSearch(search, today, lastRangeQuery());

  const write = useCallback(
    (changes: Partial<DayRange & { compare: Comparison }>) => {
      const params = new URLSearchParams(search);
      const next = { from, to, compare, ...changes };
      params.set('from', next.from);
      params.set('to', next.to);
      params.set('compare', next.compare);
      rememberRangeQuery(new URLSearchParams(next).toString());
      navigate(`${location}?${params.toString()}`, { replace: true });
    },
    [search, location, navigate, from, to, compare],
  );

  return useMemo(
    () => ({
      from,
      to,
      compare,
      preset: presetOf({ from, to }, today),
      previous: comparisonRange({ from, to }, compare),
      setPreset: (preset: RangePreset) => write(presetRange(preset, today)),
      setRange: (range: DayRange) => write(range),
      setCompare: (next: Comparison) => write({ compare: next }),
    }),
    [from, to, compare, today, write],
  );
}

/** "vs previous period", "vs previous year" or "no comparison": the KPI cards' caption for the chosen comparison. */
export function useComparisonLabel(): string {
  const { t } = useTranslation('data');
  const { compare } = useDateRange();
  if (compare === 'previous_year') return t('kpi.vsPreviousYear');
  if (compare === 'none') return t('kpi.noComparison');
  return t('kpi.vsPrevious');
}

/** "1 Mar 2026 – 30 Mar 2026" in the user's language; one date for a one-day range. */
export function formatDayRange(range: DayRange, locale: string): string {
  const format = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const start = new Date(`${range.from}T00:00:00Z`);
  if (range.from === range.to) return format.format(start);
  return format.formatRange(start, new Date(`${range.to}T00:00:00Z`));
}

/** Presets, a custom from/to (validated like the server does) and the comparison; state in the URL. */
export function DateRangePicker() {
  const { t, i18n } = useTranslation('data');
  const range = useDateRange();
  const id = useId();
  const [customOpen, setCustomOpen] = useState(range.preset === 'custom');
  const [draft, setDraft] = useState<DayRange>({ from: range.from, to: range.to });
  const [submitted, setSubmitted] = useState(false);

  // A new range from elsewhere (a preset, back/forward) refreshes the custom inputs.
  useEffect(() => {
    setDraft({ from: range.from, to: range.to });
    setSubmitted(false);
  }, [range.from, range.to]);

  const problem = rangeProblem(draft.from, draft.to);
  const selectedPreset = customOpen ? 'custom' : range.preset;

  function onPresetChange(value: string) {
    if (value === 'custom') {
      setCustomOpen(true);
      return;
    }
    setCustomOpen(false);
    range.setPreset(value as RangePreset);
  }

  function onApply(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (problem === null) range.setRange(draft);
  }

  const language = i18n.resolvedLanguage ?? 'en';
  return (
    <div className="flex w-full flex-col gap-2 sm:w-auto sm:items-end" data-testid="date-range-picker">
      <div className="flex w-full flex-wrap items-center gap-2 sm:w-auto sm:flex-nowrap">
        <label className="select select-sm min-w-0 flex-1 sm:w-48 sm:flex-none">
          <CalendarDaysIcon className="text-base-content/60 size-4 shrink-0" aria-hidden="true" />
          <span className="sr-only">{t('range.label')}</span>
          <select value={selectedPreset} onChange={(event) => onPresetChange(event.target.value)} data-testid="range-preset">
            {RANGE_PRESETS.map((preset) => (
              <option key={preset} value={preset}>
                {t(`range.presets.${preset}`)}
              </option>
            ))}
            <option value="custom">{t('range.presets.custom')}</option>
          </select>
        </label>
        <label className="select select-sm min-w-0 flex-1 sm:w-52 sm:flex-none">
          <span className="sr-only">{t('range.compareLabel')}</span>
          <select value={range.compare} onChange={(event) => range.setCompare(event.target.value as Comparison)} data-testid="range-compare">
            {COMPARISONS.map((comparison) => (
              <option key={comparison} value={comparison}>
                {t(`range.compare.${comparison}`)}
              </option>
            ))}
          </select>
        </label>
      </div>

      {customOpen && (
        <form className="flex w-full flex-wrap items-end gap-2 sm:w-auto sm:flex-nowrap" onSubmit={onApply} noValidate data-testid="custom-range">
          <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs sm:flex-none">
            <span className="text-base-content/70">{t('range.from')}</span>
            <input
              type="date"
              className="input input-sm w-full sm:w-40"
              value={draft.from}
              max={draft.to || undefined}
              onChange={(event) => setDraft((current) => ({ ...current, from: event.target.value }))}
              aria-invalid={submitted && problem !== null}
              aria-describedby={submitted && problem ? `${id}-problem` : undefined}
            />
          </label>
          <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs sm:flex-none">
            <span className="text-base-content/70">{t('range.to')}</span>
            <input
              type="date"
              className="input input-sm w-full sm:w-40"
              value={draft.to}
              min={draft.from || undefined}
              onChange={(event) => setDraft((current) => ({ ...current, to: event.target.value }))}
              aria-invalid={submitted && problem !== null}
              aria-describedby={submitted && problem ? `${id}-problem` : undefined}
            />
          </label>
          <button type="submit" className="btn btn-primary btn-sm">
            {t('range.apply')}
          </button>
        </form>
      )}
      {customOpen && submitted && problem && (
        <p id={`${id}-problem`} role="alert" className="text-error text-xs">
          {t(`range.problems.${problem}`)}
        </p>
      )}

      <p className="text-base-content/70 text-xs sm:text-right" data-testid="range-summary">
        <span>{formatDayRange(range, language)}</span>
        {range.previous && (
          <span className="block sm:inline">
            <span className="hidden sm:inline"> · </span>
            {t('range.versus', { range: formatDayRange(range.previous, language) })}
          </span>
        )}
      </p>
    </div>
  );
}
