import { CheckCheckIcon, CopyIcon, DownloadIcon, InfoIcon, RefreshCwIcon, SearchIcon, ShoppingCartIcon } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'wouter';
import { FEED_ISSUE_TYPES, type AuditedProduct, type FeedIssueType } from '../../../shared/shopping-optimizer.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { DataError, DataLoading, DataPage, StoreDataGate } from '../../components/data-page.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageButtons } from '../../components/page-buttons.tsx';
import { SortableHeader } from '../../components/sortable-header.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { useAccess } from '../../lib/use-access.ts';
import { DataScreenPage } from '../data-screens/data-screen-page.tsx';
import { isPageCheckActive, PageCheckPanel } from './page-check-panel.tsx';
import { ProductFeedDrawer, scoreTone } from './product-feed-drawer.tsx';

type SortKey = 'score' | 'issues' | 'title';

const PAGE_SIZE = 25;

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
  // While a page check runs, its progress and results arrive with the audit.
  const audit = trpc.shoppingOptimizer.audit.useQuery(undefined, { refetchInterval: (query) => (isPageCheckActive(query.state.data?.pageCheck) ? 2000 : false) });
  const utils = trpc.useUtils();
  const [params, setParams] = useSearchParams();
  const issue = (FEED_ISSUE_TYPES as readonly string[]).includes(params.get('issue') ?? '') ? (params.get('issue') as FeedIssueType) : null;
  const search = params.get('q') ?? '';
  const sort: SortKey = (['score', 'issues', 'title'] as const).find((key) => key === params.get('sort')) ?? 'score';
  const direction = params.get('dir') === 'desc' ? 'desc' : 'asc';
  const openId = Number(params.get('product')) || null;
  const requestedPage = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const [bulkOpen, setBulkOpen] = useState(false);
  const setParam = (changes: Record<string, string | null>) =>
    setParams((previous) => {
      const next = new URLSearchParams(previous);
      for (const [key, value] of Object.entries(changes)) (value === null || value === '' ? next.delete(key) : next.set(key, value));
      if (['q', 'issue', 'sort'].some((key) => key in changes)) next.delete('page');
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

  const rows = useMemo(() => {
    if (!audit.data) return [];
    const needle = search.trim().toLowerCase();
    const filtered = audit.data.products.filter(
      (product) => (!issue || product.issues.some((entry) => entry.type === issue)) && (!needle || product.title.toLowerCase().includes(needle) || product.offerId.toLowerCase().includes(needle)),
    );
    const collator = new Intl.Collator(i18n.resolvedLanguage);
    const compare = (a: AuditedProduct, b: AuditedProduct) =>
      sort === 'title' ? collator.compare(a.title, b.title) : sort === 'issues' ? a.issues.length - b.issues.length : a.score - b.score;
    return filtered.sort((a, b) => (direction === 'asc' ? 1 : -1) * compare(a, b) || a.productId - b.productId);
  }, [audit.data, issue, search, sort, direction, i18n.resolvedLanguage]);

  if (audit.isError) return <DataError error={audit.error} onRetry={() => void audit.refetch()} />;
  if (audit.isPending) return <DataLoading label={t('audit.loading')} cards={4} gridClassName="grid-cols-2 lg:grid-cols-4" chartClassName="h-96" />;
  const data = audit.data;
  if (data.products.length === 0) return <EmptyState icon={ShoppingCartIcon} title={t('audit.emptyTitle')} body={t('audit.emptyBody')} />;
  const withSuggestions = rows.filter((product) => product.suggestions.length > 0);
  const suggestionCount = withSuggestions.reduce((sum, product) => sum + product.suggestions.length, 0);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const page = Math.min(requestedPage, pages);
  const pageRows = rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const onSort = (key: SortKey) => setParam({ sort: key, dir: sort === key && direction === 'asc' ? 'desc' : 'asc' });
  const number = new Intl.NumberFormat(i18n.resolvedLanguage);

  return (
    <div className="space-y-4" data-testid="feed-audit" data-state="ready">
      <div role="note" className="alert alert-info alert-soft text-sm" data-testid="ads-note">
        <InfoIcon className="text-info size-4 shrink-0" aria-hidden="true" />
        <span className="text-base-content">{t('audit.adsNote')}</span>
      </div>
      <PageCheckPanel check={data.pageCheck} />
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5" data-testid="issue-tiles">
        <div className="bg-base-100 border-base-content/10 rounded-box border p-3 shadow-xs">
          <p className="text-base-content/80 text-sm font-semibold">{t('audit.averageScore')}</p>
          <p className="mt-2 text-2xl font-semibold tabular-nums" data-testid="average-score">
            {data.averageScore ?? '—'}
            <span className="text-base-content/60 text-sm font-normal"> / 100</span>
          </p>
          <p className="text-base-content/70 text-xs" data-testid="product-count" data-count={data.products.length}>
            {t('audit.productCount', { count: data.products.length })}
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
        <button type="button" className="btn btn-sm btn-primary gap-1 sm:ml-auto" disabled={suggestionCount === 0} onClick={() => setBulkOpen(true)} data-testid="bulk-accept">
          <CheckCheckIcon className="size-4" aria-hidden="true" />
          {t('bulk.button', { count: suggestionCount })}
        </button>
      </div>

      {rows.length === 0 ? (
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
                <SortableHeader label={t('table.issues')} sort="issues" current={{ sort, direction }} onSort={onSort} title={t('table.sortBy', { column: t('table.issues') })} align="right" />
                <th scope="col" className="hidden text-right sm:table-cell">
                  {t('table.suggestions')}
                </th>
              </tr>
            </thead>
            <tbody>
              {pageRows.map((product) => (
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
                  <td className="text-right tabular-nums">{product.issues.length}</td>
                  <td className="hidden text-right tabular-nums sm:table-cell">{product.suggestions.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-base-content/70 text-sm" data-testid="match-count">
          {t('table.matches', { count: rows.length })}
        </p>
        {pages > 1 && (
          <PageButtons page={page} pages={pages} onPage={(next) => setParam({ page: String(next) })} pageText={t('table.page', { page, pages })} previousLabel={t('table.previous')} nextLabel={t('table.next')} />
        )}
      </div>

      <ProductFeedDrawer productId={openId} onClose={() => setParam({ product: null })} />
      <ConfirmDialog
        open={bulkOpen}
        title={t('bulk.title')}
        body={t('bulk.body', { count: suggestionCount, products: withSuggestions.length })}
        confirmLabel={t('bulk.confirm')}
        cancelLabel={t('actions.cancel')}
        tone="primary"
        pending={bulk.isPending}
        onConfirm={() => bulk.mutate({ productIds: withSuggestions.map((product) => product.productId) })}
        onClose={() => setBulkOpen(false)}
      />
    </div>
  );
}
