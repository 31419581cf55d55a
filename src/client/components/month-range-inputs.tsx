import { useState } from 'react';
import { monthsBefore } from '../../shared/cohorts.ts';
import { useStoreToday } from './date-range-picker.tsx';

/** A range of months ('YYYY-MM'), by default the store's current month and the 11 before it, and whether it is usable. */
export function useMonthRange(): { from: string; to: string; setFrom: (month: string) => void; setTo: (month: string) => void; valid: boolean } {
  const thisMonth = useStoreToday().slice(0, 7);
  const [from, setFrom] = useState(monthsBefore(thisMonth, 11));
  const [to, setTo] = useState(thisMonth);
  const valid = /^\d{4}-\d{2}$/.test(from) && /^\d{4}-\d{2}$/.test(to) && from <= to;
  return { from, to, setFrom, setTo, valid };
}

/** Two month inputs, "from" and "to" (the cohort sections' first-order months); test ids `<testIdPrefix>-from` / `-to`. */
export function MonthRangeInputs({ range, fromLabel, toLabel, testIdPrefix }: { range: ReturnType<typeof useMonthRange>; fromLabel: string; toLabel: string; testIdPrefix: string }) {
  return (
    <>
      <label className="flex flex-col gap-1 text-xs">
        <span className="text-base-content/70">{fromLabel}</span>
        <input type="month" className="input input-sm w-36" value={range.from} max={range.to} onChange={(event) => range.setFrom(event.target.value)} data-testid={`${testIdPrefix}-from`} />
      </label>
      <label className="flex flex-col gap-1 text-xs">
        <span className="text-base-content/70">{toLabel}</span>
        <input type="month" className="input input-sm w-36" value={range.to} min={range.from} onChange={(event) => range.setTo(event.target.value)} data-testid={`${testIdPrefix}-to`} />
      </label>
    </>
  );
}
