import { ArrowRightIcon, DatabaseIcon, PlugIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { serverMessage } from '../lib/session.ts';
import { trpc } from '../lib/trpc.ts';
import { useGuestStatus, useStores } from '../lib/use-access.ts';
import { DateRangePicker } from './date-range-picker.tsx';
import { EmptyState, PageHeader } from './empty-state.tsx';
import { toast } from './toast.tsx';

export interface DataPageProps {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons beside the date picker (export, settings). */
  actions?: ReactNode;
  /** False for screens that do not read a date range. */
  showDateRange?: boolean;
  children: ReactNode;
}

/** A data screen: its heading and description, the date picker on the right (below on a phone), then the content. */
export function DataPage({ title, description, actions, showDateRange = true, children }: DataPageProps) {
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <PageHeader title={title} description={description}>
        {(actions || showDateRange) && (
          // ml-auto: when a long description pushes the pickers onto their own line they stay on the
          // right, with the date caption under them still lined up with their right edge.
          <div className="flex w-full flex-col gap-2 sm:ml-auto sm:w-auto sm:flex-row sm:items-start">
            {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
            {showDateRange && <DateRangePicker />}
          </div>
        )}
      </PageHeader>
      {children}
    </div>
  );
}

/** Whether the caller may only look at the active store (a guest invitation, or an admin in guest mode). */
export function useViewOnly(): boolean {
  const { activeStore } = useStores();
  const { inGuestMode } = useGuestStatus();
  return inGuestMode || activeStore?.role === 'guest';
}

/** A data screen's skeleton while its figures load: a row of KPI cards above a chart; `label` is read out. */
export function DataLoading({ label, cards, gridClassName, chartClassName = 'h-72' }: { label: string; cards: number; gridClassName: string; chartClassName?: string }) {
  return (
    <div className="space-y-4" role="status" aria-live="polite">
      <span className="sr-only">{label}</span>
      <div className={`grid gap-3 ${gridClassName}`} aria-hidden="true">
        {Array.from({ length: cards }, (_, index) => (
          <div key={index} className="skeleton h-28 rounded-box" />
        ))}
      </div>
      <div className={`skeleton rounded-box ${chartClassName}`} aria-hidden="true" />
    </div>
  );
}

/** The data screens' skeleton while the store's data status loads. */
function GateLoading() {
  const { t } = useTranslation('data');
  return <DataLoading label={t('gate.loading')} cards={5} gridClassName="grid-cols-2 sm:grid-cols-3 xl:grid-cols-5" />;
}

/** A failed request of a data screen, with a retry button. */
export function DataError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation('data');
  return (
    <div role="alert" className="alert alert-error alert-soft flex flex-wrap justify-between" data-testid="data-error">
      <div>
        <p className="font-semibold">{t('error.title')}</p>
        <p className="text-sm">{serverMessage(error) ?? t('error.connection')}</p>
      </div>
      <button type="button" className="btn btn-sm" onClick={onRetry}>
        {t('error.retry')}
      </button>
    </div>
  );
}

/** An empty store: load the demo data (owners only) or connect a platform. */
function NoStoreData() {
  const { t } = useTranslation('data');
  const utils = trpc.useUtils();
  const viewOnly = useViewOnly();
  const load = trpc.demo.load.useMutation({
    onSuccess: async () => {
      // Every screen's figures change: drop them all.
      await utils.invalidate();
      toast({ title: t('gate.demoLoaded'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('gate.demoFailed'), description: serverMessage(error) ?? t('error.connection'), variant: 'destructive' }),
  });

  return (
    <EmptyState
      icon={DatabaseIcon}
      title={t('gate.title')}
      body={viewOnly ? t('gate.bodyViewOnly') : t('gate.body')}
      actions={
        !viewOnly && (
          <div className="mt-7 flex flex-col items-stretch justify-center gap-3 sm:flex-row sm:items-center">
            <button type="button" className="btn btn-primary gap-2" onClick={() => load.mutate()} disabled={load.isPending}>
              {load.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : <DatabaseIcon aria-hidden="true" />}
              {load.isPending ? t('gate.loadingDemo') : t('gate.loadDemo')}
            </button>
            <Link href="/integrations" className="btn btn-outline gap-2">
              <PlugIcon aria-hidden="true" />
              {t('gate.connect')}
              <ArrowRightIcon aria-hidden="true" />
            </Link>
          </div>
        )
      }
    />
  );
}

/** Renders the screen when the active store has data; otherwise the empty state that offers demo data. */
export function StoreDataGate({ children }: { children: ReactNode }) {
  const status = trpc.commerce.dataStatus.useQuery();
  if (status.isPending) return <GateLoading />;
  if (status.isError) return <DataError error={status.error} onRetry={() => void status.refetch()} />;
  if (!status.data.hasData) return <NoStoreData />;
  return <>{children}</>;
}
