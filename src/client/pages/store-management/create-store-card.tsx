import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { PlusIcon } from 'lucide-react';
import { createStoreInput, type DashboardLimits } from '../../../shared/stores.ts';
import { toast } from '../../components/toast.tsx';
import { trpc } from '../../lib/trpc.ts';
import { showLimitReached, showStoreError, showValidationError, zodProblems } from './store-toasts.tsx';

/** New store: checked here first (name, remaining dashboards), then created on the server. */
export function CreateStoreCard({ limits }: { limits: DashboardLimits | undefined }) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const [name, setName] = useState('');

  const create = trpc.stores.create.useMutation({
    onSuccess: async (store) => {
      toast({ title: t('stores.created.title'), description: t('stores.created.description', { name: store.name }), variant: 'success' });
      setName('');
      await Promise.all([utils.stores.list.invalidate(), utils.stores.active.invalidate(), utils.stores.limits.invalidate()]);
    },
    onError: (error) => showStoreError(t, 'create', error),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = createStoreInput.safeParse({ name });
    if (!parsed.success) {
      showValidationError(t, zodProblems(parsed.error));
      return;
    }
    if (limits && !limits.isAdmin && !limits.canAddMore) {
      showLimitReached(t);
      return;
    }
    create.mutate(parsed.data);
  }

  return (
    <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="create-store-heading">
      <form className="card-body gap-3" onSubmit={submit} noValidate>
        <div>
          <h2 id="create-store-heading" className="card-title text-base">
            {t('stores.create.title')}
          </h2>
          <p className="text-base-content/70 mt-1 text-sm">{t('stores.create.description')}</p>
        </div>
        <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="fieldset grow py-0">
            <label className="fieldset-legend pt-0 pb-1 text-sm" htmlFor="new-store-name">
              {t('stores.create.nameLabel')}
            </label>
            <input
              id="new-store-name"
              name="name"
              className="input w-full"
              value={name}
              onChange={(event) => setName(event.target.value)}
              placeholder={t('stores.create.namePlaceholder')}
              autoComplete="off"
              maxLength={200}
            />
          </div>
          <button type="submit" className="btn btn-primary gap-1.5" disabled={create.isPending} aria-busy={create.isPending}>
            {create.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : <PlusIcon />}
            {create.isPending ? t('stores.create.creating') : t('stores.create.submit')}
          </button>
        </div>
      </form>
    </section>
  );
}
