import type { ApexOptions } from 'apexcharts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { CampaignsOutput } from '../../../shared/marketing.ts';
import { Chart } from '../../components/chart.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat, useNarrowScreen, xTickAmount } from '../../lib/figure-format.ts';
import { useSearchParam } from '../../lib/use-search-param.ts';

const VIEWS = ['sales', 'roas'] as const;
type View = (typeof VIEWS)[number];

/** Day by day: spend against the net sales we attribute to the platform, or its ROAS against ours. */
export function AdsTrendChart({ data }: { data: CampaignsOutput }) {
  const { t } = useTranslation('marketing');
  const format = useFigureFormat();
  const narrow = useNarrowScreen();
  const [view, setView] = useSearchParam<View>('chart', VIEWS, 'sales');
  const platformName = t(`platforms.${data.platform}`);
  const { currency, series } = data;

  const categories = useMemo(() => series.map((day) => format.shortDay(day.day)), [series, format]);
  const chartSeries =
    view === 'sales'
      ? [
          { name: t('trend.netSales'), type: 'line', data: series.map((day) => day.netSales / 100) },
          { name: t('trend.spend'), type: 'column', data: series.map((day) => day.spend / 100) },
        ]
      : [
          { name: t('roas.ours'), type: 'line', data: series.map((day) => day.roas) },
          { name: t('roas.platform', { platform: platformName }), type: 'line', data: series.map((day) => day.platformRoas) },
        ];

  const options = useMemo<ApexOptions>(() => {
    const money = (value: number) => format.compactMoney(value * 100, currency);
    const exactMoney = (value: number) => format.money(value * 100, currency);
    return {
      xaxis: { categories, tickAmount: xTickAmount(categories.length, narrow), tickPlacement: 'on', labels: { trim: false } },
      stroke: { width: view === 'sales' ? [2.5, 0] : [2.5, 2.5], dashArray: view === 'sales' ? 0 : [0, 5] },
      yaxis: { labels: { formatter: view === 'sales' ? money : (value: number) => format.multiple(value) } },
      tooltip: { shared: true, intersect: false, y: { formatter: (value: number | null) => (value === null || value === undefined ? '—' : view === 'sales' ? exactMoney(value) : format.multiple(value)) } },
      plotOptions: { bar: { columnWidth: categories.length > 60 ? '90%' : '55%', borderRadius: 2 } },
      markers: { size: 0, hover: { size: 4 } },
    };
  }, [categories, view, currency, format, narrow]);

  return (
    <SectionCard
      titleId="ads-trend-title"
      title={t('trend.title')}
      description={view === 'sales' ? t('trend.salesHint', { platform: platformName }) : t('trend.roasHint', { platform: platformName })}
      actions={
        <div role="group" aria-label={t('trend.viewLabel')} className="join">
          {VIEWS.map((option) => (
            <button
              key={option}
              type="button"
              className={`btn btn-sm join-item ${view === option ? 'btn-primary' : 'btn-ghost border-base-content/15'}`}
              aria-pressed={view === option}
              onClick={() => setView(option)}
            >
              {t(`trend.views.${option}`)}
            </button>
          ))}
        </div>
      }
    >
      <Chart
        type="line"
        series={chartSeries as ApexOptions['series']}
        options={options}
        height={300}
        ariaLabel={view === 'sales' ? t('trend.salesAria', { platform: platformName }) : t('trend.roasAria', { platform: platformName })}
        testId="ads-trend-chart"
      />
    </SectionCard>
  );
}
