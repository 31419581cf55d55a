import { ArrowRightIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { SectionCard } from '../../components/section-card.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { trpc } from '../../lib/trpc.ts';

/** The dashboard's loyalty section: three figures of loyalty.summary and the way to /customer-loyalty. */
export function LoyaltyDashboardCard() {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const summary = trpc.loyalty.summary.useQuery();
  const data = summary.data?.computedAt ? summary.data : null;
  const figures: [string, string][] = data
    ? [
        [t('tiles.active'), format.integer(data.activeCustomers)],
        [t('tiles.repeat'), format.percent(data.repeatRate)],
        [t('tiles.atRiskRevenue'), format.money(data.atRiskRevenueMinor, data.currency)],
      ]
    : [];
  return (
    <SectionCard
      titleId="dashboard-loyalty-title"
      title={t('dashboard.title')}
      description={t('dashboard.description')}
      testId="dashboard-loyalty"
      actions={
        <Link href="/customer-loyalty" className="btn btn-sm btn-outline gap-2" data-testid="dashboard-loyalty-link">
          {t('dashboard.open')}
          <ArrowRightIcon className="size-4" aria-hidden="true" />
        </Link>
      }
    >
      {summary.isPending ? (
        <div className="skeleton h-16 rounded-box" aria-hidden="true" />
      ) : data === null ? (
        <p className="text-base-content/70 text-sm">{summary.isError ? t('dashboard.unavailable') : t('overview.waiting.body')}</p>
      ) : (
        <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
          {figures.map(([label, value]) => (
            <div key={label} className="bg-base-200/60 rounded-box px-3 py-2">
              <dt className="text-base-content/70 text-xs">{label}</dt>
              <dd className="text-lg font-semibold tabular-nums">{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </SectionCard>
  );
}
