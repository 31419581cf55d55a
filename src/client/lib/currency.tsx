import { useQueryClient, type Query } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { CURRENCIES, DEFAULT_CURRENCY, isSupportedCurrency, type CurrencyCode } from '../../shared/currencies.ts';
import { useAuth } from './auth.tsx';
import { STORES_QUERY } from './query-settings.ts';
import { trpc } from './trpc.ts';

export const NO_ACTIVE_STORE_MESSAGE = 'No active store selected';
const UNSUPPORTED_CURRENCY_MESSAGE = 'Unsupported currency';

export interface CurrencyContextValue {
  /** The active store's currency when supported, else GBP. */
  currency: CurrencyCode;
  symbol: string;
  /** Saves the code on the active store (PATCH /api/stores/{id}); rejects without an active store. */
  setCurrency: (code: string) => Promise<void>;
  saving: boolean;
}

const CurrencyContext = createContext<CurrencyContextValue | null>(null);

/**
 * Procedures whose answers do not depend on the display currency: the session, the stores (set from
 * the update's answer), the subscription, guest mode and connection health. Every other answer
 * (dashboard, ads, analytics, orders, reports, P&L...) carries amounts in the store's currency.
 */
const CURRENCY_INDEPENDENT_ROUTERS: ReadonlySet<string> = new Set(['auth', 'stores', 'subscription', 'admin', 'connections']);

/** A tRPC query key is [[router, procedure], {input, type}]. */
export function dependsOnCurrency(query: Pick<Query, 'queryKey'>): boolean {
  const [path] = query.queryKey as [unknown, ...unknown[]];
  const router = Array.isArray(path) ? path[0] : undefined;
  return typeof router !== 'string' || !CURRENCY_INDEPENDENT_ROUTERS.has(router);
}

/**
 * After a store's currency changed: fetches again every answer with amounts that is on screen, and
 * drops those of screens not on screen (a later visit loads them afresh instead of showing the old
 * currency while it refetches), so no figure keeps the old currency; resolves once they are in.
 */
export function useRefreshAmounts(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    queryClient.removeQueries({ predicate: (query) => dependsOnCurrency(query) && query.getObserversCount() === 0 });
    await queryClient.invalidateQueries({ predicate: dependsOnCurrency });
  }, [queryClient]);
}

/** The display currency: default GBP, following the active store's currency. */
function currencyOfStore(store: { currency: string } | null | undefined): CurrencyCode {
  return isSupportedCurrency(store?.currency) ? store.currency : DEFAULT_CURRENCY;
}

export function CurrencyProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const utils = trpc.useUtils();
  const refreshAmounts = useRefreshAmounts();
  const active = trpc.stores.active.useQuery(undefined, { ...STORES_QUERY, enabled: user !== null });
  const activeStore = user ? (active.data?.store ?? null) : null;
  const update = trpc.stores.update.useMutation({
    onSuccess: (store) => {
      // The returned store replaces its entry in the list and, being active, the active store.
      utils.stores.active.setData(undefined, (current) => (current?.store?.id === store.id ? { store } : current));
      utils.stores.list.setData(undefined, (list) => list?.map((entry) => (entry.id === store.id ? store : entry)));
      // Every money figure on screen follows at once: the answers in the old currency are fetched
      // again before the change is reported ("Currency changed to ..."), and those of screens not on
      // screen are marked stale, so no screen shows the old currency after the toast.
      return refreshAmounts();
    },
  });
  const { mutateAsync } = update;
  const storeId = activeStore?.id ?? null;

  const setCurrency = useCallback(
    async (code: string) => {
      if (!isSupportedCurrency(code)) throw new Error(UNSUPPORTED_CURRENCY_MESSAGE);
      if (storeId === null) throw new Error(NO_ACTIVE_STORE_MESSAGE);
      await mutateAsync({ storeId, currency: code });
    },
    [storeId, mutateAsync],
  );

  const currency = currencyOfStore(activeStore);
  const value = useMemo(
    () => ({ currency, symbol: CURRENCIES[currency].symbol, setCurrency, saving: update.isPending }),
    [currency, setCurrency, update.isPending],
  );
  return <CurrencyContext.Provider value={value}>{children}</CurrencyContext.Provider>;
}

export function useCurrency(): CurrencyContextValue {
  const value = useContext(CurrencyContext);
  if (!value) throw new Error('useCurrency must be used within a CurrencyProvider');
  return value;
}
