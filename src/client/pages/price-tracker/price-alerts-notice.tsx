import { ArrowRightIcon, BellIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { useAccess, useStores } from '../../lib/use-access.ts';
import { trpc } from '../../lib/trpc.ts';

/** The dashboard's notification of open competitor price alerts: nothing without a store, without tools in the plan, or without open alerts. */
export function PriceAlertsNotice() {
  const { t } = useTranslation('price-tracker');
  const access = useAccess();
  const { activeStore } = useStores();
  const list = trpc.priceTracker.list.useQuery(undefined, { enabled: access.ready && access.toolsAvailable && !!activeStore });
  const open = list.data?.unacknowledgedAlerts ?? 0;
  if (open === 0) return null;
  return (
    <div role="status" className="alert alert-warning alert-soft flex flex-wrap justify-between gap-2" data-testid="dashboard-price-alerts">
      <span className="flex items-center gap-2">
        <BellIcon className="size-5" aria-hidden="true" />
        {t('alerts.dashboard', { count: open })}
      </span>
      <Link href="/price-tracker" className="btn btn-sm btn-ghost gap-2">
        {t('alerts.open')}
        <ArrowRightIcon className="size-4" aria-hidden="true" />
      </Link>
    </div>
  );
}
