import { describe, expect, it } from 'vitest';
import { ADVERTISING_SECTION, ANALYTICS_SECTION, NAVIGATION, isActiveEntry, isActiveGroup, isActivePath, navEntryState, sectionOf, shellLinks } from '../layout/navigation.ts';
import { accessFrom, routeDecision, type SubscriptionSummary } from './access.ts';

function subscription(planName: string, status: 'trial' | 'active' | 'canceled' = 'active', active = true): SubscriptionSummary {
  return { hasActiveSubscription: active, subscription: { status, currentPeriodEnd: '2030-01-15T00:00:00.000Z', plan: { name: planName } } };
}

const member = { isAdmin: false };
const admin = { isAdmin: true };

describe('route guards', () => {
  it('sends a signed-in user without subscription from gated routes to /pricing, a failed lookup included', () => {
    for (const sub of [undefined, null, { hasActiveSubscription: false, subscription: null }, subscription('Business', 'canceled', false)]) {
      const access = accessFrom({ user: member, subscription: sub, guestMode: false });
      expect(routeDecision('subscription', access)).toBe('pricing');
      expect(routeDecision('tools', access)).toBe('pricing');
      expect(routeDecision('signedIn', access)).toBe('allow');
    }
  });

  it('lets admins through every gate without a subscription', () => {
    const access = accessFrom({ user: admin, subscription: undefined, guestMode: false });
    expect(['signedIn', 'subscription', 'tools', 'admin'].map((r) => routeDecision(r as never, access))).toEqual(['allow', 'allow', 'allow', 'allow']);
  });

  it('sends basic and unknown plans away from the page reviewer and price tracker to /', () => {
    expect(routeDecision('tools', accessFrom({ user: member, subscription: subscription('Basic'), guestMode: false }))).toBe('home');
    expect(routeDecision('tools', accessFrom({ user: member, subscription: subscription('Starter'), guestMode: false }))).toBe('home');
    expect(routeDecision('subscription', accessFrom({ user: member, subscription: subscription('Basic'), guestMode: false }))).toBe('allow');
  });

  it('takes the tier from the start of the plan name, case-insensitively', () => {
    const access = accessFrom({ user: member, subscription: subscription('PROFESSIONAL annual'), guestMode: false });
    expect(access.tier).toBe('professional');
    expect(routeDecision('tools', access)).toBe('allow');
  });

  it('keeps non-admins out of admin routes', () => {
    expect(routeDecision('admin', accessFrom({ user: member, subscription: subscription('Enterprise'), guestMode: false }))).toBe('home');
  });

  it("in guest mode, uses the viewed user's plan for tools", () => {
    expect(routeDecision('tools', accessFrom({ user: admin, subscription: subscription('Basic'), guestMode: true }))).toBe('home');
    expect(routeDecision('tools', accessFrom({ user: admin, subscription: subscription('Business'), guestMode: true }))).toBe('allow');
  });

  it('reports a trial with its end date', () => {
    expect(accessFrom({ user: member, subscription: subscription('Business', 'trial'), guestMode: false }).trialEndsAt).toBe('2030-01-15T00:00:00.000Z');
    expect(accessFrom({ user: member, subscription: subscription('Business', 'active'), guestMode: false }).trialEndsAt).toBeNull();
  });
});

describe('sidebar', () => {
  const labels = NAVIGATION.map((group) => [group.key, group.entries.map((entry) => `${entry.key} ${entry.href}`)]);

  it("lists exactly the spec's entries and groups, in order", () => {
    expect(labels).toEqual([
      [null, ['dashboard /dashboard', 'orders /orders', 'analytics /analytics']],
      // Exactly the spec's Google Ads and Meta Ads: Bing Ads is reached through the Advertising tabs.
      ['advertising', ['googleAds /google-ads', 'metaAds /meta-ads']],
      [null, ['reports /reports', 'touchpoints /touchpoints']],
      [
        'tools',
        ['pageReviewer /landing-page-reviewer', 'priceTracker /price-tracker', 'metaComments /meta-comments-manager', 'shoppingOptimizer /shopping-optimizer'],
      ],
      [null, ['integrations /integrations', 'helpCenter /help-center']],
    ]);
  });

  const entry = (key: string) => NAVIGATION.flatMap((group) => group.entries).find((candidate) => candidate.key === key)!;
  const state = (key: string, access: Parameters<typeof navEntryState>[1]) => navEntryState(entry(key), access);

  it('greys out everything but the help center without a subscription', () => {
    const access = accessFrom({ user: member, subscription: null, guestMode: false });
    const enabled = NAVIGATION.flatMap((group) => group.entries).filter((item) => navEntryState(item, access).enabled).map((item) => item.key);
    expect(enabled).toEqual(['helpCenter']);
  });

  it('opens Page Reviewer and Price Tracker on plans above basic, and marks the admin tools Coming Soon', () => {
    const basic = accessFrom({ user: member, subscription: subscription('Basic'), guestMode: false });
    const business = accessFrom({ user: member, subscription: subscription('Business'), guestMode: false });
    expect(state('pageReviewer', basic)).toEqual({ enabled: false, comingSoon: false, lockedReason: 'upgrade' });
    expect(state('priceTracker', business).enabled).toBe(true);
    expect(state('metaComments', business)).toEqual({ enabled: false, comingSoon: true, lockedReason: 'comingSoon' });
    expect(state('shoppingOptimizer', business).comingSoon).toBe(true);
  });

  it('gives admins every tool, but not the admin-only ones while in guest mode', () => {
    const own = accessFrom({ user: admin, subscription: undefined, guestMode: false });
    const guest = accessFrom({ user: admin, subscription: subscription('Basic'), guestMode: true });
    expect(['pageReviewer', 'priceTracker', 'metaComments', 'shoppingOptimizer'].map((key) => state(key, own).enabled)).toEqual([true, true, true, true]);
    expect(['pageReviewer', 'metaComments'].map((key) => state(key, guest))).toEqual([
      { enabled: false, comingSoon: false, lockedReason: 'upgrade' },
      { enabled: false, comingSoon: false, lockedReason: 'adminOnly' },
    ]);
  });

  it('marks an entry active on its own path and its sub-paths only', () => {
    expect(isActivePath('/landing-page-reviewer', '/landing-page-reviewer/12')).toBe(true);
    expect(isActivePath('/dashboard', '/dashboard')).toBe(true);
    expect(isActivePath('/dashboard', '/dashboards')).toBe(false);
  });

  it('marks Analytics current on the screens of its section, whose tabs follow the path', () => {
    expect(['/analytics', '/revenue', '/profit-and-loss', '/performance-distribution', '/customer-loyalty', '/orders'].map((path) => isActiveEntry(entry('analytics'), path))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(isActiveEntry(entry('orders'), '/revenue')).toBe(false);
    expect(ANALYTICS_SECTION.tabs.map((tab) => tab.href)).toEqual(['/analytics', '/revenue', '/profit-and-loss', '/performance-distribution', '/customer-loyalty']);
    expect(sectionOf('/profit-and-loss')).toBe(ANALYTICS_SECTION);
    expect(sectionOf('/reports')).toBeNull();
  });

  it('shows the Advertising tabs on the three ad screens and marks the Advertising group, not one of its entries, current on Bing Ads', () => {
    const advertising = NAVIGATION.find((group) => group.key === 'advertising')!;
    expect(ADVERTISING_SECTION.tabs.map((tab) => `${tab.labelKey} ${tab.href}`)).toEqual([
      'nav.items.googleAds /google-ads',
      'nav.items.metaAds /meta-ads',
      'nav.items.bingAds /bing-ads',
    ]);
    for (const path of ['/google-ads', '/meta-ads', '/bing-ads']) expect(sectionOf(path), path).toBe(ADVERTISING_SECTION);
    expect(['/bing-ads', '/google-ads', '/meta-ads', '/dashboard'].map((path) => isActiveGroup(advertising, path))).toEqual([true, false, false, false]);
    expect(advertising.entries.filter((item) => isActiveEntry(item, '/bing-ads'))).toEqual([]);
    // Every tab of a section is an entry of the sidebar or in the section of the entry or group standing for it.
    const reached = NAVIGATION.flatMap((group) => [...(group.section ?? []), ...group.entries.flatMap((item) => [item.href, ...(item.section ?? [])])]);
    for (const tab of [...ANALYTICS_SECTION.tabs, ...ADVERTISING_SECTION.tabs]) expect(reached, tab.href).toContain(tab.href);
  });
});

describe('links beyond the sidebar', () => {
  it('offers All stores, Manage users and the section tabs to whoever may open them: subscribers, invited guests, admins', () => {
    const subscriber = accessFrom({ user: member, subscription: subscription('Basic'), guestMode: false });
    const ownAdmin = accessFrom({ user: admin, subscription: undefined, guestMode: false });
    // An invited guest has access through the invitation (and finds the stores shared with them under Manage users).
    const invitedGuest = accessFrom({ user: member, subscription: { hasActiveSubscription: true, subscription: null }, guestMode: false });
    for (const access of [subscriber, ownAdmin, invitedGuest]) {
      expect(shellLinks(access)).toEqual({ allStores: true, manageUsers: true, sectionTabs: true });
    }
  });

  it('offers none of them without a subscription, where each would only lead to /pricing', () => {
    for (const sub of [null, undefined, subscription('Business', 'canceled', false)]) {
      const access = accessFrom({ user: member, subscription: sub, guestMode: false });
      expect(shellLinks(access)).toEqual({ allStores: false, manageUsers: false, sectionTabs: false });
      expect(routeDecision('subscription', access)).toBe('pricing');
    }
  });
});
