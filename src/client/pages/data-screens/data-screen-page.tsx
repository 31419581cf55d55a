import { useTranslation } from 'react-i18next';
import { MessageCircleIcon, ShoppingCartIcon, type LucideIcon } from 'lucide-react';
import { DataError, DataLoading } from '../../components/data-page.tsx';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { useAuth } from '../../lib/auth.tsx';
import { CONNECTION_STATUS_QUERY } from '../../lib/query-settings.ts';
import { trpc } from '../../lib/trpc.ts';
import { placeholderReadiness, type ScreenNeeds } from './placeholder-readiness.ts';

interface ScreenDefinition {
  icon: LucideIcon;
  /** What the screen works from; while the store lacks it, the screen asks to connect it. */
  needs: ScreenNeeds;
  /** Admin-only tools show 'Coming Soon' to everyone else. */
  adminOnly?: boolean;
}

/** The admin-only tools as everyone else sees them: 'Coming Soon', with what they will show. */
const DATA_SCREENS = {
  metaComments: { icon: MessageCircleIcon, needs: 'metaads', adminOnly: true },
  shoppingOptimizer: { icon: ShoppingCartIcon, needs: 'storeAndGoogleads', adminOnly: true },
} satisfies Record<string, ScreenDefinition>;

export type DataScreen = keyof typeof DATA_SCREENS;

export function DataScreenPage({ screen }: { screen: DataScreen }) {
  const { t } = useTranslation('shell');
  const { user } = useAuth();
  const definition: ScreenDefinition = DATA_SCREENS[screen];
  // The store's data and connections decide between "connect" and "ready" (shared with the header's widget).
  const status = trpc.commerce.dataStatus.useQuery();
  const connections = trpc.connections.status.useQuery(undefined, CONNECTION_STATUS_QUERY);
  const adminOnlySoon = definition.adminOnly === true && user?.isAdmin !== true;

  let content;
  if (status.isError) content = <DataError error={status.error} onRetry={() => void status.refetch()} />;
  else if (status.isPending || connections.isPending) content = <DataLoading label={t('routing.loadingPage')} cards={0} gridClassName="hidden" chartClassName="h-80" />;
  else {
    const connected = (connections.data ?? []).filter((entry) => entry.connected).map((entry) => entry.platform);
    const readiness = placeholderReadiness(definition.needs, { orders: status.data.orders, adPlatforms: status.data.adPlatforms, connected });
    const ready = readiness === 'ready';
    content = (
      <EmptyState
        icon={definition.icon}
        title={t(`screens.${screen}.emptyTitle`)}
        body={`${t(`screens.${screen}.emptyBody`)} ${ready ? t('emptyState.ready') : t(`screens.${screen}.connectHint`)}`}
        // A store with what the screen needs is waiting on the screen itself, not on a connection.
        badge={adminOnlySoon || ready ? <span className="badge badge-warning badge-soft font-medium">{t('emptyState.comingSoon')}</span> : undefined}
        action={ready ? undefined : { href: '/integrations', label: t('emptyState.action') }}
      />
    );
  }
  return (
    <div className="mx-auto max-w-5xl space-y-6" data-testid="placeholder-screen">
      <PageHeader title={t(`screens.${screen}.title`)} description={t(`screens.${screen}.description`)} />
      {content}
    </div>
  );
}
