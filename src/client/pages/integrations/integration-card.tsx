import { CircleAlertIcon, EllipsisVerticalIcon, KeyRoundIcon, PlugIcon, RefreshCwIcon, SquareIcon, TriangleAlertIcon, UnplugIcon, UploadIcon, WebhookIcon } from 'lucide-react';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_BACKFILL_MONTHS, type ConnectionStatus, type Integration } from '../../../shared/integrations.ts';
import { Popover } from '../../components/popover.tsx';
import { PlatformLogo } from '../../components/platform-logo.tsx';
import { currentLanguage } from '../../lib/i18n.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { displayStatus, formatRelativeTime, isRunActive, runPercent } from './integration-view.ts';
import { AccountsSection, zoneLabel } from './accounts-section.tsx';
import { ReconciliationPanel } from './reconciliation-panel.tsx';
import { useIntegrationCache } from './use-integration-cache.ts';

const STATUS_BADGE: Record<ConnectionStatus, string> = {
  not_connected: 'badge-ghost',
  connected: 'badge-success',
  syncing: 'badge-info',
  disconnected: 'badge-warning',
  error: 'badge-error',
  choose_accounts: 'badge-info',
};

const BACKFILL_CHOICES = Array.from({ length: MAX_BACKFILL_MONTHS }, (_, index) => index + 1);

export interface IntegrationCardProps {
  integration: Integration;
  title: string;
  /** Guests (and admins in guest mode) see the status but no buttons. */
  viewOnly: boolean;
  onConnect: (integration: Integration) => void;
  onDisconnect: (integration: Integration) => void;
}

export function IntegrationCard({ integration, title, viewOnly, onConnect, onDisconnect }: IntegrationCardProps) {
  const { t } = useTranslation('integrations');
  const headingId = useId();
  const locale = currentLanguage();
  const status = displayStatus(integration);
  const run = integration.currentRun;
  const active = isRunActive(run);
  const everConnected = integration.status !== 'not_connected';

  return (
    <article
      className="card bg-base-100 border-base-content/10 h-full border shadow-xs"
      aria-labelledby={headingId}
      data-testid="integration-card"
      data-platform={integration.platform}
      data-status={status}
    >
      <div className="card-body gap-4 p-4 sm:p-5">
        <header className="flex items-start gap-3">
          <PlatformLogo platform={integration.platform} />
          <div className="min-w-0 flex-1">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <h3 id={headingId} className="text-base font-semibold">
                {title}
              </h3>
              <span className={`badge badge-sm whitespace-nowrap ${STATUS_BADGE[status]}`} data-testid="integration-status">
                {status === 'syncing' && <span className="loading loading-spinner size-3" aria-hidden="true" />}
                {t(`status.${status}`)}
              </span>
            </div>
            <p className="text-base-content/75 mt-0.5 text-sm">{t(`descriptions.${integration.platform}`)}</p>
          </div>
          {!viewOnly && <CardMenu integration={integration} title={title} />}
        </header>

        {everConnected && (
          <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-3">
            <div className="col-span-2 min-w-0 sm:col-span-1">
              <dt className="text-base-content/70 text-xs">{t('details.account')}</dt>
              <dd className="truncate font-medium" title={integration.accountName ?? undefined} data-testid="integration-account">
                {integration.accountName ?? '—'}
              </dd>
            </div>
            <div>
              <dt className="text-base-content/70 text-xs">{t('details.lastSync')}</dt>
              <dd className="font-medium" title={integration.lastSyncAt ? new Date(integration.lastSyncAt).toLocaleString(locale) : undefined}>
                {integration.lastSyncAt ? formatRelativeTime(integration.lastSyncAt, locale) : t('details.never')}
              </dd>
            </div>
            <div>
              <dt className="text-base-content/70 text-xs">{t('details.rowsSynced')}</dt>
              <dd className="font-medium tabular-nums" data-testid="integration-rows">
                {new Intl.NumberFormat(locale).format(integration.rowsSynced)}
              </dd>
            </div>
          </dl>
        )}

        <Problem integration={integration} title={title} />

        {integration.canChooseAccounts && <AccountsSection integration={integration} title={title} viewOnly={viewOnly} />}

        <Notes integration={integration} />

        {active && <SyncProgress integration={integration} />}

        {integration.reconciliation && !active && <ReconciliationPanel result={integration.reconciliation} kind={integration.kind} platformName={title} accounts={integration.accounts} />}

        {integration.webhook && !viewOnly && <WooCommerceWebhook webhook={integration.webhook} />}

        {!viewOnly && (
          <div className="card-actions mt-auto items-center pt-1">
            <CardActions integration={integration} title={title} onConnect={onConnect} onDisconnect={onDisconnect} />
          </div>
        )}
      </div>
    </article>
  );
}

/** What went wrong and what to do: a revoked access (reconnect), a failed sync (try again), a failed run. */
function Problem({ integration, title }: { integration: Integration; title: string }) {
  const { t } = useTranslation('integrations');
  const run = integration.currentRun;
  let message: string | null = null;
  let advice: string | null = null;
  if (integration.status === 'disconnected') {
    message = integration.disconnectReason ?? t('problems.disconnectedUnknown', { platform: title });
    advice = integration.authKind === 'upload' ? t('problems.uploadAgain') : t('problems.reconnect', { platform: title });
  } else if (integration.status === 'error' || integration.lastError) {
    message = integration.lastError ?? run?.error ?? t('problems.unknown');
    advice = t('problems.retry');
  } else if (run?.status === 'failed' && run.error) {
    message = run.error;
    advice = t('problems.retry');
  }
  if (!message) return null;
  const tone = integration.status === 'disconnected' ? 'alert-warning' : 'alert-error';
  return (
    <div role="alert" className={`alert alert-soft ${tone} items-start py-2.5 text-sm`} data-testid="integration-problem">
      <CircleAlertIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="min-w-0">
        <p className="font-medium break-words">{message}</p>
        {advice && <p className="text-xs opacity-90">{advice}</p>}
      </div>
    </div>
  );
}

/**
 * What the latest sync let the user know without stopping (a permission missing for one field, an
 * authorization about to expire), and a shop whose time zone is not the store's.
 */
function Notes({ integration }: { integration: Integration }) {
  const { t, i18n } = useTranslation('integrations');
  const shopZone = integration.kind === 'store' && integration.accountTimezone && integration.accountTimezone !== integration.storeTimezone ? integration.accountTimezone : null;
  if (integration.warnings.length === 0 && !shopZone) return null;
  return (
    <div role="status" className="alert alert-soft alert-warning items-start py-2.5 text-sm" data-testid="integration-warnings">
      <TriangleAlertIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <ul className="min-w-0 space-y-1">
        {integration.warnings.map((warning) => (
          <li key={warning} className="break-words">
            {warning}
          </li>
        ))}
        {shopZone && (
          <li data-testid="shop-timezone-note">
            {t('notes.shopZone', { zone: zoneLabel(shopZone, i18n.language), store: zoneLabel(integration.storeTimezone, i18n.language) })}
          </li>
        )}
      </ul>
    </div>
  );
}

function SyncProgress({ integration }: { integration: Integration }) {
  const { t } = useTranslation('integrations');
  const locale = currentLanguage();
  const run = integration.currentRun!;
  const percent = runPercent(run);
  const number = new Intl.NumberFormat(locale);
  const label = run.status === 'queued' ? t('progress.queued') : t(`progress.${run.kind}`);
  return (
    <div className="space-y-1.5" data-testid="sync-progress">
      <div className="flex items-baseline justify-between gap-3 text-xs">
        <span className="font-medium">{label}</span>
        <span className="text-base-content/70 tabular-nums">
          {percent === null ? t('progress.rows', { count: run.rowsDone, rows: number.format(run.rowsDone) }) : t('progress.of', { done: number.format(run.rowsDone), total: number.format(run.estimatedTotal!), percent })}
        </span>
      </div>
      {/* Without a total the bar has no value: daisyUI animates it as indeterminate. */}
      <progress className="progress progress-primary w-full" value={percent ?? undefined} max={100} aria-label={label} />
    </div>
  );
}

function CardActions({ integration, title, onConnect, onDisconnect }: Omit<IntegrationCardProps, 'viewOnly'>) {
  const { t } = useTranslation('integrations');
  const cache = useIntegrationCache();
  const onError = (error: unknown) => cache.toast({ title: t('toasts.failed'), description: serverMessage(error) ?? t('errors.connection'), variant: 'destructive' });
  const syncNow = trpc.integrations.syncNow.useMutation({ onSuccess: cache.replace, onError });
  const cancel = trpc.integrations.cancelSync.useMutation({
    onSuccess: (updated) => {
      cache.replace(updated);
      cache.toast({ title: t('toasts.cancelled', { platform: title }) });
    },
    onError,
  });
  const start = trpc.integrations.startOAuth.useMutation({ onSuccess: ({ authorizeUrl }) => window.location.assign(authorizeUrl), onError });
  const active = isRunActive(integration.currentRun);
  const upload = integration.authKind === 'upload';

  const connect = () => {
    // Shopify first asks for the store's address; the other OAuth platforms go straight to their consent page.
    if (integration.authKind === 'oauth' && integration.platform !== 'shopify') start.mutate({ platform: integration.platform });
    else onConnect(integration);
  };
  const ConnectIcon = upload ? UploadIcon : integration.authKind === 'credentials' ? KeyRoundIcon : PlugIcon;

  if (integration.status === 'choose_accounts') {
    return (
      <button type="button" className="btn btn-ghost btn-sm ml-auto gap-1.5" onClick={() => onDisconnect(integration)}>
        <UnplugIcon className="size-4" aria-hidden="true" />
        {t('actions.disconnect')}
      </button>
    );
  }

  if (integration.status === 'not_connected' || integration.status === 'disconnected') {
    const reconnect = integration.status === 'disconnected';
    return (
      <>
        <button type="button" className="btn btn-primary btn-sm gap-1.5" onClick={connect} disabled={start.isPending || start.isSuccess} aria-busy={start.isPending}>
          {start.isPending || start.isSuccess ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <ConnectIcon className="size-4" aria-hidden="true" />}
          {upload ? (reconnect ? t('actions.uploadAgain') : t('actions.upload')) : reconnect ? t('actions.reconnect') : t('actions.connect')}
        </button>
        {reconnect && (
          <button type="button" className="btn btn-ghost btn-sm gap-1.5" onClick={() => onDisconnect(integration)}>
            <UnplugIcon className="size-4" aria-hidden="true" />
            {t('actions.remove')}
          </button>
        )}
      </>
    );
  }

  return (
    <>
      {active ? (
        <button type="button" className="btn btn-outline btn-sm gap-1.5" onClick={() => cancel.mutate({ platform: integration.platform })} disabled={cancel.isPending} aria-busy={cancel.isPending}>
          {cancel.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <SquareIcon className="size-3.5" aria-hidden="true" />}
          {t('actions.cancelSync')}
        </button>
      ) : (
        <button type="button" className="btn btn-primary btn-sm gap-1.5" onClick={() => syncNow.mutate({ platform: integration.platform })} disabled={syncNow.isPending} aria-busy={syncNow.isPending}>
          <RefreshCwIcon className={`size-4 ${syncNow.isPending ? 'animate-spin' : ''}`} aria-hidden="true" />
          {t('actions.syncNow')}
        </button>
      )}
      {upload && (
        <button type="button" className="btn btn-ghost btn-sm gap-1.5" onClick={() => onConnect(integration)}>
          <UploadIcon className="size-4" aria-hidden="true" />
          {t('actions.uploadNew')}
        </button>
      )}
      <button type="button" className="btn btn-ghost btn-sm ml-auto gap-1.5" onClick={() => onDisconnect(integration)}>
        <UnplugIcon className="size-4" aria-hidden="true" />
        {t('actions.disconnect')}
      </button>
    </>
  );
}

/** The card's menu: how far back a backfill reaches (1 to 36 months). */
function CardMenu({ integration, title }: { integration: Integration; title: string }) {
  const { t } = useTranslation('integrations');
  const selectId = useId();
  const cache = useIntegrationCache();
  const setMonths = trpc.integrations.setBackfillMonths.useMutation({
    onSuccess: (updated) => {
      cache.replace(updated);
      cache.toast({ title: t('toasts.backfillSaved', { platform: title, count: updated.backfillMonths }), variant: 'success' });
    },
    onError: (error) => cache.toast({ title: t('toasts.failed'), description: serverMessage(error) ?? t('errors.connection'), variant: 'destructive' }),
  });
  return (
    <Popover
      label={t('menu.label', { platform: title })}
      trigger={<EllipsisVerticalIcon aria-hidden="true" />}
      triggerClassName="btn btn-ghost btn-sm btn-square -mt-1 -mr-2 text-lg"
      panelClassName="w-64 p-3"
      testId="integration-menu"
    >
      {() => (
        <div className="space-y-3">
          <div className="fieldset py-0">
            <label htmlFor={selectId} className="fieldset-legend pt-0 pb-1 text-sm">
              {t('menu.backfill')}
            </label>
            <select
              id={selectId}
              className="select select-sm w-full"
              value={integration.backfillMonths}
              disabled={setMonths.isPending}
              onChange={(event) => setMonths.mutate({ platform: integration.platform, months: Number(event.target.value) })}
              data-testid="backfill-months"
            >
              {BACKFILL_CHOICES.map((months) => (
                <option key={months} value={months}>
                  {t('menu.months', { count: months })}
                </option>
              ))}
            </select>
            <p className="text-base-content/70 text-xs">{t('menu.backfillHint')}</p>
          </div>
        </div>
      )}
    </Popover>
  );
}

/** WooCommerce delivers new and changed orders to this address, signed with this secret (entered in its webhook settings). */
function WooCommerceWebhook({ webhook }: { webhook: NonNullable<Integration['webhook']> }) {
  const { t } = useTranslation('integrations');
  return (
    <details className="bg-base-200/60 rounded-box px-3 py-2 text-sm">
      <summary className="flex cursor-pointer items-center gap-2 font-medium">
        <WebhookIcon className="size-4" aria-hidden="true" />
        {t('webhook.title')}
      </summary>
      <p className="text-base-content/75 mt-2 text-xs">{t('webhook.body')}</p>
      <dl className="mt-2 space-y-1.5 text-xs">
        <div>
          <dt className="text-base-content/70">{t('webhook.url')}</dt>
          <dd>
            <code className="break-all select-all">{webhook.url}</code>
          </dd>
        </div>
        <div>
          <dt className="text-base-content/70">{t('webhook.secret')}</dt>
          <dd>
            <code className="break-all select-all">{webhook.secret}</code>
          </dd>
        </div>
      </dl>
    </details>
  );
}
