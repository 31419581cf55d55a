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
  /** Further screens this entry stands for (its sub-navigation): the entry is marked current on them too. */
  section?: readonly string[];
}

export interface NavGroup {
  /** Key under `shell:nav.groups`, or null for ungrouped entries. */
  key: string | null;
  entries: NavEntry[];
  /** Screens of the group that have no entry of their own: on them the group as a whole is marked current. */
  section?: readonly string[];
}

/**
 * The sidebar of spec section 2, word for word: its entries, groups and order. The screens it does not
 * list are one click from an entry: Analytics stands for its section (ANALYTICS_SECTION: Revenue, Profit
 * & Loss, Performance distribution, Customer loyalty) and the Advertising group for Bing Ads (ADVERTISING_SECTION), both
 * reached through the section's tabs.
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
        section: ['/revenue', '/profit-and-loss', '/performance-distribution', '/customer-loyalty'],
      },
    ],
  },
  {
    key: 'advertising',
    entries: [
      { key: 'googleAds', href: '/google-ads', icon: SearchIcon, requirement: 'subscription' },
      { key: 'metaAds', href: '/meta-ads', icon: MegaphoneIcon, requirement: 'subscription' },
    ],
    section: ['/bing-ads'],
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

/** Whether the group's own section (a screen without an entry, e.g. Bing Ads under Advertising) is shown. */
export function isActiveGroup(group: Pick<NavGroup, 'section'>, path: string): boolean {
  return (group.section ?? []).some((href) => isActivePath(href, path));
}

export interface SectionTab {
  /** Key under `shell:` of the tab's label. */
  labelKey: string;
  href: string;
}

/** A row of tabs above each screen of a section (all behind a subscription, like the screens). */
export interface NavSection {
  key: 'analytics' | 'advertising';
  /** Key under `shell:` of the row's accessible name. */
  labelKey: string;
  tabs: readonly SectionTab[];
}

/** The Analytics section: Overview (/analytics) and the screens the sidebar's Analytics stands for. */
export const ANALYTICS_SECTION: NavSection = {
  key: 'analytics',
  labelKey: 'nav.analyticsSection.label',
  tabs: [
    { labelKey: 'nav.analyticsSection.tabs.overview', href: '/analytics' },
    { labelKey: 'nav.analyticsSection.tabs.revenue', href: '/revenue' },
    { labelKey: 'nav.analyticsSection.tabs.profitAndLoss', href: '/profit-and-loss' },
    { labelKey: 'nav.analyticsSection.tabs.performanceDistribution', href: '/performance-distribution' },
    { labelKey: 'nav.analyticsSection.tabs.customerLoyalty', href: '/customer-loyalty' },
  ],
};

/** The Advertising section: the three ad platforms' screens; Bing Ads is the one the sidebar does not list. */
export const ADVERTISING_SECTION: NavSection = {
  key: 'advertising',
  labelKey: 'nav.advertisingSection.label',
  tabs: [
    { labelKey: 'nav.items.googleAds', href: '/google-ads' },
    { labelKey: 'nav.items.metaAds', href: '/meta-ads' },
    { labelKey: 'nav.items.bingAds', href: '/bing-ads' },
  ],
};

export const SECTIONS: readonly NavSection[] = [ANALYTICS_SECTION, ADVERTISING_SECTION];

/** The section whose tabs a path shows, or null outside every section. */
export function sectionOf(path: string): NavSection | null {
  return SECTIONS.find((section) => section.tabs.some((tab) => isActivePath(tab.href, path))) ?? null;
}

export interface ShellLinks {
  /** "All stores" (/dashboards) in the store switcher. */
  allStores: boolean;
  /** "Manage Users" (/manage-users) on Guest Users and Store Management (the spec's account menu has no place for it). */
  manageUsers: boolean;
  /** The sections' tabs: Analytics (Revenue, Profit & Loss, Performance distribution) and Advertising (Bing Ads). */
  sectionTabs: boolean;
}

/**
 * Which of the screens outside the sidebar the shell links, by the routes' guards (app.tsx): all of
 * them need a subscription (or admin; an invited guest has access through the invitation), so nobody
 * is shown a link that would only send them to /pricing. Manage users is a guest's too: it lists the
 * stores shared with them and by whom.
 */
export function shellLinks(access: Pick<Access, 'hasAccess'>): ShellLinks {
  return { allStores: access.hasAccess, manageUsers: access.hasAccess, sectionTabs: access.hasAccess };
}
