import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyIcon, GiftIcon } from 'lucide-react';
import type { AffiliateDashboard } from '../../../shared/affiliates.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataLoading } from '../../components/data-page.tsx';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { KpiCard } from '../../components/kpi-card.tsx';
import { formatMoney } from '../../lib/format.ts';
import { useNarrowScreen } from '../../lib/figure-format.ts';
import { PayoutsSection } from './affiliate-payouts.tsx';
import { trpc } from '../../lib/trpc.ts';

/** /affiliate-dashboard: join the programme, share the link, follow clicks, referred accounts and commissions. */
export function AffiliateDashboardPage() {
  const { t } = useTranslation('affiliates');
  const dashboard = trpc.affiliates.dashboard.useQuery();
  const utils = trpc.useUtils();
  const join = trpc.affiliates.join.useMutation({ onSuccess: () => utils.affiliates.dashboard.invalidate() });

  let content;
  if (dashboard.isError) content = <DataError error={dashboard.error} onRetry={() => void dashboard.refetch()} />;
  else if (dashboard.isPending) content = <DataLoading label={t('loading')} cards={4} gridClassName="grid grid-cols-2 gap-4 lg:grid-cols-4" />;
  else if (!dashboard.data.membership) {
    content = (
      <EmptyState
        icon={GiftIcon}
        title={t('join.title')}
        body={t('join.body')}
        actions={
          <button type="button" className="btn btn-primary" disabled={join.isPending} onClick={() => join.mutate()} data-testid="affiliate-join">
            {t('join.action')}
          </button>
        }
      />
    );
  } else content = <Programme data={dashboard.data} link={`${window.location.origin}${dashboard.data.membership.linkPath}`} />;

  return (
    <div className="mx-auto max-w-7xl space-y-6" data-testid="affiliate-dashboard" data-state={dashboard.isPending ? 'loading' : 'ready'}>
      <PageHeader title={t('title')} description={t('description')} />
      {content}
    </div>
  );
}

/** Months the chart shows at least, this one included. */
const CHART_MONTHS = 6;

/**
 * Every month from the first with activity (or six months back, whichever is earlier) to this one, the
 * empty ones as zero: a new affiliate sees a timeline, not one bar across the whole chart.
 */
function monthsToChart(active: AffiliateDashboard['months'], now = new Date()): AffiliateDashboard['months'] {
  const byMonth = new Map(active.map((month) => [month.month, month]));
  const key = (date: Date) => date.toISOString().slice(0, 7);
  const cursor = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (CHART_MONTHS - 1), 1));
  const first = active[0]?.month;
  if (first && first < key(cursor)) cursor.setTime(Date.parse(`${first}-01T00:00:00Z`));
  const months: AffiliateDashboard['months'] = [];
  for (; key(cursor) <= key(now); cursor.setUTCMonth(cursor.getUTCMonth() + 1)) {
    months.push(byMonth.get(key(cursor)) ?? { month: key(cursor), signUps: 0, earnedMinor: 0 });
  }
  return months;
}

function Programme({ data, link }: { data: AffiliateDashboard; link: string }) {
  const { t, i18n } = useTranslation('affiliates');
  const locale = i18n.resolvedLanguage ?? 'en';
  const [copied, setCopied] = useState(false);
  const money = (minor: number) => formatMoney(minor, data.currency, locale);
  const count = (value: number) => new Intl.NumberFormat(locale).format(value);
  const { kpis } = data;
  const cards = [
    ['clicks', count(kpis.clicks)],
    ['signUps', count(kpis.signUps)],
    ['trials', count(kpis.trials)],
    ['payingCustomers', count(kpis.payingCustomers)],
    ['conversionRate', kpis.conversionRate === null ? null : new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(kpis.conversionRate)],
  ] as const;
  const months = useMemo(() => monthsToChart(data.months), [data.months]);
  const narrow = useNarrowScreen();
  const chartOptions = useMemo(() => {
    const most = Math.max(1, ...months.map((month) => month.signUps));
    // Whole sign-ups only: as many ticks as there are steps, at most five.
    // "2026-11" as "Nov 2026" in the reader's language (the first of the month, read in UTC: no time zone shifts
    // it); on a phone just "Nov", so that six months fit without their labels being cut.
    const label = new Intl.DateTimeFormat(locale, { month: 'short', ...(narrow ? {} : { year: 'numeric' }), timeZone: 'UTC' });
    return {
      xaxis: { categories: months.map((month) => label.format(new Date(`${month.month}-01T00:00:00Z`))) },
      yaxis: { min: 0, tickAmount: Math.min(5, most), labels: { formatter: (value: number) => new Intl.NumberFormat(locale).format(Math.round(value)) } },
    };
  }, [months, locale, narrow]);

  return (
    <>
      <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="affiliate-link">
        <div className="card-body gap-3">
          <h2 id="affiliate-link" className="font-semibold">{t('link.title')}</h2>
          <div className="join w-full">
            <input className="input join-item w-full font-mono text-sm" readOnly value={link} aria-label={t('link.title')} data-testid="affiliate-link" />
            <button
              type="button"
              className="btn join-item"
              onClick={() => void navigator.clipboard?.writeText(link).then(() => setCopied(true))}
            >
              <CopyIcon aria-hidden="true" />
              {copied ? t('link.copied') : t('link.copy')}
            </button>
          </div>
          <p className="text-base-content/70 text-sm">{t('link.hint')}</p>
        </div>
      </section>

      <div className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5">
        {cards.map(([key, value], index) => (
          // The fifth card spans the phone's two columns rather than standing alone.
          <div key={key} className={index === cards.length - 1 ? 'col-span-2 sm:col-span-1' : ''}>
            <KpiCard label={t(`kpis.${key}`)} value={value} comparable={false} testId={`affiliate-kpi-${key}`} />
          </div>
        ))}
      </div>

      <PayoutsSection data={data} />

      <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="affiliate-chart">
        <div className="card-body">
          <h2 id="affiliate-chart" className="font-semibold">{t('chart.title')}</h2>
          <Chart
            type="bar"
            height={260}
            ariaLabel={t('chart.title')}
            categoryHeading={t('chart.month')}
            series={[{ name: t('kpis.signUps'), data: months.map((month) => month.signUps) }]}
            options={chartOptions}
            testId="affiliate-chart"
          />
        </div>
      </section>

      <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="affiliate-referrals">
        <div className="card-body">
          <h2 id="affiliate-referrals" className="font-semibold">{t('referrals.title')}</h2>
          {data.referrals.length === 0 ? (
            <p className="text-base-content/70 text-sm">{t('referrals.empty')}</p>
          ) : (
            <ul className="divide-base-content/10 divide-y" data-testid="affiliate-referrals">
              {data.referrals.map((referral) => (
                <li key={referral.ordinal} className="py-2 text-sm">
                  {t('referrals.row', {
                    ordinal: referral.ordinal,
                    date: new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short' }).format(new Date(referral.joinedAt)),
                    plan: referral.planName ?? t('referrals.noPlan'),
                    standing: t(`referrals.standing.${referral.standing}`),
                  })}
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
    </>
  );
}
