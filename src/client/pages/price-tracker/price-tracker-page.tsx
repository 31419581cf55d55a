import { BellIcon, DownloadIcon, ListPlusIcon, PencilIcon, RefreshCwIcon, TagIcon, Trash2Icon } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CompetitorRow, PriceAlert, PriceTrackerList, TrackedProductRow } from '../../../shared/price-tracker.ts';
import { Chart } from '../../components/chart.tsx';
import { ConfirmDialog, useConfirmation } from '../../components/confirm-dialog.tsx';
import { DataError, DataLoading, useViewOnly } from '../../components/data-page.tsx';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { toast } from '../../components/toast.tsx';
import { formatCurrency } from '../../lib/format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AddCompetitorForm, BulkAddDialog, EditCompetitorDialog, type EditTarget } from './price-forms.tsx';

// /price-tracker: competitors' prices for the store's products (README, "Competitor price tracker").

function useMoney() {
  const { i18n } = useTranslation();
  const locale = i18n.resolvedLanguage ?? 'en';
  return (minor: number | null, currency: string | null) => (minor === null || currency === null ? '—' : formatCurrency(minor / 100, currency, locale));
}

function useDateTime() {
  const { i18n } = useTranslation();
  const format = new Intl.DateTimeFormat(i18n.resolvedLanguage ?? 'en', { dateStyle: 'medium', timeStyle: 'short' });
  return (iso: string | null) => (iso === null ? '—' : format.format(new Date(iso)));
}

function DifferenceBadge({ percent }: { percent: number | null }) {
  const { t } = useTranslation('price-tracker');
  if (percent === null) return <span className="text-base-content/60">—</span>;
  const tone = percent < 0 ? 'text-error' : percent > 0 ? 'text-success' : '';
  return (
    <span className={`font-medium tabular-nums ${tone}`} title={percent < 0 ? t('table.cheaper') : t('table.dearer')}>
      {percent > 0 ? '+' : ''}
      {percent.toFixed(1)} %
    </span>
  );
}

function StatusCell({ row }: { row: CompetitorRow }) {
  const { t } = useTranslation('price-tracker');
  if (row.status === 'pending') {
    return (
      <span className="badge badge-ghost badge-sm gap-1" data-testid="competitor-checking">
        <span className="loading loading-spinner loading-xs" aria-hidden="true" />
        {t('status.pending')}
      </span>
    );
  }
  if (row.status === 'ok') {
    return (
      <div className="flex flex-col gap-1">
        <span className="badge badge-success badge-soft badge-sm">{t('status.ok')}</span>
        {row.availability === 'out_of_stock' && <span className="badge badge-warning badge-sm">{t('availability.out_of_stock')}</span>}
      </div>
    );
  }
  return (
    <div className="flex max-w-72 flex-col gap-1">
      <span className="badge badge-error badge-sm">{t(`errors.${row.errorReason ?? 'network'}.title`, { status: row.errorStatus ?? '' })}</span>
      <span className="text-base-content/70 text-xs break-words" data-testid="competitor-error">
        {t(`errors.${row.errorReason ?? 'network'}.hint`)}
      </span>
    </div>
  );
}

/** Below 768 px each competitor is a small grid, its figures labelled from data-label (the table head is hidden). */
const MOBILE_LABEL = 'max-md:before:block max-md:before:text-xs max-md:before:font-normal max-md:before:text-base-content/60 max-md:before:content-[attr(data-label)]';

function CompetitorLine({ row, currency, viewOnly, onEdit, onDelete }: { row: CompetitorRow; currency: string; viewOnly: boolean; onEdit: (row: CompetitorRow) => void; onDelete: (row: CompetitorRow) => void }) {
  const { t } = useTranslation('price-tracker');
  const money = useMoney();
  const dateTime = useDateTime();
  const utils = trpc.useUtils();
  const check = trpc.priceTracker.checkNow.useMutation({
    onSuccess: () => void utils.priceTracker.invalidate(),
    onError: (error) => toast({ title: t('actions.checkFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  return (
    <tr data-testid="competitor-row" data-competitor-id={row.id} data-status={row.status} className="max-md:border-base-300 max-md:grid max-md:grid-cols-3 max-md:gap-x-2 max-md:border-b max-md:py-2">
      <td className="max-w-64 max-md:col-span-3 max-md:max-w-none">
        <a href={row.url} target="_blank" rel="noreferrer noopener" className="link link-hover font-medium break-all">
          {row.domain}
        </a>
        <div className="text-base-content/60 truncate text-xs" title={row.url}>
          {new URL(row.url).pathname}
        </div>
      </td>
      <td className={`text-right tabular-nums max-md:text-left ${MOBILE_LABEL}`} data-label={t('table.price')} data-testid="competitor-price">
        {money(row.priceMinor, row.currency ?? currency)}
        {row.currency && row.currency !== currency && row.priceInStoreCurrencyMinor !== null && <div className="text-base-content/60 text-xs">≈ {money(row.priceInStoreCurrencyMinor, currency)}</div>}
      </td>
      <td className={`text-right max-md:text-left ${MOBILE_LABEL}`} data-label={t('table.difference')} data-testid="competitor-difference">
        <DifferenceBadge percent={row.differencePercent} />
      </td>
      <td className={`text-sm md:whitespace-nowrap ${MOBILE_LABEL}`} data-label={t('table.lastCheck')}>
        {dateTime(row.lastCheckedAt)}
      </td>
      <td className="max-md:col-span-2">
        <StatusCell row={row} />
      </td>
      <td className="max-md:self-center">
        <div className="flex justify-end gap-1">
          <button type="button" className="btn btn-ghost btn-sm btn-square" aria-label={t('actions.checkNow')} title={t('actions.checkNow')} disabled={viewOnly || check.isPending} aria-busy={check.isPending} onClick={() => check.mutate({ id: row.id })} data-testid="check-now">
            <RefreshCwIcon className={`size-4 ${check.isPending ? 'animate-spin' : ''}`} aria-hidden="true" />
          </button>
          <button type="button" className="btn btn-ghost btn-sm btn-square" aria-label={t('actions.edit')} title={t('actions.edit')} disabled={viewOnly} onClick={() => onEdit(row)}>
            <PencilIcon className="size-4" aria-hidden="true" />
          </button>
          <button type="button" className="btn btn-ghost btn-sm btn-square text-error" aria-label={t('actions.delete')} title={t('actions.delete')} disabled={viewOnly} onClick={() => onDelete(row)}>
            <Trash2Icon className="size-4" aria-hidden="true" />
          </button>
        </div>
      </td>
    </tr>
  );
}

function PriceHistoryChart({ productKey }: { productKey: string }) {
  const { t, i18n } = useTranslation('price-tracker');
  const history = trpc.priceTracker.history.useQuery({ key: productKey });
  const locale = i18n.resolvedLanguage ?? 'en';
  const drawsOwn = history.data?.own.priceMinor != null && history.data.series.some((line) => line.points.length > 0);
  const options = useMemo(
    () => ({
      xaxis: { type: 'datetime' as const, labels: { datetimeUTC: false } },
      yaxis: { labels: { formatter: (value: number) => (history.data ? formatCurrency(value, history.data.currency, locale) : String(value)) } },
      // The own price dashed, so a competitor at the same price does not hide it.
      stroke: { curve: 'stepline' as const, width: 2, dashArray: [...(drawsOwn ? [6] : []), ...Array.from({ length: history.data?.series.length ?? 0 }, () => 0)] },
      markers: { size: 3 },
      chart: { animations: { enabled: false } },
    }),
    [history.data, locale, drawsOwn],
  );
  if (history.isError) return <DataError error={history.error} onRetry={() => void history.refetch()} />;
  if (!history.data) return <div className="skeleton h-64 w-full" aria-label={t('chart.loading')} />;
  const allTimes = history.data.series.flatMap((series) => series.points.map((point) => Date.parse(point.at)));
  const own = history.data.own.priceMinor;
  const series = [
    ...(!drawsOwn || own === null ? [] : [{ name: t('chart.own', { name: history.data.own.name }), data: [Math.min(...allTimes), Math.max(...allTimes)].map((x) => ({ x, y: own / 100 })) }]),
    ...history.data.series
      .filter((line) => line.points.length > 0)
      .map((line, _index, lines) => ({
        // Two pages of one shop are told apart by their paths.
        name: lines.filter((other) => other.domain === line.domain).length > 1 ? `${line.domain}${new URL(line.url).pathname}` : line.domain,
        data: line.points.map((point) => ({ x: Date.parse(point.at), y: point.priceMinor / 100 })),
      })),
  ];
  return <Chart type="line" series={series} options={options} height={260} ariaLabel={t('chart.label', { name: history.data.own.name })} testId="price-history-chart" />;
}

function ProductCard({ product, currency, viewOnly, onEdit, onDelete }: { product: TrackedProductRow; currency: string; viewOnly: boolean; onEdit: (row: CompetitorRow) => void; onDelete: (row: CompetitorRow) => void }) {
  const { t } = useTranslation('price-tracker');
  const money = useMoney();
  const [showChart, setShowChart] = useState(false);
  return (
    <section className="card bg-base-100 border-base-300 border shadow-sm" data-testid="tracked-product">
      <div className="card-body gap-3 p-4 sm:p-6">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 className="card-title text-lg break-words">{product.name}</h2>
          <div className="text-sm">
            {t('table.ownPrice')}: <span className="font-semibold tabular-nums" data-testid="own-price">{money(product.ownPriceMinor, currency)}</span>
          </div>
        </div>
        <div className="overflow-x-auto">
          <table className="table table-sm max-md:block max-md:[&_tbody]:block">
            <thead className="max-md:hidden">
              <tr>
                <th>{t('table.competitor')}</th>
                <th className="text-right">{t('table.price')}</th>
                <th className="text-right">{t('table.difference')}</th>
                <th>{t('table.lastCheck')}</th>
                <th>{t('table.status')}</th>
                <th className="text-right">
                  <span className="sr-only">{t('table.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {product.competitors.map((row) => (
                <CompetitorLine key={row.id} row={row} currency={currency} viewOnly={viewOnly} onEdit={onEdit} onDelete={onDelete} />
              ))}
            </tbody>
          </table>
        </div>
        <div>
          <button type="button" className="btn btn-ghost btn-sm" aria-expanded={showChart} onClick={() => setShowChart((shown) => !shown)}>
            {showChart ? t('chart.hide') : t('chart.show')}
          </button>
          {showChart && <PriceHistoryChart productKey={product.key} />}
        </div>
      </div>
    </section>
  );
}

function AlertsCard({ alerts, viewOnly }: { alerts: PriceAlert[]; viewOnly: boolean }) {
  const { t } = useTranslation('price-tracker');
  const money = useMoney();
  const dateTime = useDateTime();
  const utils = trpc.useUtils();
  const acknowledge = trpc.priceTracker.acknowledgeAlert.useMutation({ onSuccess: () => void utils.priceTracker.invalidate() });
  const open = alerts.filter((alert) => alert.acknowledgedAt === null);
  if (open.length === 0) return null;
  return (
    <section className="card bg-base-100 border-warning/40 border shadow-sm" data-testid="price-alerts" aria-labelledby="price-alerts-title">
      <div className="card-body gap-2 p-4 sm:p-6">
        <h2 id="price-alerts-title" className="card-title text-lg">
          <BellIcon className="text-warning size-5" aria-hidden="true" />
          {t('alerts.title')}
          <span className="badge badge-warning badge-sm">{open.length}</span>
        </h2>
        <ul className="divide-base-300 divide-y">
          {open.map((alert) => (
            <li key={alert.id} className="flex flex-wrap items-center justify-between gap-2 py-2" data-testid="price-alert" data-kind={alert.kind}>
              <div className="min-w-0">
                <p className="break-words">
                  {alert.kind === 'undercut'
                    ? t('alerts.undercut', { domain: alert.domain, product: alert.productName, price: money(alert.priceMinor, alert.currency), percent: Math.abs(alert.differencePercent ?? 0).toFixed(1) })
                    : t('alerts.outOfStock', { domain: alert.domain, product: alert.productName })}
                </p>
                <p className="text-base-content/60 text-xs">{dateTime(alert.createdAt)}</p>
              </div>
              <button type="button" className="btn btn-ghost btn-xs" disabled={viewOnly || acknowledge.isPending} onClick={() => acknowledge.mutate({ id: alert.id })}>
                {t('alerts.acknowledge')}
              </button>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function ExportButton() {
  const { t } = useTranslation('price-tracker');
  const utils = trpc.useUtils();
  const [pending, setPending] = useState(false);
  const download = async () => {
    setPending(true);
    try {
      const file = await utils.priceTracker.exportCsv.fetch(undefined, { staleTime: 0 });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([file.csv], { type: 'text/csv;charset=utf-8' }));
      link.download = file.filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (error) {
      toast({ title: t('actions.exportFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' });
    } finally {
      setPending(false);
    }
  };
  return (
    <button type="button" className="btn btn-sm gap-2" onClick={() => void download()} disabled={pending} aria-busy={pending} data-testid="export-csv">
      <DownloadIcon className="size-4" aria-hidden="true" />
      {t('actions.export')}
    </button>
  );
}

const PENDING_POLL_MS = 3_000;
const hasPendingChecks = (list: PriceTrackerList | undefined) => !!list?.products.some((product) => product.competitors.some((row) => row.status === 'pending'));

export function PriceTrackerPage() {
  const { t } = useTranslation('price-tracker');
  const viewOnly = useViewOnly();
  // Pages added in bulk are checked by the background job: the list is read again until every first check has landed.
  const list = trpc.priceTracker.list.useQuery(undefined, { refetchInterval: (query) => (hasPendingChecks(query.state.data) ? PENDING_POLL_MS : false) });
  const alerts = trpc.priceTracker.alerts.useQuery();
  const utils = trpc.useUtils();
  // The first checks may have raised alerts: read them again once the last one has landed.
  const checking = hasPendingChecks(list.data);
  const wasChecking = useRef(checking);
  useEffect(() => {
    if (wasChecking.current && !checking) void utils.priceTracker.alerts.invalidate();
    wasChecking.current = checking;
  }, [checking, utils]);
  const [bulkOpen, setBulkOpen] = useState(false);
  const [editing, setEditing] = useState<EditTarget | null>(null);
  const removal = useConfirmation<CompetitorRow>();
  const remove = trpc.priceTracker.remove.useMutation({
    onSuccess: () => {
      void utils.priceTracker.invalidate();
      removal.close();
      toast({ title: t('delete.done'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('delete.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });

  let content;
  if (list.isError) content = <DataError error={list.error} onRetry={() => void list.refetch()} />;
  else if (list.isPending) content = <DataLoading label={t('loading')} cards={2} gridClassName="grid-cols-1 sm:grid-cols-2" chartClassName="h-48" />;
  else {
    content = (
      <>
        <AlertsCard alerts={alerts.data?.items ?? []} viewOnly={viewOnly} />
        {list.data.products.length === 0 ? (
          <EmptyState icon={TagIcon} title={t('empty.title')} body={t('empty.body')} />
        ) : (
          list.data.products.map((product) => (
            <ProductCard key={product.key} product={product} currency={list.data.currency} viewOnly={viewOnly} onEdit={(row) => setEditing(row)} onDelete={(row) => removal.ask(row)} />
          ))
        )}
      </>
    );
  }

  return (
    <div className="mx-auto max-w-7xl space-y-6" data-testid="price-tracker" data-state={list.isPending ? 'loading' : list.isError ? 'error' : 'ready'}>
      <PageHeader title={t('title')} description={t('description')}>
        <div className="flex flex-wrap gap-2">
          <button type="button" className="btn btn-sm gap-2" onClick={() => setBulkOpen(true)} disabled={viewOnly}>
            <ListPlusIcon className="size-4" aria-hidden="true" />
            {t('actions.bulkAdd')}
          </button>
          <ExportButton />
        </div>
      </PageHeader>
      <section className="card bg-base-100 border-base-300 border shadow-sm" aria-labelledby="add-competitor-title">
        <div className="card-body p-4 sm:p-6">
          <h2 id="add-competitor-title" className="card-title text-lg">
            {t('form.title')}
          </h2>
          <AddCompetitorForm disabled={viewOnly} />
        </div>
      </section>
      {content}
      <BulkAddDialog open={bulkOpen} onClose={() => setBulkOpen(false)} />
      {editing && <EditCompetitorDialog key={editing.id} target={editing} onClose={() => setEditing(null)} />}
      <ConfirmDialog
        open={removal.open}
        title={t('delete.title')}
        body={t('delete.body', { url: removal.target?.url ?? '' })}
        confirmLabel={t('delete.confirm')}
        cancelLabel={t('delete.cancel')}
        pending={remove.isPending}
        onConfirm={() => removal.target && remove.mutate({ id: removal.target.id })}
        onClose={removal.close}
      />
    </div>
  );
}
