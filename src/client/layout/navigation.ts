import { ChartColumnIcon, FileTextIcon, LayoutDashboardIcon, LifeBuoyIcon, MegaphoneIcon, MessageCircleIcon, MousePointerClickIcon, PlugIcon, RouteIcon, ScanSearchIcon, SearchIcon, ShoppingBagIcon, ShoppingCartIcon, TagIcon } from 'lucide-react';
import type { Access } from '../lib/access.ts';

/** What an entry needs: a subscription (or admin), the AI tools, admin tools, or nothing. */
export type NavRequirement = 'none' | 'subscription' | 'tools' | 'adminTool';

export interface NavEntry {
  /** Key under `shell:nav.items`. */
  key: string;
  href: string;
  icon: typeof LayoutDashboardIcon;
  requirement: NavRequirement;
  /** Further screens this entry stands for (its sub-navigation): the entry is marked current on them too. */
  section?: readonly string[];
}

export interface NavGroup {
  /** Key under `shell:nav.groups`, or null for ungrouped entries. */
  key: string | null;
  entries: NavEntry[];
}

/**
 * The sidebar of spec section 2, in its order. Beyond the spec's list, the Advertising group ends with
 * Bing Ads (the third ad platform of the spec's /bing-ads), and Analytics stands for its section
 * (ANALYTICS_SECTION: Revenue, Profit & Loss, Performance distribution), reached through its tabs.
 */
export const NAVIGATION: readonly NavGroup[] = [
  {
    key: null,
    entries: [
      { key: 'dashboard', href: '/dashboard', icon: LayoutDashboardIcon, requirement: 'subscription' },
      { key: 'orders', href: '/orders', icon: ShoppingBagIcon, requirement: 'subscription' },
      {
        key: 'analytics',
        href: '/analytics',
        icon: ChartColumnIcon,
        requirement: 'subscription',
        section: ['/revenue', '/profit-and-loss', '/performance-distribution'],
      },
    ],
  },
  {
    key: 'advertising',
    entries: [
      { key: 'googleAds', href: '/google-ads', icon: SearchIcon, requirement: 'subscription' },
      { key: 'metaAds', href: '/meta-ads', icon: MegaphoneIcon, requirement: 'subscription' },
      { key: 'bingAds', href: '/bing-ads', icon: MousePointerClickIcon, requirement: 'subscription' },
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

/** Whether the entry is the current one: its own screen or one of its section's. */
export function isActiveEntry(entry: Pick<NavEntry, 'href' | 'section'>, path: string): boolean {
  return [entry.href, ...(entry.section ?? [])].some((href) => isActivePath(href, path));
}

export interface SectionTab {
  /** Key under `shell:nav.analyticsSection.tabs`. */
  key: string;
  href: string;
}

/** The Analytics section: the screens its tabs link, in order (all behind a subscription, like Analytics). */
export const ANALYTICS_SECTION: readonly SectionTab[] = [
  { key: 'overview', href: '/analytics' },
  { key: 'revenue', href: '/revenue' },
  { key: 'profitAndLoss', href: '/profit-and-loss' },
  { key: 'performanceDistribution', href: '/performance-distribution' },
];

/** The tab of the Analytics section a path shows, or null outside the section. */
export function analyticsTabOf(path: string): SectionTab | null {
  return ANALYTICS_SECTION.find((tab) => isActivePath(tab.href, path)) ?? null;
}

export interface ShellLinks {
  /** "All stores" (/dashboards) in the store switcher. */
  allStores: boolean;
  /** "Manage users" (/manage-users) in the account menu. */
  manageUsers: boolean;
  /** The Analytics section's tabs (Revenue, Profit & Loss, Performance distribution). */
  analyticsSection: boolean;
}

/**
 * Which of the screens outside the sidebar the shell links, by the routes' guards (app.tsx): all of
 * them need a subscription (or admin; an invited guest has access through the invitation), so nobody
 * is shown a link that would only send them to /pricing. Manage users is a guest's too: it lists the
 * stores shared with them and by whom.
 */
export function shellLinks(access: Pick<Access, 'hasAccess'>): ShellLinks {
  return { allStores: access.hasAccess, manageUsers: access.hasAccess, analyticsSection: access.hasAccess };
}
