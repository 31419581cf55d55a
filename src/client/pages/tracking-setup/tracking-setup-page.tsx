import { RadarIcon, SendIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { DataError, DataLoading, useViewOnly } from '../../components/data-page.tsx';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { FirstPartySetup, InstallSteps } from './install-steps.tsx';
import { HealthCard, LiveEvents } from './live-view.tsx';
import { TrackingSettingsCard } from './settings-card.tsx';
import { SnippetCard } from './snippet-card.tsx';

/** How often the live view and the health figures are asked again while the page is visible (TanStack Query pauses them in a hidden tab). */
export const LIVE_POLL_MS = 3_000;

function SendTestEventButton({ disabled, className = '' }: { disabled: boolean; className?: string }) {
  const { t } = useTranslation('tracking-setup');
  const utils = trpc.useUtils();
  const send = trpc.tracking.sendTestEvent.useMutation({
    onSuccess: () => {
      toast({ title: t('test.sent'), description: t('test.sentHint'), variant: 'success' });
      void utils.tracking.recentEvents.invalidate();
      void utils.tracking.health.invalidate();
    },
    onError: (error) => toast({ title: t('test.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  return (
    <button type="button" className={`btn btn-sm btn-primary gap-2 ${className}`} disabled={disabled || send.isPending} aria-busy={send.isPending} onClick={() => send.mutate()}>
      {send.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <SendIcon className="size-4" aria-hidden="true" />}
      {t('test.button')}
    </button>
  );
}

/** /tracking-setup: install the pixel, set its rules, and watch events arrive. */
export function TrackingSetupPage() {
  const { t } = useTranslation('tracking-setup');
  const viewOnly = useViewOnly();
  const setup = trpc.tracking.setup.useQuery();
  const live = { refetchInterval: LIVE_POLL_MS, refetchIntervalInBackground: false, staleTime: 0 } as const;
  const recent = trpc.tracking.recentEvents.useQuery(undefined, live);
  const health = trpc.tracking.health.useQuery(undefined, live);
  const drops = trpc.tracking.droppedEvents.useQuery(undefined, { ...live, refetchInterval: 5 * LIVE_POLL_MS });

  let content;
  if (setup.isError || health.isError) {
    const failed = setup.isError ? setup : health;
    content = <DataError error={failed.error} onRetry={() => void failed.refetch()} />;
  } else if (setup.isPending || health.isPending) {
    content = <DataLoading label={t('loading')} cards={3} gridClassName="grid-cols-1 sm:grid-cols-3" chartClassName="h-64" />;
  } else {
    const neverReceived = health.data.lastEventAt === null;
    content = (
      <>
        {neverReceived && (
          <EmptyState
            icon={RadarIcon}
            title={t('empty.title')}
            body={t('empty.body')}
            actions={
              <div className="mt-6 flex flex-wrap justify-center gap-2">
                <a href="#install" className="btn btn-sm">
                  {t('empty.install')}
                </a>
                <SendTestEventButton disabled={viewOnly} />
              </div>
            }
          />
        )}
        <div className={`grid items-start gap-6 ${neverReceived ? '' : 'xl:grid-cols-2'}`}>
          <SnippetCard setup={setup.data} viewOnly={viewOnly} />
          {!neverReceived && <HealthCard health={health.data} drops={drops.data ?? []} />}
        </div>
        <LiveEvents events={recent.data ?? []} updatedAt={recent.dataUpdatedAt || Date.now()} actions={neverReceived ? undefined : <SendTestEventButton disabled={viewOnly} />} />
        <InstallSteps setup={setup.data} />
        <TrackingSettingsCard key={setup.data.storeKey} setup={setup.data} viewOnly={viewOnly} />
        <FirstPartySetup setup={setup.data} />
      </>
    );
  }

  return (
    <div className="mx-auto max-w-7xl space-y-6" data-testid="tracking-setup">
      <PageHeader title={t('title')} description={t('description')} />
      {content}
    </div>
  );
}
