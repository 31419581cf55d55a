import { useTranslation } from 'react-i18next';
import { GiftIcon, ImageIcon, LayersIcon, MessageCircleIcon, RouteIcon, ScanSearchIcon, ShoppingCartIcon, TagIcon, type LucideIcon } from 'lucide-react';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { useAuth } from '../../lib/auth.tsx';

interface ScreenDefinition {
  icon: LucideIcon;
  /** Admin-only tools show 'Coming Soon' to everyone else. */
  adminOnly?: boolean;
}

/** The screens that later work fills; until then each explains what it will show. */
const DATA_SCREENS = {
  touchpoints: { icon: RouteIcon },
  metaComments: { icon: MessageCircleIcon, adminOnly: true },
  pageReviewer: { icon: ScanSearchIcon },
  pageReviewerDetail: { icon: ScanSearchIcon },
  priceTracker: { icon: TagIcon },
  trackingSetup: { icon: LayersIcon },
  shoppingOptimizer: { icon: ShoppingCartIcon, adminOnly: true },
  productImageGenerator: { icon: ImageIcon },
  affiliateDashboard: { icon: GiftIcon },
} satisfies Record<string, ScreenDefinition>;

export type DataScreen = keyof typeof DATA_SCREENS;

export function DataScreenPage({ screen }: { screen: DataScreen }) {
  const { t } = useTranslation('shell');
  const { user } = useAuth();
  const definition: ScreenDefinition = DATA_SCREENS[screen];
  const comingSoon = definition.adminOnly === true && user?.isAdmin !== true;
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader title={t(`screens.${screen}.title`)} description={t(`screens.${screen}.description`)} />
      <EmptyState
        icon={definition.icon}
        title={t(`screens.${screen}.emptyTitle`)}
        body={t(`screens.${screen}.emptyBody`)}
        badge={comingSoon ? <span className="badge badge-warning badge-soft font-medium">{t('emptyState.comingSoon')}</span> : undefined}
        action={{ href: '/integrations', label: t('emptyState.action') }}
      />
    </div>
  );
}
