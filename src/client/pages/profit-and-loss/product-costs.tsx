import { keepPreviousData } from '@tanstack/react-query';
import { PackageIcon, SearchIcon } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FigureTableHead } from '../../components/figure-table-head.tsx';
import type { ProductCostRow } from '../../../shared/finance.ts';
import { DataError } from '../../components/data-page.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatStatementMoney, inputToMinor, minorToInput } from './pnl-format.ts';

const PAGE_SIZE = 10;
/** A figure column (header and cells) shown from the small breakpoint up. */
const WIDE_SCREEN_FIGURE = 'hidden text-right sm:table-cell';

/** The catalogue's unit costs (COGS), best sellers first, each editable in place. */
export function ProductCostsCard({ viewOnly }: { viewOnly: boolean }) {
  const { t } = useTranslation('finance');
  const searchId = useId();
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [applyToPastOrders, setApplyToPastOrders] = useState(true);
  // Typing settles for a moment before the list is asked again.
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(searchText.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(timer);
  }, [searchText]);
  const query = trpc.finance.products.list.useQuery({ page, pageSize: PAGE_SIZE, search: search || undefined }, { placeholderData: keepPreviousData });
  const pages = query.data ? Math.max(1, Math.ceil(query.data.total / PAGE_SIZE)) : 1;

  return (
    <SectionCard
      titleId="pnl-products-title"
      title={t('products.title')}
      description={t('products.description')}
      headingLevel={3}
      testId="pnl-products"
      actions={
        <label className="input input-sm w-full sm:w-64" htmlFor={searchId}>
          <SearchIcon aria-hidden="true" className="size-4 opacity-60" />
          <input id={searchId} type="search" placeholder={t('products.search')} aria-label={t('products.search')} value={searchText} onChange={(event) => setSearchText(event.target.value)} />
        </label>
      }
    >
      {!viewOnly && (
        // daisyUI's .label does not wrap: the French and German texts ran 11-32 px past a 390 px screen.
        <label className="label cursor-pointer items-start justify-start gap-2 text-sm whitespace-normal">
          <input type="checkbox" className="checkbox checkbox-sm checkbox-primary shrink-0" checked={applyToPastOrders} onChange={(event) => setApplyToPastOrders(event.target.checked)} data-testid="apply-past-orders" />
          <span className="min-w-0">{t('products.applyToPastOrders')}</span>
        </label>
      )}
      {query.isError && !query.data ? (
        <DataError error={query.error} onRetry={() => void query.refetch()} />
      ) : !query.data ? (
        <div className="skeleton h-64 rounded-box" role="status" aria-label={t('products.loading')} />
      ) : query.data.items.length === 0 ? (
        <div className="text-base-content/70 flex flex-col items-center gap-2 py-10 text-center text-sm">
          <PackageIcon aria-hidden="true" className="size-8 opacity-50" />
          {search ? t('products.noMatch', { search }) : t('products.empty')}
        </div>
      ) : (
        <div className={`overflow-x-auto ${query.isPlaceholderData ? 'opacity-60' : ''}`}>
          <table className="table-sm table tabular-nums">
            <FigureTableHead
              first={t('products.product')}
              figures={[
                { label: t('products.price'), className: WIDE_SCREEN_FIGURE },
                { label: t('products.units30d'), className: WIDE_SCREEN_FIGURE },
                { label: t('products.sales30d'), className: WIDE_SCREEN_FIGURE },
                { label: t('products.unitCost'), className: 'sm:min-w-40' },
              ]}
            />
            <tbody>
              {query.data.items.map((product) => (
                <ProductRow key={product.id} product={product} storeCurrency={query.data.currency} viewOnly={viewOnly} applyToPastOrders={applyToPastOrders} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {query.data && query.data.total > PAGE_SIZE && (
        <div className="flex items-center justify-between gap-2 text-sm">
          <span className="text-base-content/70">{t('products.pageOf', { page, pages, total: query.data.total })}</span>
          <div className="join">
            <button type="button" className="btn btn-sm join-item" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              {t('products.previous')}
            </button>
            <button type="button" className="btn btn-sm join-item" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
              {t('products.next')}
            </button>
          </div>
        </div>
      )}
    </SectionCard>
  );
}

function ProductRow({ product, storeCurrency, viewOnly, applyToPastOrders }: { product: ProductCostRow; storeCurrency: string; viewOnly: boolean; applyToPastOrders: boolean }) {
  const { t, i18n } = useTranslation('finance');
  const locale = i18n.resolvedLanguage ?? 'en';
  const inputId = useId();
  const utils = trpc.useUtils();
  const [text, setText] = useState(minorToInput(product.unitCostMinor));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setText(minorToInput(product.unitCostMinor)), [product.unitCostMinor]);
  const update = trpc.finance.products.updateCost.useMutation({
    onSuccess: async (result) => {
      toast({
        title: t('products.saved', { product: result.product.title }),
        description: applyToPastOrders ? t('products.savedPast', { count: result.updatedUnits }) : t('products.savedFuture'),
        variant: 'success',
      });
      await Promise.all([utils.finance.products.list.invalidate(), utils.finance.statement.invalidate()]);
    },
    onError: (failure) => toast({ title: t('products.saveFailed'), description: serverMessage(failure) ?? t('common.connection'), variant: 'destructive' }),
  });
  const parsed = inputToMinor(text);
  const changed = text.trim() !== minorToInput(product.unitCostMinor);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (parsed !== null && (Number.isNaN(parsed) || parsed < 0)) {
      setError(t('products.invalidCost'));
      return;
    }
    setError(null);
    update.mutate({ productId: product.id, unitCostMinor: parsed, applyToPastOrders });
  };

  return (
    <tr data-testid="product-row" data-product-id={product.id}>
      <td className="max-w-32 sm:max-w-56">
        <div className="truncate font-medium" title={product.title}>
          {product.title}
        </div>
        {product.sku && <div className="text-base-content/60 truncate text-xs">{product.sku}</div>}
        <div className="text-base-content/60 text-xs sm:hidden">{t('products.soldLately', { units: new Intl.NumberFormat(locale).format(product.unitsSold30d), price: formatStatementMoney(product.priceMinor, product.currency, locale) })}</div>
      </td>
      <td className={WIDE_SCREEN_FIGURE}>{formatStatementMoney(product.priceMinor, product.currency, locale)}</td>
      <td className={WIDE_SCREEN_FIGURE}>{new Intl.NumberFormat(locale).format(product.unitsSold30d)}</td>
      <td className={WIDE_SCREEN_FIGURE}>{formatStatementMoney(product.netSales30d, storeCurrency, locale)}</td>
      <td>
        {viewOnly ? (
          <span>{product.unitCostMinor === null ? t('products.noCost') : formatStatementMoney(product.unitCostMinor, product.currency, locale)}</span>
        ) : (
          <form className="flex items-start gap-1" onSubmit={submit} noValidate>
            <div className="flex flex-col">
              <label className={`input input-sm w-24 sm:w-28 ${error ? 'input-error' : ''}`} htmlFor={inputId}>
                <span className="text-base-content/60 text-xs">{product.currency}</span>
                <input
                  id={inputId}
                  inputMode="decimal"
                  value={text}
                  placeholder={t('products.noCost')}
                  aria-label={t('products.unitCostOf', { product: product.title })}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={error ? `${inputId}-error` : undefined}
                  onChange={(event) => {
                    setText(event.target.value);
                    setError(null);
                  }}
                  data-testid="cost-input"
                />
              </label>
              {error && (
                <span id={`${inputId}-error`} className="text-error mt-1 text-xs">
                  {error}
                </span>
              )}
            </div>
            <button type="submit" className="btn btn-sm btn-primary" disabled={!changed || update.isPending} aria-busy={update.isPending} data-testid="cost-save">
              {update.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : t('products.save')}
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}
