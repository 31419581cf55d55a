import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ArrowRightIcon, PlugIcon } from '../../components/icons.tsx';

type DayPart = 'morning' | 'afternoon' | 'evening';

export function dayPart(hour: number): DayPart {
  if (hour < 12) return 'morning';
  if (hour < 18) return 'afternoon';
  return 'evening';
}

/** The KPIs the dashboard will show once data flows; shown empty until a store is connected. */
const KPI_KEYS = ['netSales', 'marketingSpend', 'roas', 'orders'] as const;

export function DashboardPage({ username }: { username: string }) {
  const { t } = useTranslation();
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight wrap-break-word sm:text-3xl">
          {t(`dashboard.greeting.${dayPart(new Date().getHours())}`, { username })}
        </h1>
        <p className="text-base-content/70 mt-1">{t('dashboard.subtitle')}</p>
      </div>

      <section aria-label={t('dashboard.kpiPreviewLabel')} className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        {KPI_KEYS.map((key) => (
          <div key={key} className="bg-base-100 border-base-content/10 rounded-box border p-4">
            <p className="text-base-content/70 text-sm font-medium">{t(`dashboard.kpis.${key}`)}</p>
            <p className="text-base-content/40 mt-2 text-2xl font-semibold">
              <span aria-hidden="true">—</span>
              <span className="sr-only">{t('dashboard.noDataYet')}</span>
            </p>
          </div>
        ))}
      </section>

      <section className="bg-base-100 rounded-box border-base-content/20 border border-dashed px-6 py-12 text-center sm:py-16">
        <div className="bg-primary/10 text-primary mx-auto grid size-14 place-items-center rounded-2xl text-2xl">
          <PlugIcon />
        </div>
        <h2 className="mt-5 text-lg font-semibold text-balance">{t('dashboard.empty.title')}</h2>
        <p className="text-base-content/70 mx-auto mt-2 max-w-lg text-sm leading-relaxed text-balance">{t('dashboard.empty.body')}</p>
        <Link href="/integrations" className="btn btn-primary mt-6 gap-2">
          {t('dashboard.empty.action')}
          <ArrowRightIcon />
        </Link>
      </section>
    </div>
  );
}
