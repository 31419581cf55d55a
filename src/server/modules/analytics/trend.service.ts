import type { EntityManager } from '@mikro-orm/postgresql';
import { KPIS_WITH_CHANNEL_BREAKDOWN, type Granularity, type TrendOutput } from '../../../shared/analytics.ts';
import type { Comparison, KpiKey } from '../../../shared/commerce.ts';
import { delta } from '../../../shared/metrics.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { addDays, comparisonRange, type DayRange } from '../../../shared/date-ranges.ts';
import { addMonths, lastDayOfMonth, monthOf } from '../commerce/days.ts';
import { kpisByBucket } from '../commerce/kpis.service.ts';

function minDay(a: string, b: string): string {
  return a < b ? a : b;
}

/** Sunday of the ISO week (Monday to Sunday) of a day. */
function endOfWeek(day: string): string {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, weekday === 0 ? 0 : 7 - weekday);
}

/** The days, weeks (Monday to Sunday) or calendar months of a range, the first and last clipped to it. */
export function bucketsOf(range: DayRange, granularity: Granularity): DayRange[] {
  const buckets: DayRange[] = [];
  for (let from = range.from; from <= range.to; ) {
    const end = granularity === 'day' ? from : granularity === 'week' ? endOfWeek(from) : lastDayOfMonth(monthOf(from));
    const to = minDay(end, range.to);
    buckets.push({ from, to });
    from = granularity === 'month' ? `${addMonths(monthOf(from), 1)}-01` : addDays(to, 1);
  }
  return buckets;
}

const BREAKDOWN_KPIS: ReadonlySet<string> = new Set(KPIS_WITH_CHANNEL_BREAKDOWN);

/** One KPI over a range by day, week or month, beside the comparison range's buckets and, where it adds up, by channel. */
export async function trend(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency'>,
  input: { kpi: KpiKey; granularity: Granularity; from: string; to: string; compare: Comparison; currency?: string },
): Promise<TrendOutput> {
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare);
  const buckets = bucketsOf(range, input.granularity);
  const previousBuckets = previousRange ? bucketsOf(previousRange, input.granularity) : [];
  const result = await kpisByBucket(em, store, {
    spans: previousRange ? [range, previousRange] : [range],
    buckets: [range, ...(previousRange ? [previousRange] : []), ...buckets, ...previousBuckets],
    currency: input.currency,
  });
  const [whole, ...rest] = result.buckets;
  const previousWhole = previousRange ? rest.shift() : undefined;
  const current = rest.slice(0, buckets.length);
  const previous = rest.slice(buckets.length);

  const totalCurrent = whole!.kpis[input.kpi];
  const totalPrevious = previousWhole ? previousWhole.kpis[input.kpi] : null;

  let breakdown: TrendOutput['breakdown'] = null;
  if (BREAKDOWN_KPIS.has(input.kpi)) {
    const key = input.kpi as 'netSales' | 'spend' | 'clicks' | 'orders';
    const channels = new Set(current.flatMap((bucket) => Object.keys(bucket.channels)));
    breakdown = [...channels]
      .map((channel) => {
        const values = current.map((bucket) => bucket.channels[channel]?.[key] ?? 0);
        return { channel, total: whole!.channels[channel]?.[key] ?? 0, values };
      })
      .filter((entry) => entry.values.some((value) => value !== 0))
      .sort((a, b) => b.total - a.total || a.channel.localeCompare(b.channel));
  }

  return {
    storeId: store.id,
    currency: result.currency,
    kpi: input.kpi,
    granularity: input.granularity,
    range,
    previousRange,
    total: { current: totalCurrent, previous: totalPrevious, delta: delta(totalCurrent, totalPrevious) },
    points: buckets.map((bucket, index) => ({
      from: bucket.from,
      to: bucket.to,
      value: current[index]!.kpis[input.kpi],
      previousFrom: previousBuckets[index]?.from ?? null,
      previousTo: previousBuckets[index]?.to ?? null,
      previousValue: previous[index]?.kpis[input.kpi] ?? null,
    })),
    breakdown,
  };
}
