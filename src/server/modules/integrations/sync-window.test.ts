import { describe, expect, it } from 'vitest';
import type { PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { DEEP_RESTATED_DAYS, RESTATED_DAYS, syncWindowFor } from './sync-runner.ts';

// Which part of a platform's history a run reads (no database: the window is pure arithmetic).

const now = new Date('2026-11-25T14:30:00Z');
const DAY_MS = 86_400_000;

function connection(platform: PlatformConnectionEntity['platform'], changes: Partial<PlatformConnectionEntity> = {}): PlatformConnectionEntity {
  return { platform, backfillMonths: 12, syncedUntil: new Date(now.getTime() - 15 * 60_000), deepRestatedAt: null, ...changes } as PlatformConnectionEntity;
}

describe('the window of a sync', () => {
  it('ads platforms re-read 90 days when no sync did for a week, else the last 28 (attribution windows restate them)', () => {
    expect([RESTATED_DAYS, DEEP_RESTATED_DAYS]).toEqual([28, 90]);
    // Never restated deeply: 90 days back (2026-08-27), from the start of that day in the store's zone
    // (London is on summer time then, UTC+1), to the end of today (UTC+0 in November).
    expect(syncWindowFor(connection('metaads'), 'incremental', now, 'Europe/London')).toEqual({
      since: new Date('2026-08-26T23:00:00Z'),
      until: new Date('2026-11-26T00:00:00Z'),
    });
    // Six days after the last 90-day read: 28 days.
    const recent = connection('googleads', { deepRestatedAt: new Date(now.getTime() - 6 * DAY_MS) });
    expect(syncWindowFor(recent, 'incremental', now, 'Europe/London')).toEqual({ since: new Date('2026-10-28T00:00:00Z'), until: new Date('2026-11-26T00:00:00Z') });
    // Seven days after: 90 again. In New York the days start at 05:00 UTC.
    const due = connection('bingads', { deepRestatedAt: new Date(now.getTime() - 7 * DAY_MS) });
    expect(syncWindowFor(due, 'incremental', now, 'America/New_York')).toEqual({ since: new Date('2026-08-27T04:00:00Z'), until: new Date('2026-11-26T05:00:00Z') });
    // E-mail figures restate too (late opens and clicks, orders in the attribution window).
    expect(syncWindowFor(connection('klaviyo', { deepRestatedAt: new Date(now.getTime() - DAY_MS) }), 'incremental', now, 'Europe/London').since).toEqual(new Date('2026-10-28T00:00:00Z'));
  });

  it('a connection that last synced long ago reads from there; store platforms overlap one day', () => {
    const behind = connection('tiktokads', { syncedUntil: new Date('2026-06-01T00:00:00Z'), deepRestatedAt: new Date(now.getTime() - DAY_MS) });
    expect(syncWindowFor(behind, 'incremental', now, 'Europe/London').since).toEqual(new Date('2026-05-31T23:00:00Z'));
    expect(syncWindowFor(connection('shopify'), 'incremental', now, 'Europe/London')).toEqual({ since: new Date(now.getTime() - 15 * 60_000 - DAY_MS), until: now });
    expect(syncWindowFor(connection('shopify'), 'backfill', now, 'Europe/London').since).toEqual(new Date('2025-11-25T14:30:00Z'));
  });
});
