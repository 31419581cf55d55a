import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { StoreIcon } from 'lucide-react';
import type { Store } from '../../../shared/stores.ts';
import { toast } from '../../components/toast.tsx';
import { DASHBOARD_LIMITS_QUERY, STORES_QUERY } from '../../lib/query-settings.ts';
import { trpc } from '../../lib/trpc.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading, PageHeader } from '../account-shared/page-header.tsx';
import { ManageUsersLink } from '../manage-users/manage-users-link.tsx';
import { AnomalyAlertsCard } from './anomaly-alerts-card.tsx';
import { CreateStoreCard } from './create-store-card.tsx';
import { DashboardLimitsCard } from './dashboard-limits-card.tsx';
import { DeleteStoreDialog } from './delete-store-dialog.tsx';
import { StoreRow } from './store-row.tsx';
import { showStoreError } from './store-toasts.tsx';

/** The user's stores (dashboards): create, rename, currency, switch, delete; and how many the plan allows. */
export function StoreManagementPage() {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const stores = trpc.stores.list.useQuery(undefined, STORES_QUERY);
  const active = trpc.stores.active.useQuery(undefined, STORES_QUERY);
  const limits = trpc.stores.limits.useQuery(undefined, DASHBOARD_LIMITS_QUERY);
  const [toDelete, setToDelete] = useState<Store | null>(null);
  const activeId = active.data?.store?.id ?? null;

  const remove = trpc.stores.remove.useMutation({
    onSuccess: async (_result, { id }) => {
      const deleted = stores.data?.find((store) => store.id === id);
      setToDelete(null);
      toast({ title: t('stores.deleted.title'), description: t('stores.deleted.description', { name: deleted?.name ?? '' }), variant: 'success' });
      if (id === activeId) {
        // The first remaining store is active now: every screen's data changes with it.
        await utils.invalidate();
      } else {
        await Promise.all([utils.stores.list.invalidate(), utils.stores.active.invalidate(), utils.stores.limits.invalidate()]);
      }
    },
    onError: (error) => {
      setToDelete(null);
      showStoreError(t, 'delete', error);
    },
  });

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader title={t('stores.title')} description={t('stores.description')} actions={<ManageUsersLink />} />

      <div className="grid gap-4 md:grid-cols-5">
        <div className="md:col-span-3">
          <CreateStoreCard limits={limits.data} />
        </div>
        <div className="md:col-span-2">
          <DashboardLimitsCard limits={limits.data} loading={limits.isPending} />
        </div>
      </div>

      {active.data?.store && <AnomalyAlertsCard store={active.data.store} />}

      <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="stores-heading">
        <div className="border-base-content/10 flex items-center justify-between gap-2 border-b px-4 py-3 sm:px-6">
          <h2 id="stores-heading" className="font-semibold">
            {t('stores.listTitle')}
          </h2>
          {stores.data && <span className="badge badge-ghost">{t('stores.count', { count: stores.data.length })}</span>}
        </div>

        {stores.isPending && <InlineLoading label={t('stores.loading')} />}

        {stores.isError && (
          <div className="p-4">
            <div role="alert" className="alert alert-error alert-soft">
              <span>{t('stores.loadFailed', { message: errorText(t, stores.error) })}</span>
              <button type="button" className="btn btn-sm" onClick={() => void stores.refetch()}>
                {t('actions.retry')}
              </button>
            </div>
          </div>
        )}

        {stores.data && stores.data.length === 0 && (
          <div className="flex flex-col items-center px-6 py-12 text-center">
            <span className="bg-primary/10 text-primary grid size-12 place-items-center rounded-2xl text-2xl" aria-hidden="true">
              <StoreIcon />
            </span>
            <h3 className="mt-4 font-semibold">{t('stores.empty.title')}</h3>
            <p className="text-base-content/70 mt-1 max-w-sm text-sm">{t('stores.empty.body')}</p>
          </div>
        )}

        {stores.data && stores.data.length > 0 && (
          <ul className="divide-base-content/10 divide-y">
            {stores.data.map((store) => (
              <StoreRow key={store.id} store={store} isActive={store.id === activeId} onDelete={setToDelete} />
            ))}
          </ul>
        )}
      </section>

      <DeleteStoreDialog
        store={toDelete}
        pending={remove.isPending}
        onConfirm={(store) => remove.mutate({ id: store.id })}
        onClose={() => {
          if (!remove.isPending) setToDelete(null);
        }}
      />
    </div>
  );
}
