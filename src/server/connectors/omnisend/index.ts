import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { decodeCursor, encodeCursor } from '../email-shared/cursor.ts';
import { sentInWindow } from '../email-shared/days.ts';
import { OMNISEND_BASE_URL, OMNISEND_PLATFORM, OmnisendClient } from './client.ts';
import { campaignSendTime, campaignToEmailMetric } from './map.ts';

// v3 cannot filter campaigns by send date, so a sync pages through the account's campaigns (one page
// per batch) and keeps those that started in the window. The cursor is the next page's query string.

const cursorSchema = z.object({ pageQuery: z.string().startsWith('?') });

export const omnisendConnector: Connector = {
  platform: OMNISEND_PLATFORM,
  kind: 'email',
  authKind: 'credentials',
  credentialFields: ['apiKey'],
  defaultBaseUrl: () => OMNISEND_BASE_URL,

  async verify(ctx) {
    await new OmnisendClient(ctx).campaignsPage(null, 1);
    // v3 has no account endpoint: the key itself (hashed) identifies the brand.
    const keyId = createHash('sha256').update(ctx.credentials.apiKey!.trim()).digest('hex').slice(0, 12);
    return { accountId: `omnisend-${keyId}`, accountName: `Omnisend brand (key …${ctx.credentials.apiKey!.trim().slice(-4)})` };
  },

  async fetchBatch(ctx, window, cursorText) {
    if (window.since.getTime() >= window.until.getTime()) return { nextCursor: null };
    const pageQuery = cursorText === null ? null : decodeCursor(OMNISEND_PLATFORM, cursorText, cursorSchema).pageQuery;
    const { page, nextPageQuery } = await new OmnisendClient(ctx).campaignsPage(pageQuery);
    const emailMetrics = page.campaign
      .filter((campaign) => sentInWindow(campaignSendTime(campaign), window))
      .map((campaign) => campaignToEmailMetric(campaign, { timezone: ctx.store.timezone, currency: ctx.store.currency })!);
    const next = page.campaign.length > 0 && nextPageQuery ? encodeCursor({ pageQuery: nextPageQuery }) : null;
    // No estimatedTotal: paging.total counts every campaign of the account, not the window's.
    return { emailMetrics, nextCursor: next };
  },
  // No sourceTotals: Omnisend v3 has no per-day order or spend figures.
};
