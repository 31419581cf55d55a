import { CheckCheckIcon, CopyIcon, DownloadIcon, InfoIcon, RefreshCwIcon, SearchIcon, ShoppingCartIcon } from 'lucide-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'wouter';
import { ADS_WINDOW_DAYS, AUDIT_PAGE_SIZE, AUDIT_SORTS, FEED_ISSUE_TYPES, type AuditSort, type FeedIssueType } from '../../../shared/shopping-optimizer.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { DataError, DataLoading, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageButtons } from '../../components/page-buttons.tsx';
import { SortableHeader } from '../../components/sortable-header.tsx';
import { toast } from '../../components/toast.tsx';
import { formatCurrency } from '../../lib/format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { useAccess } from '../../lib/use-access.ts';
import { DataScreenPage } from '../data-screens/data-screen-page.tsx';
import { isPageCheckActive, PageCheckPanel } from './page-check-panel.tsx';
import { ProductFeedDrawer, scoreTone } from './product-feed-drawer.tsx';

/** Admins in their own view get the tool; everyone else keeps the 'Coming Soon' screen (spec section 2). */
export function ShoppingOptimizerRoute() {
  const access = useAccess();
  if (!access.adminToolsAvailable) return <DataScreenPage screen="shoppingOptimizer" />;
  return <ShoppingOptimizerPage />;
}

function ShoppingOptimizerPage() {
  const { t } = useTranslation('shopping-optimizer');
  return (
    <DataPage title={t('page.title')} description={t('page.description')} showDateRange={false}>
      <StoreDataGate>
        <FeedPanel />
        <AuditSection />
      </StoreDataGate>
    </DataPage>
  );
}

function FeedPanel() {
  const { t } = useTranslation('shopping-optimizer');
  const utils = trpc.useUtils();
  const settings = trpc.shoppingOptimizer.settings.useQuery();
  const [confirming, setConfirming] = useState(false);
  const regenerate = trpc.shoppingOptimizer.regenerateFeedUrl.useMutation({
    onSuccess: (data) => {
      utils.shoppingOptimizer.settings.setData(undefined, data);
      setConfirming(false);
      toast({ title: t('feed.regenerated'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('feed.regenerateFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  const save = trpc.shoppingOptimizer.updateSettings.useMutation({
    onSuccess: async (data) => {
      utils.shoppingOptimizer.settings.setData(undefined, data);
      await utils.shoppingOptimizer.audit.invalidate();
      toast({ title: t('defaults.saved'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('defaults.saveFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });

  if (settings.isError) return <DataError error={settings.error} onRetry={() => void settings.refetch()} />;
  if (settings.isPending) return <div className="skeleton rounded-box h-40" role="status" aria-label={t('feed.loading')} />;
  const data = settings.data;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(data.xmlUrl);
      toast({ title: t('feed.copied'), variant: 'success' });
    } catch {
      toast({ title: t('feed.copyFailed'), variant: 'destructive' });
    }
  };

  return (
    <section className="bg-base-100 border-base-content/10 rounded-box grid gap-6 border p-4 shadow-xs lg:grid-cols-2" data-testid="feed-panel">
      <div className="min-w-0 space-y-3">
        <h2 className="font-semibold">{t('feed.title')}</h2>
        <p className="text-base-content/70 text-sm">{t('feed.body')}</p>
        <div className="join w-full">
          <input className="input input-sm join-item w-full min-w-0 font-mono text-xs" readOnly value={data.xmlUrl} aria-label={t('feed.urlLabel')} data-testid="feed-url" />
          <button type="button" className="btn btn-sm join-item" onClick={() => void copy()} aria-label={t('feed.copy')} title={t('feed.copy')}>
            <CopyIcon className="size-4" aria-hidden="true" />
          </button>
        </div>
        <div className="flex flex-wrap gap-2">
          <a className="btn btn-sm btn-primary gap-1" href={data.xmlUrl} download="google-feed.xml" data-testid="download-xml">
            <DownloadIcon className="size-4" aria-hidden="true" />
            {t('feed.downloadXml')}
          </a>
          <a className="btn btn-sm btn-outline gap-1" href={data.tsvUrl} download="google-feed.tsv" data-testid="download-tsv">
            <DownloadIcon className="size-4" aria-hidden="true" />
            {t('feed.downloadTsv')}
          </a>
          <button type="button" className="btn btn-sm btn-ghost gap-1" onClick={() => setConfirming(true)}>
            <RefreshCwIcon className="size-4" aria-hidden="true" />
            {t('feed.regenerate')}
          </button>
        </div>
      </div>
      <form
        className="min-w-0 space-y-3"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          save.mutate({ linkTemplate: String(form.get('linkTemplate') ?? ''), defaultBrand: String(form.get('defaultBrand') ?? '') });
        }}
      >
        <h2 className="flex flex-wrap items-center gap-2 font-semibold">
          {t('defaults.title')}
          <span className={`badge badge-sm ${data.llmConfigured ? 'badge-secondary' : 'badge-ghost'}`} data-testid="llm-status">
            {data.llmConfigured ? t('defaults.aiOn') : t('defaults.aiOff')}
          </span>
        </h2>
        <label className="block">
          <span className="text-sm font-medium">{t('defaults.linkTemplate')}</span>
          <input name="linkTemplate" className="input input-sm mt-1 w-full" defaultValue={data.linkTemplate} placeholder="https://shop.example/products/{id}" maxLength={500} />
          <span className="text-base-content/70 mt-1 block text-xs">{t('defaults.linkTemplateHint')}</span>
        </label>
        <label className="block">
          <span className="text-sm font-medium">{t('defaults.brand')}</span>
          <input name="defaultBrand" className="input input-sm mt-1 w-full" defaultValue={data.defaultBrand} maxLength={70} />
        </label>
        <button type="submit" className="btn btn-sm" disabled={save.isPending}>
          {save.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          {t('defaults.save')}
        </button>
      </form>
      <ConfirmDialog
        open={confirming}
        title={t('feed.regenerateTitle')}
        body={t('feed.regenerateBody')}
        confirmLabel={t('feed.regenerate')}
        cancelLabel={t('actions.cancel')}
        pending={regenerate.isPending}
        onConfirm={() => regenerate.mutate(undefined)}
        onClose={() => setConfirming(false)}
      />
    </section>
  );
}

function AuditSection() {
  const { t, i18n } = useTranslation('shopping-optimizer');
  const utils = trpc.useUtils();
  const [params, setParams] = useSearchParams();
  const issue = (FEED_ISSUE_TYPES as readonly string[]).includes(params.get('issue') ?? '') ? (params.get('issue') as FeedIssueType) : null;
  const search = params.get('q') ?? '';
  const sort: AuditSort = AUDIT_SORTS.find((key) => key === params.get('sort')) ?? 'score';
  const direction = params.get('dir') === 'desc' ? 'desc' : 'asc';
  const days = ADS_WINDOW_DAYS.find((value) => String(value) === params.get('days')) ?? 30;
  const openId = Number(params.get('product')) || null;
  const requestedPage = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const [bulkOpen, setBulkOpen] = useState(false);
  const input = { page: requestedPage, pageSize: AUDIT_PAGE_SIZE, sort, direction, issue, search: search.trim(), days } as const;
  // While a page check runs, its progress and results arrive with the audit. The previous page stays on
  // screen while the next one loads.
  const audit = trpc.shoppingOptimizer.audit.useQuery(input, {
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (isPageCheckActive(query.state.data?.pageCheck) ? 2000 : false),
  });
  const setParam = (changes: Record<string, string | null>) =>
    setParams((previous) => {
      const next = new URLSearchParams(previous);
      for (const [key, value] of Object.entries(changes)) (value === null || value === '' ? next.delete(key) : next.set(key, value));
      if (['q', 'issue', 'sort', 'days'].some((key) => key in changes)) next.delete('page');
      return next;
    }, { replace: true });

  const bulk = trpc.shoppingOptimizer.acceptSuggestions.useMutation({
    onSuccess: async (result) => {
      setBulkOpen(false);
      await utils.shoppingOptimizer.audit.invalidate();
      toast({ title: t('bulk.done', { count: result.accepted }), variant: 'success' });
    },
    onError: (error) => toast({ title: t('bulk.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });

  if (audit.isError) return <DataError error={audit.error} onRetry={() => void audit.refetch()} />;
  if (audit.isPending) return <DataLoading label={t('audit.loading')} cards={4} gridClassName="grid-cols-2 lg:grid-cols-4" chartClassName="h-96" />;
  const data = audit.data;
  if (data.productCount === 0) return <EmptyState icon={ShoppingCartIcon} title={t('audit.emptyTitle')} body={t('audit.emptyBody')} />;
  const pages = Math.max(1, Math.ceil(data.matching / data.pageSize));
  const page = data.page;
  // Spend sorts the biggest first: fixes where the money goes come first.
  const onSort = (key: AuditSort) => setParam({ sort: key, dir: sort === key ? (direction === 'asc' ? 'desc' : 'asc') : key === 'spend' ? 'desc' : 'asc' });
  const number = new Intl.NumberFormat(i18n.resolvedLanguage);
  const ads = data.adsPerformance;
  const showAds = ads.status === 'ready';
  const money = (minor: number) => formatCurrency(minor / 100, ads.currency, i18n.resolvedLanguage);

  return (
    <div className="space-y-4" data-testid="feed-audit" data-state={audit.isFetching ? 'loading' : 'ready'}>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <div role="note" className={`alert alert-soft grow text-sm ${showAds ? 'alert-success' : 'alert-info'}`} data-testid="ads-note" data-status={ads.status} data-cost-minor={ads.costMinor}>
          <InfoIcon className={`${showAds ? 'text-success' : 'text-info'} size-4 shrink-0`} aria-hidden="true" />
          <span className="text-base-content">
            {showAds
              ? t('ads.ready', { cost: money(ads.costMinor), days: ads.days })
              : t(ads.status === 'no_rows' ? 'ads.noRows' : 'ads.notConnected', { days: ads.days })}
            {showAds && ads.unmatchedItems > 0 && ` ${t('ads.unmatched', { count: ads.unmatchedItems })}`}
          </span>
        </div>
        <select className="select select-sm w-full sm:w-44" value={days} aria-label={t('ads.window')} onChange={(event) => setParam({ days: event.target.value === '30' ? null : event.target.value })} data-testid="ads-window">
          {ADS_WINDOW_DAYS.map((value) => (
            <option key={value} value={value}>
              {t('ads.lastDays', { count: value })}
            </option>
          ))}
        </select>
      </div>
      <PageCheckPanel check={data.pageCheck} />
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5" data-testid="issue-tiles">
        <div className="bg-base-100 border-base-content/10 rounded-box border p-3 shadow-xs">
          <p className="text-base-content/80 text-sm font-semibold">{t('audit.averageScore')}</p>
          <p className="mt-2 text-2xl font-semibold tabular-nums" data-testid="average-score">
            {data.averageScore ?? '—'}
            <span className="text-base-content/60 text-sm font-normal"> / 100</span>
          </p>
          <p className="text-base-content/70 text-xs" data-testid="product-count" data-count={data.productCount}>
            {t('audit.productCount', { count: data.productCount })}
          </p>
        </div>
        {FEED_ISSUE_TYPES.filter((type) => data.totals[type]).map((type) => (
          <button
            key={type}
            type="button"
            aria-pressed={issue === type}
            className={`bg-base-100 border-base-content/10 rounded-box hover:border-primary/40 border p-3 text-left shadow-xs transition-colors ${issue === type ? 'border-primary ring-primary/30 ring-2' : ''}`}
            onClick={() => setParam({ issue: issue === type ? null : type })}
            data-testid={`tile-${type}`}
          >
            <span className="text-base-content/80 block text-sm leading-snug font-semibold">{t(`issues.${type}.label`)}</span>
            <span className="mt-2 block text-2xl font-semibold tabular-nums">{number.format(data.totals[type] ?? 0)}</span>
          </button>
        ))}
      </div>

      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-center">
        <label className="input input-sm w-full sm:w-72">
          <SearchIcon className="text-base-content/60 size-4" aria-hidden="true" />
          <input type="search" className="grow" value={search} placeholder={t('table.searchPlaceholder')} aria-label={t('table.search')} maxLength={100} onChange={(event) => setParam({ q: event.target.value })} data-testid="product-search" />
        </label>
        <select className="select select-sm w-full sm:w-64" value={issue ?? ''} aria-label={t('table.filter')} onChange={(event) => setParam({ issue: event.target.value || null })} data-testid="issue-filter">
          <option value="">{t('table.allIssues')}</option>
          {FEED_ISSUE_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`issues.${type}.label`)}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-sm btn-primary gap-1 sm:ml-auto" disabled={data.suggestionCount === 0} onClick={() => setBulkOpen(true)} data-testid="bulk-accept">
          <CheckCheckIcon className="size-4" aria-hidden="true" />
          {t('bulk.button', { count: data.suggestionCount })}
        </button>
      </div>

      {data.matching === 0 ? (
        <p className="text-base-content/70 py-8 text-center" data-testid="no-matches">
          {t('table.noMatches')}
        </p>
      ) : (
        <div className="bg-base-100 border-base-content/10 rounded-box overflow-x-auto border shadow-xs">
          <table className="table-sm table" data-testid="products-table">
            <thead>
              <tr>
                <SortableHeader label={t('table.product')} sort="title" current={{ sort, direction }} onSort={onSort} title={t('table.sortBy', { column: t('table.product') })} />
                <SortableHeader label={t('table.score')} sort="score" current={{ sort, direction }} onSort={onSort} title={t('table.sortBy', { column: t('table.score') })} align="right" />
                {showAds && <SortableHeader label={t('table.spend')} sort="spend" current={{ sort, direction }} onSort={onSort} title={t('table.sortBy', { column: t('table.spend') })} align="right" />}
                <SortableHeader label={t('table.issues')} sort="issues" current={{ sort, direction }} onSort={onSort} title={t('table.sortBy', { column: t('table.issues') })} align="right" />
                {showAds && (
                  <th scope="col" className="hidden text-right md:table-cell">
                    {t('table.clicks')}
                  </th>
                )}
                {showAds && (
                  <th scope="col" className="hidden text-right md:table-cell">
                    {t('table.conversions')}
                  </th>
                )}
                <th scope="col" className="hidden text-right sm:table-cell">
                  {t('table.suggestions')}
                </th>
              </tr>
            </thead>
            <tbody>
              {data.products.map((product) => (
                <tr key={product.productId} className="hover:bg-base-200/60 cursor-pointer" onClick={() => setParam({ product: String(product.productId) })} data-testid="product-row">
                  <td className="max-w-[14rem] sm:max-w-md">
                    <button type="button" className="link link-hover block truncate text-left font-medium" onClick={(event) => { event.stopPropagation(); setParam({ product: String(product.productId) }); }}>
                      {product.title}
                    </button>
                    <span className="text-base-content/60 block truncate font-mono text-xs">{product.offerId}</span>
                  </td>
                  <td className="text-right">
                    <span className={`badge badge-sm tabular-nums ${scoreTone(product.score)}`} data-testid="row-score">
                      {product.score}
                    </span>
                  </td>
                  {showAds && (
                    <td className="text-right tabular-nums whitespace-nowrap" data-testid="row-spend">
                      {product.ads ? money(product.ads.costMinor) : <span className="text-base-content/50">—</span>}
                    </td>
                  )}
                  <td className="text-right tabular-nums">{product.issues.length}</td>
                  {showAds && <td className="hidden text-right tabular-nums md:table-cell">{product.ads ? number.format(product.ads.clicks) : '—'}</td>}
                  {showAds && <td className="hidden text-right tabular-nums md:table-cell">{product.ads ? number.format(product.ads.conversions) : '—'}</td>}
                  <td className="hidden text-right tabular-nums sm:table-cell">{product.suggestions.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-base-content/70 text-sm" data-testid="match-count">
          {t('table.matches', { count: data.matching })}
        </p>
        {pages > 1 && (
          <PageButtons page={page} pages={pages} onPage={(next) => setParam({ page: String(next) })} pageText={t('table.page', { page, pages })} previousLabel={t('table.previous')} nextLabel={t('table.next')} />
        )}
      </div>

      <ProductFeedDrawer productId={openId} onClose={() => setParam({ product: null })} />
      <ConfirmDialog
        open={bulkOpen}
        title={t('bulk.title')}
        body={t('bulk.body', { count: data.suggestionCount, products: data.productsWithSuggestions })}
        confirmLabel={t('bulk.confirm')}
        cancelLabel={t('actions.cancel')}
        tone="primary"
        pending={bulk.isPending}
        onConfirm={() => bulk.mutate({ filter: { issue, search: search.trim() } })}
        onClose={() => setBulkOpen(false)}
      />
    </div>
  );
}
