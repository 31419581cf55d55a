import { keepPreviousData, useQueryClient } from '@tanstack/react-query';
import type { ApexOptions } from 'apexcharts';
import { ArrowRightIcon, StoreIcon } from 'lucide-react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { FigureTableHead, TableScroll } from '../../components/figure-table-head.tsx';
import { useLocation, useSearch } from 'wouter';
import { CURRENCY_CODES, isSupportedCurrency } from '../../../shared/currencies.ts';
import type { AllStoresOutput } from '../../../shared/dashboard.ts';
import { NO_VALUE } from '../../../shared/metrics.ts';
import { Chart } from '../../components/chart.tsx';
import { DataError, DataPage } from '../../components/data-page.tsx';
import { useDateRange } from '../../components/date-range-picker.tsx';
import { deltaTone, formatKpiCount, formatKpiMoney } from '../../components/kpi-card.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { compactAxisMoney, formatChange, formatMultipleIn } from '../../lib/figure-format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

type StoreKpis = AllStoresOutput['total'];

const DELTA_CLASS = { good: 'text-success', bad: 'text-error', neutral: 'text-base-content/70' } as const;

function NetSalesDelta({ kpis, locale }: { kpis: StoreKpis; locale: string }) {
  const percent = kpis.netSales.delta.percent;
  if (percent === null) return <span className="text-base-content/60">{NO_VALUE}</span>;
  return <span className={`font-medium ${DELTA_CLASS[deltaTone(percent)]}`}>{formatChange(percent, locale)}</span>;
}

/** The figures of one row (a store or the total), in the table's column order. */
function KpiCells({ kpis, currency, locale }: { kpis: StoreKpis; currency: string; locale: string }) {
  const money = (value: number | null) => formatKpiMoney(value, currency, locale) ?? NO_VALUE;
  return (
    <>
      <td className="text-right tabular-nums">{money(kpis.netSales.current)}</td>
      <td className="text-right tabular-nums">{money(kpis.spend.current)}</td>
      <td className="text-right tabular-nums">{formatKpiCount(kpis.orders.current, locale) ?? NO_VALUE}</td>
      <td className="text-right tabular-nums">{formatMultipleIn(kpis.roas.current, locale)}</td>
      <td className="text-right tabular-nums">{formatMultipleIn(kpis.mer.current, locale)}</td>
      <td className="text-right tabular-nums">{money(kpis.aov.current)}</td>
      <td className="text-right tabular-nums">
        <NetSalesDelta kpis={kpis} locale={locale} />
      </td>
    </>
  );
}

function StoresChart({ data }: { data: AllStoresOutput }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const series = [
    { name: t('stores.netSales'), data: data.stores.map((store) => (store.kpis.netSales.current ?? 0) / 100) },
    { name: t('stores.spend'), data: data.stores.map((store) => (store.kpis.spend.current ?? 0) / 100) },
  ];
  const nameKey = data.stores.map((store) => store.name).join('\u0000');
  const options = useMemo<ApexOptions>(() => {
    const format = (value: number) => formatKpiMoney(Math.round(value * 100), data.currency, locale) ?? NO_VALUE;
    // Compact amounts on the value axis, so its labels do not collide on a phone.
    const names = nameKey.split('\u0000');
    return {
      // Horizontal bars keep long store names readable on a phone.
      plotOptions: { bar: { horizontal: true, barHeight: '60%', borderRadius: 4 } },
      xaxis: { categories: names, tickAmount: 4, labels: { formatter: compactAxisMoney(locale, data.currency) } },
      yaxis: { labels: { maxWidth: 140, formatter: (value: number | string) => String(value) } },
      tooltip: { shared: true, intersect: false, y: { formatter: format } },
      grid: { padding: { right: 28 } },
    };
  }, [data.currency, locale, nameKey]);
  const height = Math.max(180, 70 + data.stores.length * 56);
  return (
    <SectionCard titleId="stores-chart-title" title={t('stores.chartTitle')}>
      <Chart type="bar" series={series} options={options} height={height} ariaLabel={t('stores.chartLabel')} testId="stores-chart" />
    </SectionCard>
  );
}

function StoresTable({ data, onOpen, opening }: { data: AllStoresOutput; onOpen: (storeId: number) => void; opening: number | null }) {
  const { t, i18n } = useTranslation('dashboard');
  const locale = i18n.resolvedLanguage ?? 'en';
  const headers = ['netSales', 'spend', 'orders', 'roas', 'mer', 'aov', 'delta'] as const;
  return (
    <SectionCard titleId="stores-table-title" title={t('stores.tableTitle')}>
      <TableScroll>
        <table className="table-sm table min-w-[44rem]" data-testid="stores-table">
          <FigureTableHead first={t('stores.store')} figures={headers.map((header) => t(`stores.${header}`))} />
          <tbody>
            {data.stores.map((store) => (
              <tr key={store.storeId} className="hover:bg-base-200/60" data-testid="store-row">
                <th scope="row" className="max-w-56">
                  <button
                    type="button"
                    className="link link-hover flex max-w-full items-center gap-2 text-left font-semibold"
                    onClick={() => onOpen(store.storeId)}
                    disabled={opening !== null}
                    title={t('stores.open', { name: store.name })}
                  >
                    {opening === store.storeId ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <StoreIcon className="size-4 shrink-0" aria-hidden="true" />}
                    <span className="truncate">{store.name}</span>
                    {store.storeId === data.activeStoreId && <span className="badge badge-primary badge-soft badge-xs">{t('stores.active')}</span>}
                  </button>
                  <span className="text-base-content/60 block text-xs font-normal">
                    {store.role === 'guest' ? t('stores.sharedBy', { owner: store.ownerUsername }) : store.storeCurrency}
                  </span>
                </th>
                <KpiCells kpis={store.kpis} currency={data.currency} locale={locale} />
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="bg-base-200/60 text-base-content font-semibold" data-testid="total-row">
              <th scope="row">{t('stores.total')}</th>
              <KpiCells kpis={data.total} currency={data.currency} locale={locale} />
            </tr>
          </tfoot>
        </table>
      </TableScroll>
      <p className="text-base-content/65 text-xs">{t('stores.note', { currency: data.currency })}</p>
    </SectionCard>
  );
}

/** Every store of the user (own and shared) side by side in one currency, with a total row. */
export function DashboardsPage() {
  const { t } = useTranslation('dashboard');
  const range = useDateRange();
  const search = useSearch();
  const [location, navigate] = useLocation();
  const queryClient = useQueryClient();
  const currencyParam = new URLSearchParams(search).get('currency');
  const currency = isSupportedCurrency(currencyParam) ? currencyParam : undefined;

  const stores = trpc.dashboard.allStores.useQuery({ from: range.from, to: range.to, compare: range.compare, currency }, { placeholderData: keepPreviousData });
  const setActive = trpc.stores.setActive.useMutation({
    onSuccess: async () => {
      // Every screen's figures belong to the newly active store now.
      await queryClient.invalidateQueries();
      navigate(`/dashboard?${new URLSearchParams({ from: range.from, to: range.to, compare: range.compare }).toString()}`);
    },
    onError: (error) => toast({ title: t('stores.openFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });

  function setCurrency(code: string) {
    const params = new URLSearchParams(search);
    params.set('currency', code);
    navigate(`${location}?${params.toString()}`, { replace: true });
  }

  const currencySelect = (
    <label className="flex w-full items-center gap-2 text-xs sm:w-auto">
      <span className="text-base-content/70 whitespace-nowrap">{t('stores.currency')}</span>
      <select
        className="select select-sm w-full sm:w-24"
        value={stores.data?.currency ?? currency ?? ''}
        onChange={(event) => setCurrency(event.target.value)}
        data-testid="display-currency"
      >
        {CURRENCY_CODES.map((code) => (
          <option key={code} value={code}>
            {code}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <DataPage title={t('stores.title')} description={t('stores.description')} actions={currencySelect}>
      {stores.isPending ? (
        <div className="space-y-4" aria-hidden="true">
          <div className="skeleton h-64 rounded-box" />
          <div className="skeleton h-56 rounded-box" />
        </div>
      ) : stores.isError ? (
        <DataError error={stores.error} onRetry={() => void stores.refetch()} />
      ) : (
        <div className={`space-y-6 transition-opacity ${stores.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={stores.isFetching}>
          <StoresTable data={stores.data} onOpen={(storeId) => setActive.mutate({ storeId })} opening={setActive.isPending && setActive.variables ? Number(setActive.variables.storeId) : null} />
          {stores.data.stores.length > 0 && <StoresChart data={stores.data} />}
          <p className="text-base-content/70 flex items-center gap-1 text-sm">
            <ArrowRightIcon className="size-4" aria-hidden="true" />
            {t('stores.hint')}
          </p>
        </div>
      )}
    </DataPage>
  );
}
