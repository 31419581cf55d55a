import { describe, expect, it } from 'vitest';
import type { Integration } from '../../../shared/integrations.ts';
import { PLATFORM_KEYS } from '../../../shared/platforms.ts';
import { contrastRatio, readableBrandColor } from '../../components/platform-logo.tsx';
import { cardTitle, displayStatus, formatRelativeTime, groupIntegrations, runPercent, shopDomainFrom, shouldPoll } from './integration-view.ts';

const KINDS: Record<string, Integration['kind']> = {
  woocommerce: 'store',
  shopify: 'store',
  googleads: 'ads',
  metaads: 'ads',
  bingads: 'ads',
  tiktokads: 'ads',
  omnisend: 'email',
  klaviyo: 'email',
  mailchimp: 'email',
  email: 'email',
};

function entry(platform: Integration['platform'], changes: Partial<Integration> = {}): Integration {
  return {
    platform,
    displayName: platform,
    kind: KINDS[platform]!,
    authKind: 'oauth',
    credentialFields: [],
    status: 'not_connected',
    accountName: null,
    connectedAt: null,
    lastSyncAt: null,
    lastCheckedAt: null,
    rowsSynced: 0,
    lastError: null,
    disconnectReason: null,
    backfillMonths: 12,
    currentRun: null,
    warnings: [],
    canChooseAccounts: KINDS[platform] === 'ads',
    accounts: [],
    storeTimezone: 'Europe/London',
    accountTimezone: null,
    reconciliation: null,
    webhook: null,
    ...changes,
  };
}

const run = (status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled', rowsDone = 0, estimatedTotal: number | null = null) => ({
  id: 1,
  kind: 'backfill' as const,
  status,
  rowsDone,
  estimatedTotal,
  startedAt: null,
  finishedAt: null,
  error: null,
});

describe('integrations screen', () => {
  it('groups the ten platforms into store, advertising and e-mail sections in the screen order', () => {
    const groups = groupIntegrations(PLATFORM_KEYS.map((platform) => entry(platform)));
    expect(groups.map((group) => [group.key, group.items.map((item) => item.platform)])).toEqual([
      ['store', ['shopify', 'woocommerce']],
      ['ads', ['googleads', 'metaads', 'bingads', 'tiktokads']],
      ['email', ['klaviyo', 'omnisend', 'mailchimp', 'email']],
    ]);
  });

  it('polls while some sync is queued or running, and not when every run has ended and been compared', () => {
    expect(shouldPoll(undefined)).toBe(false);
    expect(shouldPoll([entry('shopify', { currentRun: run('succeeded') }), entry('metaads')])).toBe(false);
    expect(shouldPoll([entry('shopify', { currentRun: run('failed') }), entry('metaads', { currentRun: run('queued') })])).toBe(true);
    expect(shouldPoll([entry('shopify', { currentRun: run('running') })])).toBe(true);
  });

  it('stops polling as soon as a run has succeeded: its comparison with the platform is stored before that', () => {
    const finished = { ...run('succeeded'), startedAt: '2026-11-21T11:59:00Z', finishedAt: '2026-11-21T11:59:50Z' };
    expect(shouldPoll([entry('shopify', { currentRun: finished }), entry('metaads', { currentRun: finished })])).toBe(false);
  });

  it('shows a connection with a run in progress as syncing, and otherwise its own status', () => {
    expect(displayStatus({ status: 'connected', currentRun: run('queued') })).toBe('syncing');
    expect(displayStatus({ status: 'connected', currentRun: run('succeeded') })).toBe('connected');
    expect(displayStatus({ status: 'disconnected', currentRun: run('running') })).toBe('disconnected');
  });

  it('turns rows done of the estimated total into a percent, and has none without a total', () => {
    expect(runPercent({ rowsDone: 250, estimatedTotal: 1000 })).toBe(25);
    expect(runPercent({ rowsDone: 1, estimatedTotal: 3 })).toBe(33);
    expect(runPercent({ rowsDone: 1200, estimatedTotal: 1000 })).toBe(100);
    expect(runPercent({ rowsDone: 40, estimatedTotal: null })).toBeNull();
    expect(runPercent({ rowsDone: 0, estimatedTotal: 0 })).toBeNull();
  });

  it('accepts a Shopify store as its handle or myshopify.com address and refuses other hosts', () => {
    expect(shopDomainFrom('My-Store')).toBe('my-store.myshopify.com');
    expect(shopDomainFrom(' https://my-store.myshopify.com/admin ')).toBe('my-store.myshopify.com');
    expect(shopDomainFrom('shop.example.com')).toBeNull();
    expect(shopDomainFrom('my store')).toBeNull();
    expect(shopDomainFrom('')).toBeNull();
  });

  it('calls bingads "Bing Ads" as the spec does, and the generic e-mail platform by the screen name', () => {
    expect(cardTitle({ platform: 'bingads', displayName: 'Microsoft Advertising' }, 'E-mail CSV import')).toBe('Bing Ads');
    expect(cardTitle({ platform: 'tiktokads', displayName: 'TikTok Ads' }, 'E-mail CSV import')).toBe('TikTok Ads');
    expect(cardTitle({ platform: 'email', displayName: 'E-mail (CSV upload)' }, 'E-mail CSV import')).toBe('E-mail CSV import');
  });

  it('says when something happened relative to now', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(formatRelativeTime('2026-11-21T11:55:00Z', 'en', now)).toBe('5 minutes ago');
    expect(formatRelativeTime('2026-11-20T12:00:00Z', 'en', now)).toBe('yesterday');
    expect(formatRelativeTime('2026-11-21T11:59:50Z', 'en', now)).toBe('now');
    expect(formatRelativeTime('2026-11-21T09:00:00Z', 'de', now)).toBe('vor 3 Stunden');
  });
});

describe('platform logo colours', () => {
  it('keeps a brand colour that already contrasts with the white tile, and darkens one that does not until it reaches 3:1', () => {
    expect(readableBrandColor('4285F4')).toBe('4285f4');
    expect(readableBrandColor('000000')).toBe('000000');
    // Mailchimp's yellow on white would vanish.
    const mailchimp = readableBrandColor('FFE01B');
    expect(mailchimp).not.toBe('ffe01b');
    expect(contrastRatio(mailchimp, 'ffffff')).toBeGreaterThanOrEqual(3);
  });
});
