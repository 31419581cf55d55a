import { EyeIcon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import type { Integration } from '../../../shared/integrations.ts';
import { platformKeySchema } from '../../../shared/integrations.ts';
import { DataError, DataPage, useViewOnly } from '../../components/data-page.tsx';
import { toast } from '../../components/toast.tsx';
import { trpc } from '../../lib/trpc.ts';
import { CredentialsDialog, DisconnectDialog, EmailUploadDialog, ShopifyConnectDialog } from './connect-dialogs.tsx';
import { IntegrationCard } from './integration-card.tsx';
import { cardTitle, groupIntegrations, shouldPoll, SYNC_POLL_INTERVAL_MS } from './integration-view.ts';

/** /integrations: a card per platform, grouped into store, advertising and e-mail platforms. */
export function IntegrationsPage() {
  const { t } = useTranslation('integrations');
  useOAuthReturnToast();
  return (
    <DataPage title={t('page.title')} description={t('page.description')} showDateRange={false}>
      <IntegrationsContent />
    </DataPage>
  );
}

/**
 * Back from a platform's consent page the server redirects to `?connected=<platform>` or
 * `?error=<message>`: one toast, then the address is cleaned so a reload does not repeat it.
 */
function useOAuthReturnToast() {
  const { t } = useTranslation('integrations');
  const search = useSearch();
  const [, navigate] = useLocation();
  const utils = trpc.useUtils();
  const shown = useRef<string | null>(null);

  useEffect(() => {
    const params = new URLSearchParams(search);
    const connected = params.get('connected');
    const error = params.get('error');
    if (connected === null && error === null) return;
    if (shown.current !== search) {
      shown.current = search;
      if (error !== null) {
        toast({ title: t('toasts.connectFailed'), description: error || t('errors.connection'), variant: 'destructive' });
      } else {
        const platform = platformKeySchema.safeParse(connected);
        const name = platform.success ? cardTitle({ platform: platform.data, displayName: platform.data }, t('emailImport')) : (connected ?? '');
        toast({ title: t('toasts.connected', { platform: name }), description: t('toasts.syncStarted'), variant: 'success' });
        void utils.connections.status.invalidate();
      }
    }
    params.delete('connected');
    params.delete('error');
    const rest = params.toString();
    navigate(`/integrations${rest ? `?${rest}` : ''}`, { replace: true });
  }, [search, navigate, t, utils]);
}

function IntegrationsContent() {
  const { t } = useTranslation('integrations');
  const viewOnly = useViewOnly();
  const list = trpc.integrations.list.useQuery(undefined, {
    // Poll only while a sync is queued or running.
    refetchInterval: (query) => (shouldPoll(query.state.data) ? SYNC_POLL_INTERVAL_MS : false),
  });
  const [connecting, setConnecting] = useState<Integration | null>(null);
  const [disconnecting, setDisconnecting] = useState<Integration | null>(null);

  if (list.isPending) return <IntegrationsLoading />;
  if (list.isError) return <DataError error={list.error} onRetry={() => void list.refetch()} />;

  const emailImportName = t('emailImport');
  const titleOf = (integration: Integration | null) => (integration ? cardTitle(integration, emailImportName) : '');
  const connectingKind = connecting?.platform === 'shopify' ? 'shopify' : connecting?.authKind;

  return (
    <div className="space-y-8" data-testid="integrations">
      {viewOnly && (
        <div role="note" className="alert alert-info alert-soft text-sm">
          <EyeIcon className="size-4 shrink-0" aria-hidden="true" />
          <span>{t('page.viewOnly')}</span>
        </div>
      )}
      {groupIntegrations(list.data).map((group) => (
        <section key={group.key} aria-labelledby={`integrations-${group.key}`} data-testid={`integration-group-${group.key}`}>
          <div className="mb-3">
            <h2 id={`integrations-${group.key}`} className="text-lg font-semibold">
              {t(`groups.${group.key}.title`)}
            </h2>
            <p className="text-base-content/70 text-sm">{t(`groups.${group.key}.description`)}</p>
          </div>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            {group.items.map((integration) => (
              <IntegrationCard
                key={integration.platform}
                integration={integration}
                title={titleOf(integration)}
                viewOnly={viewOnly}
                onConnect={setConnecting}
                onDisconnect={setDisconnecting}
              />
            ))}
          </div>
        </section>
      ))}

      <ShopifyConnectDialog integration={connectingKind === 'shopify' ? connecting : null} title={titleOf(connecting)} onClose={() => setConnecting(null)} />
      <CredentialsDialog key={`credentials-${connectingKind === 'credentials' ? connecting?.platform : ''}`} integration={connectingKind === 'credentials' ? connecting : null} title={titleOf(connecting)} onClose={() => setConnecting(null)} />
      <EmailUploadDialog key={`upload-${connectingKind === 'upload' ? 'open' : ''}`} integration={connectingKind === 'upload' ? connecting : null} title={titleOf(connecting)} onClose={() => setConnecting(null)} />
      <DisconnectDialog integration={disconnecting} title={titleOf(disconnecting)} onClose={() => setDisconnecting(null)} />
    </div>
  );
}

function IntegrationsLoading() {
  const { t } = useTranslation('integrations');
  return (
    <div className="space-y-8" role="status" aria-live="polite" data-testid="integrations-loading">
      <span className="sr-only">{t('page.loading')}</span>
      {[2, 4, 4].map((cards, group) => (
        <div key={group} className="space-y-3" aria-hidden="true">
          <div className="skeleton h-6 w-48" />
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            {Array.from({ length: cards }, (_, index) => (
              <div key={index} className="skeleton h-36 rounded-box" />
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}
