import { keepPreviousData } from '@tanstack/react-query';
import type { ApexOptions } from 'apexcharts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { FigureTableHead, TableScroll } from '../../components/figure-table-head.tsx';
import { KPI_KEYS, type KpiKey } from '../../../shared/commerce-constants.ts';
import type { KpisOutput } from '../../../shared/commerce.ts';
import type { DayKpisOutput } from '../../../shared/dashboard.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { NO_VALUE, roi } from '../../../shared/metrics.ts';
import { Chart, loadApexCharts } from '../../components/chart.tsx';
import { DataError, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { formatDayRange, useComparisonLabel, useDateRange, useStoreToday, type DateRangeState } from '../../components/date-range-picker.tsx';
import { formatKpiCount, formatKpiMoney, KpiCard, useChannelName } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { compactAxisMoney, formatChange, formatMultipleIn, useNarrowScreen } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';
import { useGuestStatus, useStores } from '../../lib/use-access.ts';
import { analyticsHref, dayPartInZone, ltvMaturity } from './dashboard-figures.ts';
import { AnomalyPanel } from './anomaly-panel.tsx';
import { LoyaltyDashboardCard } from '../customer-loyalty/loyalty-dashboard-card.tsx';
import { PriceAlertsNotice } from '../price-tracker/price-alerts-notice.tsx';
import { TODAY_REFRESH_MS, TodayCard } from './today-card.tsx';

// The charts' library starts downloading with this page's data, not after it (the tiles never wait for it).
void loadApexCharts();

type KpiFormat = 'money' | 'count' | 'multiple';

const KPI_FORMATS: Record<KpiKey, KpiFormat> = {
  netSales: 'money',
  spend: 'money',
  clicks: 'count',
  orders: 'count',
  roas: 'multiple',
  cac: 'money',
  mer: 'multiple',
  aov: 'money',
  ltv: 'money',
};

/** Costs: a fall is the good news. */
const LOWER_IS_BETTER: ReadonlySet<KpiKey> = new Set(['spend', 'cac']);

/** The daily series each card draws (LTV has none: it belongs to a cohort, not a day). */
const SPARKLINE_SERIES: Partial<Record<KpiKey, keyof KpisOutput['series'][number]>> = {
  netSales: 'netSales',
  spend: 'spend',
  clicks: 'clicks',
  orders: 'orders',
  roas: 'roas',
  cac: 'cac',
  mer: 'mer',
  aov: 'aov',
};

function formatKpiValue(key: KpiKey, value: number | null, currency: string, locale: string): string | null {
  if (value === null) return null;
  const format = KPI_FORMATS[key];
  if (format === 'money') return formatKpiMoney(value, currency, locale);
  if (format === 'count') return formatKpiCount(value, locale);
  return formatMultipleIn(value, locale);
}

/** Figures that rest on platform spend or clicks: for today, their comparison up to the same time is an estimate. */
const SPEND_BASED: ReadonlySet<KpiKey> = new Set(['spend', 'clicks', 'roas', 'cac', 'mer']);

/** What the tiles show: the KPIs of the range, and per key the values their sparklines draw. */
interface TileData {
  kpis: KpisOutput['kpis'];
  currency: string;
  sparklines: Partial<Record<KpiKey, number[]>>;
  sparklineUnit: 'day' | 'hour';
  /** "vs yesterday until 15:30" and the like: the caption of every change */
  comparisonLabel: string;
  /** The tooltip of a previous value: "Yesterday until 15:30: £9,870" */
  previousText: (key: KpiKey, value: string) => string;
  /** New customers by the day they joined (for the LTV tile's maturity) */
  newCustomersByDay: { day: string; newCustomers: number }[];
}

function KpiGrid({ data, range }: { data: TileData; range: DateRangeState }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const today = useStoreToday();
  const maturity = ltvMaturity(data.newCustomersByDay, today);
  return (
    <section aria-label={t('kpiLabel')}>
      <ul className="grid grid-cols-2 gap-3 sm:gap-4 md:grid-cols-3">
        {KPI_KEYS.map((key, index) => {
          const kpi = data.kpis[key];
          const format = (value: number | null) => formatKpiValue(key, value, data.currency, locale);
          const previousValue = format(kpi.previous);
          const ltvTooRecent = key === 'ltv' && maturity.tooRecent;
          return (
            <li key={key} className={`flex ${index === 0 ? 'col-span-2 md:col-span-1' : ''}`}>
              <KpiCard
                label={t(`kpis.${key}`)}
                hint={t(`kpiHints.${key}`)}
                note={ltvTooRecent ? t('ltvTooRecent', { share: formatChange(maturity.recentShare * 100, locale, 0).replace(/^\+/, '') }) : undefined}
                value={format(kpi.current)}
                // An open 90-day window against a longer-closed one would always look like a fall.
                delta={ltvTooRecent ? null : kpi.delta.percent}
                lowerIsBetter={LOWER_IS_BETTER.has(key)}
                comparisonLabel={data.comparisonLabel}
                previous={previousValue !== null && !ltvTooRecent ? data.previousText(key, previousValue) : undefined}
                href={analyticsHref(key, range)}
                sparkline={data.sparklines[key]}
                sparklineUnit={data.sparklineUnit}
                formatPoint={(value) => format(value) ?? NO_VALUE}
              />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The tiles of a range of several days: commerce.kpis, compared with the whole comparison period. */
function useRangeTiles(data: KpisOutput, range: DateRangeState): TileData {
  const { t } = useTranslation('dashboard');
  const comparisonLabel = useComparisonLabel();
  const sparklines: TileData['sparklines'] = {};
  for (const [key, seriesKey] of Object.entries(SPARKLINE_SERIES) as [KpiKey, keyof KpisOutput['series'][number]][]) {
    sparklines[key] = data.series.map((day) => Number(day[seriesKey] ?? 0));
  }
  return {
    kpis: data.kpis,
    currency: data.currency,
    sparklines,
    sparklineUnit: 'day',
    comparisonLabel,
    previousText: (_key, value) => t(range.compare === 'previous_year' ? 'previous.year' : 'previous.period', { value }),
    newCustomersByDay: data.series.map((day) => ({ day: day.day, newCustomers: day.newCustomers })),
  };
}

/** The tiles of one day (dashboard.day): today so far against the comparison day up to the same local time. */
function useDayTiles(data: DayKpisOutput): TileData {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const dayName = data.compareDay ? dayLabel(data, locale, t) : '';
  const time = cutTime(data, locale);
  const comparisonLabel = !data.compareDay ? t('day.noComparison') : time ? t('day.vsUntil', { day: dayName, time }) : t('day.vs', { day: dayName });
  return {
    kpis: data.kpis,
    currency: data.currency,
    sparklines: {
      netSales: data.hours.filter((hour) => hour.netSales !== null).map((hour) => hour.netSales!),
      orders: data.hours.filter((hour) => hour.orders !== null).map((hour) => hour.orders!),
    },
    sparklineUnit: 'hour',
    comparisonLabel,
    previousText: (key, value) => {
      const said = time ? t('previous.dayUntil', { day: dayName, time, value }) : t('previous.day', { day: dayName, value });
      // "yesterday until 15:30: …" starts a sentence in the tooltip.
      const text = said.charAt(0).toLocaleUpperCase(locale) + said.slice(1);
      return data.localTime && SPEND_BASED.has(key) ? t('previous.estimated', { text }) : text;
    },
    // One day's new customers all joined on it: whether there are any is all the LTV tile's rule needs (LTV is null without).
    newCustomersByDay: [{ day: data.day, newCustomers: data.kpis.ltv.current === null ? 0 : 1 }],
  };
}

/** The store-time both days stop at, written as the user's language writes times ("5:45 PM", "17:45"); null for whole days. */
function cutTime(data: DayKpisOutput, locale: string): string | null {
  if (!data.localTime || !data.compareUntil) return null;
  return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: data.timezone }).format(new Date(data.compareUntil));
}

/** The compared day in words: "yesterday" (today against the day before), else its date ("9 Jun 2026"). */
function dayLabel(data: DayKpisOutput, locale: string, t: (key: string) => string): string {
  const compareDay = data.compareDay!;
  if (data.localTime && compareDay === addDays(data.day, -1)) return t('day.yesterday');
  return formatDayRange({ from: compareDay, to: compareDay }, locale);
}

/** Net sales per day of the range, and of the comparison period laid over it day by day. */
function NetSalesTrend({ data, previous }: { data: KpisOutput; previous: KpisOutput | undefined }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const days = data.series.map((day) => day.day);
  const dayKey = days.join(',');
  const series = [
    { name: t('trend.current'), data: data.series.map((day) => day.netSales / 100) },
    ...(previous ? [{ name: t('trend.previous'), data: previous.series.slice(0, days.length).map((day) => day.netSales / 100) }] : []),
  ];
  const options = useMemo<ApexOptions>(() => {
    const money = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    const dayLabel = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const categories = dayKey.split(',');
    return {
      xaxis: {
        categories,
        tickAmount: Math.min(categories.length - 1, 5),
        labels: { trim: false, formatter: (value: string) => (value ? dayLabel.format(new Date(`${value}T00:00:00Z`)) : '') },
        tooltip: { enabled: false },
      },
      yaxis: { labels: { formatter: compactAxisMoney(locale, data.currency) } },
      tooltip: { shared: true, y: { formatter: (value: number) => money(value) } },
      stroke: { width: [2.5, 2], dashArray: [0, 5] },
    };
  }, [data.currency, locale, dayKey]);
  return (
    <SectionCard titleId="trend-title" title={t('trend.title')} description={t('trend.description')}>
      <Chart
        type="area"
        series={series}
        options={options}
        height={280}
        ariaLabel={t('trend.chartLabel', { range: formatDayRange(data.range, locale) })}
        categoryHeading={t('trend.day')}
        testId="net-sales-trend"
      />
    </SectionCard>
  );
}

/** One day's net sales hour by hour (store time), the comparison day's laid over it; today's line stops at the current hour. */
function HourlyTrend({ data }: { data: DayKpisOutput }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const narrow = useNarrowScreen();
  const dayName = formatDayRange({ from: data.day, to: data.day }, locale);
  const compareName = data.compareDay ? formatDayRange({ from: data.compareDay, to: data.compareDay }, locale) : null;
  const series = [
    // Today's line ends at the current hour (a shorter series: ApexCharts draws an area with trailing nulls badly).
    { name: dayName, data: data.hours.filter((hour) => hour.netSales !== null).map((hour) => hour.netSales! / 100) },
    ...(compareName ? [{ name: compareName, data: data.hours.map((hour) => (hour.previousNetSales ?? 0) / 100) }] : []),
  ];
  const options = useMemo<ApexOptions>(() => {
    const money = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    const hourLabel = new Intl.DateTimeFormat(locale, { hour: 'numeric', timeZone: 'UTC' });
    const categories = Array.from({ length: 24 }, (_, hour) => String(hour));
    return {
      xaxis: {
        categories,
        // Every 6 hours on a phone (12 AM, 6 AM, 12 PM, 6 PM), every 3 on wider screens.
        tickAmount: narrow ? 4 : 8,
        labels: { trim: false, formatter: (value: string) => (value === undefined || value === '' ? '' : hourLabel.format(Date.UTC(2000, 0, 1, Number(value)))) },
        tooltip: { enabled: false },
      },
      yaxis: { labels: { formatter: compactAxisMoney(locale, data.currency) } },
      tooltip: { shared: true, y: { formatter: (value: number) => money(value) } },
      stroke: { width: [2.5, 2], dashArray: [0, 5] },
    };
  }, [data.currency, locale, narrow]);
  const time = cutTime(data, locale);
  const description = time
    ? t('hourly.descriptionToday', { time, zone: data.timezone })
    : t('hourly.description', { zone: data.timezone });
  return (
    <SectionCard titleId="hourly-title" title={t('hourly.title')} description={description}>
      <Chart
        type="area"
        series={series}
        options={options}
        height={280}
        ariaLabel={t('hourly.chartLabel', { day: dayName })}
        categoryHeading={t('hourly.hour')}
        testId="hourly-trend"
      />
    </SectionCard>
  );
}

/** Spend, net sales, our ROAS beside the platform's, and ROI per marketing channel. */
function MarketingPerformance({ data }: { data: KpisOutput }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const channelName = useChannelName();
  const channels = data.channels.filter((channel) => channel.spend > 0);
  const money = (minor: number) => formatKpiMoney(minor, data.currency, locale) ?? NO_VALUE;
  const series = [
    { name: t('marketing.spend'), data: channels.map((channel) => channel.spend / 100) },
    { name: t('marketing.netSales'), data: channels.map((channel) => channel.netSales / 100) },
  ];
  const nameKey = channels.map((channel) => channelName(channel.channel)).join('|');
  const options = useMemo<ApexOptions>(() => {
    const format = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    return {
      xaxis: { categories: nameKey.split('|') },
      yaxis: { labels: { formatter: compactAxisMoney(locale, data.currency) } },
      tooltip: { shared: true, intersect: false, y: { formatter: format } },
      plotOptions: { bar: { columnWidth: '55%', borderRadius: 4 } },
    };
  }, [data.currency, locale, nameKey]);

  return (
    <SectionCard titleId="marketing-title" title={t('marketing.title')} description={t('marketing.description')} testId="marketing-performance">
      {channels.length === 0 ? (
        <p className="text-base-content/70 py-8 text-center text-sm">{t('marketing.empty')}</p>
      ) : (
        <div className="grid gap-4 lg:grid-cols-5 lg:items-start">
          <Chart type="bar" series={series} options={options} height={260} ariaLabel={t('marketing.chartLabel')} categoryHeading={t('marketing.channel')} className="lg:col-span-2" />
          <div className="min-w-0 lg:col-span-3">
            <TableScroll>
              <table className="table-sm table">
                <FigureTableHead
                  first={t('marketing.channel')}
                  figures={[t('marketing.spend'), t('marketing.netSales'), t('marketing.roas'), { label: t('marketing.platformRoas'), title: t('marketing.platformHint') }, t('marketing.roi')]}
                />
                <tbody>
                  {channels.map((channel) => {
                    const channelRoi = roi({ attributedNetSalesMinor: channel.netSales, spendMinor: channel.spend });
                    return (
                      <tr key={channel.channel} data-testid="channel-row">
                        <th scope="row" className="font-medium whitespace-nowrap">
                          {channelName(channel.channel)}
                        </th>
                        <td className="text-right tabular-nums">{money(channel.spend)}</td>
                        <td className="text-right tabular-nums">{money(channel.netSales)}</td>
                        <td className="text-right font-semibold tabular-nums">{formatMultipleIn(channel.roas, locale)}</td>
                        <td className="text-base-content/70 text-right tabular-nums">{formatMultipleIn(channel.platformRoas, locale)}</td>
                        <td className={`text-right whitespace-nowrap tabular-nums ${channelRoi !== null && channelRoi < 0 ? 'text-error' : ''}`}>
                          {channelRoi === null ? NO_VALUE : formatChange(channelRoi * 100, locale, 0)}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableScroll>
            <p className="text-base-content/65 mt-2 text-xs">{t('marketing.platformHint')}</p>
          </div>
        </div>
      )}
    </SectionCard>
  );
}

function DashboardSkeleton() {
  return (
    <div className="space-y-4" aria-hidden="true">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3">
        {KPI_KEYS.map((key) => (
          <div key={key} className="skeleton h-36 rounded-box" />
        ))}
      </div>
      <div className="skeleton h-80 rounded-box" />
    </div>
  );
}

function DashboardFigures() {
  const range = useDateRange();
  const singleDay = range.from === range.to;
  const kpis = trpc.commerce.kpis.useQuery({ from: range.from, to: range.to, compare: range.compare }, { placeholderData: keepPreviousData });
  const previousRange = range.previous;
  const previous = trpc.commerce.kpis.useQuery(
    { from: previousRange?.from ?? range.from, to: previousRange?.to ?? range.to, compare: 'none' },
    { enabled: previousRange !== null && !singleDay, placeholderData: keepPreviousData },
  );
  // One day: its hours, and (today) a comparison up to the same local time; asked again with the Today card.
  const day = trpc.dashboard.day.useQuery({ day: range.from, compare: range.compare }, { enabled: singleDay, refetchInterval: singleDay ? TODAY_REFRESH_MS : false });

  const shown = singleDay ? day : kpis;
  if (shown.isPending || kpis.isPending) return <DashboardSkeleton />;
  if (shown.isError) return <DataError error={shown.error} onRetry={() => void shown.refetch()} />;
  if (kpis.isError) return <DataError error={kpis.error} onRetry={() => void kpis.refetch()} />;
  return (
    <div className={`space-y-6 transition-opacity ${kpis.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={shown.isFetching}>
      {singleDay && day.data ? <DayTiles data={day.data} range={range} /> : <RangeTiles data={kpis.data} range={range} />}
      {singleDay && day.data ? <HourlyTrend data={day.data} /> : <NetSalesTrend data={kpis.data} previous={previousRange ? previous.data : undefined} />}
      <MarketingPerformance data={kpis.data} />
    </div>
  );
}

function RangeTiles({ data, range }: { data: KpisOutput; range: DateRangeState }) {
  return <KpiGrid data={useRangeTiles(data, range)} range={range} />;
}

function DayTiles({ data, range }: { data: DayKpisOutput; range: DateRangeState }) {
  return <KpiGrid data={useDayTiles(data)} range={range} />;
}

export function DashboardPage({ username }: { username: string }) {
  const { t } = useTranslation('dashboard');
  // An admin viewing as a user sees that user's dashboard, greeting included.
  const { guestUsername } = useGuestStatus();
  // The time of day of the store (its time zone), as every figure below; the browser's until the store is known.
  const { activeStore } = useStores();
  const timeZone = activeStore?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <DataPage title={t(`greeting.${dayPartInZone(new Date(), timeZone)}`, { username: guestUsername ?? username })} description={t('subtitle')}>
      <PriceAlertsNotice />
      <StoreDataGate>
        <div className="space-y-6">
          <TodayCard />
          <DashboardFigures />
          {activeStore && <AnomalyPanel currency={activeStore.currency} />}
          <LoyaltyDashboardCard />
        </div>
      </StoreDataGate>
    </DataPage>
  );
}
