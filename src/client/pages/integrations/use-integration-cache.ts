import { useTranslation } from 'react-i18next';
import type { Integration } from '../../../shared/integrations.ts';
import { toast } from '../../components/toast.tsx';
import { trpc } from '../../lib/trpc.ts';

/**
 * After a change the server answers the platform's new entry: it replaces the one in the list at once
 * (so a queued sync starts the polling without waiting for a refetch), and the header's connection
 * status is fetched again.
 */
export function useIntegrationCache() {
  const { t } = useTranslation('integrations');
  const utils = trpc.useUtils();
  return {
    replace(updated: Integration) {
      utils.integrations.list.setData(undefined, (list) => list?.map((entry) => (entry.platform === updated.platform ? updated : entry)));
      void utils.connections.status.invalidate();
    },
    toastConnected(platform: string, account?: string) {
      toast({ title: t('toasts.connected', { platform }), description: account ? t('toasts.connectedAccount', { account }) : t('toasts.syncStarted'), variant: 'success' });
    },
    toast,
  };
}
