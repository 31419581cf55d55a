import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ArrowRightIcon } from 'lucide-react';
import type { DashboardLimits } from '../../../shared/stores.ts';

/** How many dashboards (stores) the plan allows and how many are used; a way up when they are all used. */
export function DashboardLimitsCard({ limits, loading }: { limits: DashboardLimits | undefined; loading: boolean }) {
  const { t } = useTranslation('account');
  const unlimited = limits?.isAdmin === true || limits?.maxDashboards === null;
  const full = limits !== undefined && !limits.isAdmin && !limits.canAddMore;

  return (
    <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="limits-heading" data-testid="dashboard-limits">
      <div className="card-body gap-3">
        <h2 id="limits-heading" className="card-title text-base">
          {t('stores.limits.title')}
        </h2>
        {loading || !limits ? (
          <div className="skeleton h-10 w-full" aria-hidden="true" />
        ) : unlimited ? (
          <>
            <p className="text-2xl font-semibold tracking-tight">{t('stores.limits.unlimited')}</p>
            <p className="text-base-content/70 text-sm">{t('stores.limits.adminUsed', { count: limits.currentDashboards })}</p>
          </>
        ) : (
          <>
            <p className="text-sm">
              <span className="text-2xl font-semibold tracking-tight">
                {t('stores.limits.used', { current: limits.currentDashboards, max: limits.maxDashboards ?? 1 })}
              </span>
            </p>
            <progress
              className={`progress w-full ${full ? 'progress-warning' : 'progress-primary'}`}
              value={limits.currentDashboards}
              max={limits.maxDashboards ?? 1}
              aria-label={t('stores.limits.used', { current: limits.currentDashboards, max: limits.maxDashboards ?? 1 })}
            />
            {full ? (
              <div className="flex flex-col gap-2">
                <p className="text-base-content/80 text-sm">{t('stores.limits.fullHint')}</p>
                <Link href="/pricing" className="btn btn-primary btn-sm gap-1.5 self-start">
                  {t('stores.limits.upgrade')}
                  <ArrowRightIcon />
                </Link>
              </div>
            ) : (
              <p className="text-base-content/70 text-sm">{t('stores.limits.remaining', { count: limits.remainingDashboards ?? 0 })}</p>
            )}
          </>
        )}
      </div>
    </section>
  );
}
