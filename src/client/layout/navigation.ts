import { ChartColumnIcon, FileTextIcon, LayoutDashboardIcon, LifeBuoyIcon, MegaphoneIcon, MessageCircleIcon, PlugIcon, RouteIcon, ScanSearchIcon, SearchIcon, ShoppingBagIcon, ShoppingCartIcon, TagIcon } from 'lucide-react';
import type { Access } from '../lib/access.ts';

/** What an entry needs: a subscription (or admin), the AI tools, admin tools, or nothing. */
export type NavRequirement = 'none' | 'subscription' | 'tools' | 'adminTool';

export interface NavEntry {
  /** Key under `shell:nav.items`. */
  key: string;
  href: string;
  icon: typeof LayoutDashboardIcon;
  requirement: NavRequirement;
}

export interface NavGroup {
  /** Key under `shell:nav.groups`, or null for ungrouped entries. */
  key: string | null;
  entries: NavEntry[];
}

/** The sidebar of spec section 2, in its order. */
export const NAVIGATION: readonly NavGroup[] = [
  {
    key: null,
    entries: [
      { key: 'dashboard', href: '/dashboard', icon: LayoutDashboardIcon, requirement: 'subscription' },
      { key: 'orders', href: '/orders', icon: ShoppingBagIcon, requirement: 'subscription' },
      { key: 'analytics', href: '/analytics', icon: ChartColumnIcon, requirement: 'subscription' },
    ],
  },
  {
    key: 'advertising',
    entries: [
      { key: 'googleAds', href: '/google-ads', icon: SearchIcon, requirement: 'subscription' },
      { key: 'metaAds', href: '/meta-ads', icon: MegaphoneIcon, requirement: 'subscription' },
    ],
  },
  {
    key: null,
    entries: [
      { key: 'reports', href: '/reports', icon: FileTextIcon, requirement: 'subscription' },
      { key: 'touchpoints', href: '/touchpoints', icon: RouteIcon, requirement: 'subscription' },
    ],
  },
  {
    key: 'tools',
    entries: [
      { key: 'pageReviewer', href: '/landing-page-reviewer', icon: ScanSearchIcon, requirement: 'tools' },
      { key: 'priceTracker', href: '/price-tracker', icon: TagIcon, requirement: 'tools' },
      { key: 'metaComments', href: '/meta-comments-manager', icon: MessageCircleIcon, requirement: 'adminTool' },
      { key: 'shoppingOptimizer', href: '/shopping-optimizer', icon: ShoppingCartIcon, requirement: 'adminTool' },
    ],
  },
  {
    key: null,
    entries: [
      { key: 'integrations', href: '/integrations', icon: PlugIcon, requirement: 'subscription' },
      { key: 'helpCenter', href: '/help-center', icon: LifeBuoyIcon, requirement: 'none' },
    ],
  },
];

export interface NavEntryState {
  enabled: boolean;
  /** Admin-only tools carry a 'Coming Soon' mark for everyone but admins. */
  comingSoon: boolean;
  /** Why the entry is greyed out (key under `shell:nav.locked`), or null. */
  lockedReason: 'subscription' | 'upgrade' | 'comingSoon' | 'adminOnly' | null;
}

export function navEntryState(entry: NavEntry, access: Access): NavEntryState {
  switch (entry.requirement) {
    case 'none':
      return { enabled: true, comingSoon: false, lockedReason: null };
    case 'subscription':
      return { enabled: access.hasAccess, comingSoon: false, lockedReason: access.hasAccess ? null : 'subscription' };
    case 'tools':
      if (!access.hasAccess) return { enabled: false, comingSoon: false, lockedReason: 'subscription' };
      return { enabled: access.toolsAvailable, comingSoon: false, lockedReason: access.toolsAvailable ? null : 'upgrade' };
    case 'adminTool':
      if (!access.isAdmin) return { enabled: false, comingSoon: true, lockedReason: 'comingSoon' };
      return { enabled: access.adminToolsAvailable, comingSoon: false, lockedReason: access.adminToolsAvailable ? null : 'adminOnly' };
  }
}

/** The entry a path belongs to ("/landing-page-reviewer/12" -> Page Reviewer). */
export function isActivePath(entryHref: string, path: string): boolean {
  return path === entryHref || path.startsWith(`${entryHref}/`);
}
