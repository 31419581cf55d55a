import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { CheckIcon, ChevronDownIcon, LayoutGridIcon, SettingsIcon, StoreIcon } from 'lucide-react';
import { Popover } from '../components/popover.tsx';
import { toast } from '../components/toast.tsx';
import { serverMessage } from '../lib/session.ts';
import { trpc } from '../lib/trpc.ts';
import { useStores } from '../lib/use-access.ts';

/**
 * The connected-to indicator: the active store, and a list to switch (POST /api/stores/active, then a
 * full reload); below it "All stores" (/dashboards, the stores side by side, when `allStores`: the user
 * may open it) and store management.
 */
export function StoreSwitcher({ allStores }: { allStores: boolean }) {
  const { t } = useTranslation('shell');
  const queryClient = useQueryClient();
  const { list, activeStore } = useStores();
  const setActive = trpc.stores.setActive.useMutation({
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      window.location.reload();
    },
    onError: (error) => {
      toast({
        title: t('toast.error'),
        description: t('store.switchFailed', { message: serverMessage(error) ?? error.message }),
        variant: 'destructive',
      });
    },
  });
  const name = activeStore?.name ?? t('store.none');

  return (
    <Popover
      align="start"
      testId="store-switcher"
      triggerClassName="btn btn-ghost h-auto min-h-10 max-w-[13.5rem] justify-start gap-2 px-2 py-1 text-left font-normal sm:max-w-xs"
      panelClassName="w-72 max-w-[calc(100vw-2rem)] p-2"
      trigger={
        <>
          <span className="bg-primary/10 text-primary grid size-8 shrink-0 place-items-center rounded-lg text-base">
            {setActive.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <StoreIcon />}
          </span>
          <span className="flex min-w-0 flex-col leading-tight">
            <span className="text-base-content/75 text-[11px] font-medium">{t('store.connectedTo')}</span>
            <span className="truncate text-sm font-semibold" data-testid="active-store-name">
              {name}
            </span>
          </span>
          <ChevronDownIcon className="text-base-content/60 shrink-0" />
        </>
      }
    >
      {(close) => (
        <div>
          <p className="text-base-content/70 px-3 pt-1 pb-2 text-xs font-semibold tracking-wide uppercase">{t('store.label')}</p>
          <ul className="menu w-full gap-0.5 p-0">
            {(list.data ?? []).map((store) => {
              const current = store.id === activeStore?.id;
              return (
                <li key={store.id}>
                  <button
                    type="button"
                    // aria-current makes daisyUI paint the row as menu-active (neutral-content text): set its colours.
                    className={
                      current
                        ? 'font-semibold [--menu-active-bg:color-mix(in_oklab,var(--color-primary)_12%,transparent)] [--menu-active-fg:var(--color-base-content)]'
                        : undefined
                    }
                    aria-current={current ? 'true' : undefined}
                    // The name holds the visible text, name then currency, so that speech input finds the button.
                    aria-label={current ? `${store.name} ${store.currency} (${t('store.current')})` : t('store.switchTo', { name: `${store.name} ${store.currency}` })}
                    disabled={setActive.isPending}
                    onClick={() => {
                      if (current) return close();
                      setActive.mutate({ storeId: store.id });
                    }}
                  >
                    <StoreIcon className="shrink-0" />
                    <span className="min-w-0 flex-1 truncate">{store.name}</span>{' '}
                    <span className="text-xs opacity-70">{store.currency}</span>
                    {current && <CheckIcon className="text-primary shrink-0" />}
                  </button>
                </li>
              );
            })}
          </ul>
          {setActive.isPending && (
            <p className="text-base-content/70 flex items-center gap-2 px-3 py-2 text-sm" role="status">
              <span className="loading loading-spinner loading-xs" aria-hidden="true" />
              {t('store.switching')}
            </p>
          )}
          <div className="border-base-content/10 mt-1 border-t pt-1">
            {allStores && (
              <Link href="/dashboards" className="btn btn-ghost btn-sm w-full justify-start gap-2 font-normal" onClick={close} data-testid="all-stores-link">
                <LayoutGridIcon />
                {t('store.allStores')}
              </Link>
            )}
            <Link href="/store-management" className="btn btn-ghost btn-sm w-full justify-start gap-2 font-normal" onClick={close}>
              <SettingsIcon />
              {t('store.manage')}
            </Link>
          </div>
        </div>
      )}
    </Popover>
  );
}
