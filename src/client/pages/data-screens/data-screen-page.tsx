import { useTranslation } from 'react-i18next';
import { ChartColumnIcon, ChartPieIcon, CrosshairIcon, FileTextIcon, GiftIcon, ImageIcon, LayersIcon, LayoutDashboardIcon, MegaphoneIcon, MessageCircleIcon, PlugIcon, RouteIcon, ScanSearchIcon, SearchIcon, ShoppingBagIcon, ShoppingCartIcon, TagIcon, TrendingUpIcon, WalletIcon } from 'lucide-react';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { useAuth } from '../../lib/auth.tsx';

interface ScreenDefinition {
  icon: typeof PlugIcon;
  /** Where the primary button leads; the integrations screen itself points to the setup guides. */
  actionHref: string;
  /** Admin-only tools show 'Coming Soon' to everyone else. */
  adminOnly?: boolean;
}

/** The data screens that later work fills; until then each explains what it will show. */
export const DATA_SCREENS = {
  integrations: { icon: PlugIcon, actionHref: '/help-center' },
  revenue: { icon: TrendingUpIcon, actionHref: '/integrations' },
  touchpoints: { icon: RouteIcon, actionHref: '/integrations' },
  profitAndLoss: { icon: WalletIcon, actionHref: '/integrations' },
  reports: { icon: FileTextIcon, actionHref: '/integrations' },
  googleAds: { icon: SearchIcon, actionHref: '/integrations' },
  metaAds: { icon: MegaphoneIcon, actionHref: '/integrations' },
  bingAds: { icon: CrosshairIcon, actionHref: '/integrations' },
  orders: { icon: ShoppingBagIcon, actionHref: '/integrations' },
  analytics: { icon: ChartColumnIcon, actionHref: '/integrations' },
  dashboards: { icon: LayoutDashboardIcon, actionHref: '/integrations' },
  metaComments: { icon: MessageCircleIcon, actionHref: '/integrations', adminOnly: true },
  pageReviewer: { icon: ScanSearchIcon, actionHref: '/integrations' },
  pageReviewerDetail: { icon: ScanSearchIcon, actionHref: '/integrations' },
  priceTracker: { icon: TagIcon, actionHref: '/integrations' },
  trackingSetup: { icon: LayersIcon, actionHref: '/integrations' },
  shoppingOptimizer: { icon: ShoppingCartIcon, actionHref: '/integrations', adminOnly: true },
  performanceDistribution: { icon: ChartPieIcon, actionHref: '/integrations' },
  productImageGenerator: { icon: ImageIcon, actionHref: '/integrations' },
  affiliateDashboard: { icon: GiftIcon, actionHref: '/integrations' },
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
        action={{
          href: definition.actionHref,
          label: screen === 'integrations' ? t('screens.integrations.action') : t('emptyState.action'),
        }}
      />
    </div>
  );
}
