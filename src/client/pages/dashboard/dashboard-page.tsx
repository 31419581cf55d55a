import { useTranslation } from 'react-i18next';
import { PlugIcon } from 'lucide-react';
import { EmptyState } from '../../components/empty-state.tsx';
import { useGuestStatus } from '../../lib/use-access.ts';

type DayPart = 'morning' | 'afternoon' | 'evening';

export function dayPart(hour: number): DayPart {
  if (hour < 12) return 'morning';
  if (hour < 18) return 'afternoon';
  return 'evening';
}

/** The dashboard's figures (spec section 1); shown as "—" until a store's data flows in. */
export const KPI_KEYS = ['netSales', 'marketingSpend', 'totalClicks', 'totalOrders', 'roas', 'cac', 'mer', 'aov', 'ltv'] as const;

export function DashboardPage({ username }: { username: string }) {
  const { t } = useTranslation('shell');
  // An admin viewing as a user sees that user's dashboard, greeting included.
  const { guestUsername } = useGuestStatus();
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight wrap-break-word sm:text-3xl">
          {t(`dashboard.greeting.${dayPart(new Date().getHours())}`, { username: guestUsername ?? username })}
        </h1>
        <p className="text-base-content/75 mt-1">{t('dashboard.subtitle')}</p>
      </div>

      <section aria-label={t('dashboard.kpiLabel')}>
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 sm:gap-4 xl:grid-cols-5">
          {KPI_KEYS.map((key, index) => (
            <li
              key={key}
              className={`bg-base-100 border-base-content/10 rounded-box border p-4 ${index === 0 ? 'col-span-2 sm:col-span-1' : ''}`}
              data-testid="kpi-card"
            >
              <p className="text-base-content/80 text-sm font-semibold">{t(`dashboard.kpis.${key}`)}</p>
              <p className="text-base-content/70 mt-0.5 truncate text-xs" title={t(`dashboard.kpiHints.${key}`)}>
                {t(`dashboard.kpiHints.${key}`)}
              </p>
              <p className="text-base-content/45 mt-3 text-2xl font-semibold tabular-nums">
                <span aria-hidden="true">—</span>
                <span className="sr-only">{t('dashboard.noDataYet')}</span>
              </p>
            </li>
          ))}
        </ul>
      </section>

      <EmptyState
        icon={PlugIcon}
        title={t('dashboard.empty.title')}
        body={t('dashboard.empty.body')}
        action={{ href: '/integrations', label: t('dashboard.empty.action') }}
      />
    </div>
  );
}
