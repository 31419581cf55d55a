import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ArrowRightLeftIcon, GlobeIcon, PencilIcon, StoreIcon, TrashIcon } from 'lucide-react';
import { CURRENCIES, CURRENCY_CODES, type CurrencyCode } from '../../../shared/currencies.ts';
import { createStoreInput, type Store } from '../../../shared/stores.ts';
import { toast } from '../../components/toast.tsx';
import { useRefreshAmounts } from '../../lib/currency.tsx';
import { currentLanguage } from '../../lib/i18n.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../account-shared/format.ts';
import { showStoreError, showValidationError, zodProblems } from './store-toasts.tsx';
import { TimezoneEditor, TimezoneFailure, TimezoneProgress, useTimezoneChange, useZoneLabel } from './store-timezone.tsx';

/** Puts the store the server returned into the cached list and, when it is the active one, the active store. */
function useReplaceCachedStore() {
  const utils = trpc.useUtils();
  return (updated: Store) => {
    utils.stores.list.setData(undefined, (stores) => stores?.map((store) => (store.id === updated.id ? updated : store)));
    utils.stores.active.setData(undefined, (active) => (active?.store?.id === updated.id ? { store: updated } : active));
  };
}

interface StoreRowProps {
  store: Store;
  isActive: boolean;
  onDelete: (store: Store) => void;
}

export function StoreRow({ store, isActive, onDelete }: StoreRowProps) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const replaceCachedStore = useReplaceCachedStore();
  const refreshAmounts = useRefreshAmounts();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(store.name);
  const [editingZone, setEditingZone] = useState(false);
  const owned = store.role === 'owner';
  const zoneChange = useTimezoneChange(store);
  const zoneLabel = useZoneLabel();

  const rename = trpc.stores.update.useMutation({
    onSuccess: (updated) => {
      replaceCachedStore(updated);
      setEditing(false);
      toast({ title: t('stores.renamed.title'), description: t('stores.renamed.description', { name: updated.name }), variant: 'success' });
    },
    onError: (error) => showStoreError(t, 'update', error),
  });

  const changeCurrency = trpc.stores.update.useMutation({
    onSuccess: async (updated) => {
      replaceCachedStore(updated);
      // The dashboards' amounts (this store's, and All stores') follow before the change is reported.
      await refreshAmounts();
      toast({
        title: t('stores.currencyChanged.title'),
        description: t('stores.currencyChanged.description', { name: updated.name, currency: `${updated.currency} (${CURRENCIES[updated.currency].symbol})` }),
        variant: 'success',
      });
    },
    onError: (error) => showStoreError(t, 'update', error),
  });

  const switchTo = trpc.stores.setActive.useMutation({
    onSuccess: async () => {
      // Every screen shows the active store's data: drop all of it and start again from a fresh page.
      await utils.invalidate();
      window.location.reload();
    },
    onError: (error) => showStoreError(t, 'switch', error),
  });

  function startEditing() {
    setDraft(store.name);
    setEditing(true);
  }

  function saveName(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = createStoreInput.safeParse({ name: draft });
    if (!parsed.success) {
      showValidationError(t, zodProblems(parsed.error));
      return;
    }
    if (parsed.data.name === store.name) {
      setEditing(false);
      return;
    }
    rename.mutate({ storeId: store.id, name: parsed.data.name });
  }

  function cancelOnEscape(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Escape') {
      event.preventDefault();
      setEditing(false);
    }
  }

  const nameInputId = `store-${store.id}-name`;
  const currencyId = `store-${store.id}-currency`;

  return (
    <li className="p-4" data-testid="store-row" data-store-id={store.id}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:gap-4">
        <div className="flex min-w-0 flex-1 items-start gap-3">
          <span
            className={`grid size-10 shrink-0 place-items-center rounded-xl text-lg ${isActive ? 'bg-primary text-primary-content' : 'bg-base-200 text-base-content/70'}`}
            aria-hidden="true"
          >
            <StoreIcon />
          </span>
          <div className="min-w-0 flex-1">
            {editing ? (
              <form className="flex flex-wrap items-center gap-2" onSubmit={saveName} noValidate>
                <label htmlFor={nameInputId} className="sr-only">
                  {t('stores.rename.label')}
                </label>
                <input
                  id={nameInputId}
                  className="input input-sm min-w-0 flex-1 basis-40"
                  value={draft}
                  onChange={(event) => setDraft(event.target.value)}
                  onKeyDown={cancelOnEscape}
                  autoFocus
                  maxLength={200}
                />
                <div className="flex gap-2">
                  <button type="submit" className="btn btn-primary btn-sm" disabled={rename.isPending}>
                    {rename.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
                    {t('stores.rename.save')}
                  </button>
                  <button type="button" className="btn btn-ghost btn-sm" onClick={() => setEditing(false)} disabled={rename.isPending}>
                    {t('stores.rename.cancel')}
                  </button>
                </div>
              </form>
            ) : (
              <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                <h3 className="min-w-0 font-semibold break-words" data-testid="store-name">
                  {store.name}
                </h3>
                {isActive && <span className="badge badge-primary badge-sm">{t('stores.active')}</span>}
                {!owned && <span className="badge badge-ghost badge-sm">{t('stores.sharedBy', { owner: store.ownerUsername })}</span>}
              </div>
            )}
            <p className="text-base-content/70 mt-0.5 text-sm">
              {t('stores.createdOn', { date: formatDate(store.createdAt, currentLanguage()) })}
              <span aria-hidden="true"> · </span>
              {store.currency} ({CURRENCIES[store.currency].symbol})
              <span aria-hidden="true"> · </span>
              <span className="whitespace-nowrap" data-testid="store-timezone">
                {zoneLabel(store.timezone)}
              </span>
            </p>
          </div>
        </div>

        <div className="flex flex-wrap items-center gap-2 pl-13 sm:flex-nowrap sm:justify-end sm:pl-0">
          {owned && (
            <div className="flex min-w-44 flex-1 items-center gap-2 sm:min-w-0 sm:flex-none">
              <label htmlFor={currencyId} className="sr-only">
                {t('stores.currencyLabel', { name: store.name })}
              </label>
              <select
                id={currencyId}
                className="select select-sm w-full min-w-0 sm:w-52"
                value={store.currency}
                disabled={changeCurrency.isPending}
                aria-busy={changeCurrency.isPending}
                onChange={(event) => changeCurrency.mutate({ storeId: store.id, currency: event.target.value as CurrencyCode })}
              >
                {CURRENCY_CODES.map((code) => (
                  <option key={code} value={code}>
                    {code} · {CURRENCIES[code].symbol} · {t(`currencies.${code}`)}
                  </option>
                ))}
              </select>
              {changeCurrency.isPending && (
                <span className="text-base-content/70 flex items-center gap-1 text-xs" role="status">
                  <span className="loading loading-spinner loading-xs" aria-hidden="true" />
                  {t('stores.saving')}
                </span>
              )}
            </div>
          )}
          <div className="ml-auto flex shrink-0 items-center gap-1">
            {!isActive && (
              <button
                type="button"
                className="btn btn-outline btn-sm gap-1.5"
                onClick={() => switchTo.mutate({ storeId: store.id })}
                disabled={switchTo.isPending}
                aria-label={t('stores.switchTo', { name: store.name })}
              >
                {switchTo.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <ArrowRightLeftIcon />}
                {t('stores.switch')}
              </button>
            )}
            {owned && (
              // Disabled, not hidden, while a change runs: the row keeps its layout.
              <button
                type="button"
                className={`btn btn-ghost btn-sm btn-square ${editingZone ? 'btn-active' : ''}`}
                onClick={() => setEditingZone((open) => !open)}
                disabled={zoneChange.running}
                aria-expanded={editingZone}
                aria-label={t('stores.timezone.open', { name: store.name })}
                title={zoneChange.running ? t('stores.timezone.busy') : t('stores.timezone.open', { name: store.name })}
              >
                <GlobeIcon />
              </button>
            )}
            {owned && !editing && (
              <button
                type="button"
                className="btn btn-ghost btn-sm btn-square"
                onClick={startEditing}
                aria-label={t('stores.rename.open', { name: store.name })}
                title={t('stores.rename.open', { name: store.name })}
              >
                <PencilIcon />
              </button>
            )}
            {owned && (
              <button
                type="button"
                className="btn btn-ghost btn-sm btn-square text-error"
                onClick={() => onDelete(store)}
                aria-label={t('stores.delete.open', { name: store.name })}
                title={t('stores.delete.open', { name: store.name })}
              >
                <TrashIcon />
              </button>
            )}
          </div>
        </div>
      </div>
      {((editingZone && !zoneChange.running) || zoneChange.running || zoneChange.failure) && (
        // Under the store's name, past its icon (size-10 + gap-3).
        <div className="sm:pl-13">
          {editingZone && !zoneChange.running && <TimezoneEditor store={store} onClose={() => setEditingZone(false)} onQueued={zoneChange.expect} />}
          {zoneChange.running && zoneChange.change && <TimezoneProgress change={zoneChange.change} />}
          {zoneChange.failure && !zoneChange.running && <TimezoneFailure change={zoneChange.failure} onDismiss={zoneChange.dismissFailure} />}
        </div>
      )}
    </li>
  );
}
