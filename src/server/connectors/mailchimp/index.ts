import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { decodeCursor, encodeCursor } from '../email-shared/cursor.ts';
import { isKnownTimezone, sentInWindow } from '../email-shared/days.ts';
import { MAILCHIMP_PAGE_SIZE, MAILCHIMP_PLATFORM, MailchimpClient, mailchimpBaseUrl } from './client.ts';
import { reportToEmailMetric } from './map.ts';

// One /reports page per batch, filtered by send time to the window; the cursor is the next offset.
// The window's upper bound is fixed, so campaigns sent while a sync runs cannot shift the offsets.
// Automations are not synced: /reports lists campaign types only, classic automations report lifetime
// opens and clicks without revenue or days, and Customer Journeys have no reporting endpoint
// (docs/platform-notes.md "## Mailchimp").

const cursorSchema = z.object({ offset: z.number().int().nonnegative() });

export const mailchimpConnector: Connector = {
  platform: MAILCHIMP_PLATFORM,
  kind: 'email',
  authKind: 'credentials',
  credentialFields: ['apiKey'],
  defaultBaseUrl: mailchimpBaseUrl,

  async verify(ctx) {
    const account = await new MailchimpClient(ctx).account();
    return {
      accountId: account.account_id,
      accountName: account.account_name || account.email || `Mailchimp account ${account.account_id}`,
      timezone: isKnownTimezone(account.account_timezone) ? account.account_timezone : undefined,
    };
  },

  async fetchBatch(ctx, window, cursorText) {
    if (window.since.getTime() >= window.until.getTime()) return { nextCursor: null };
    const { offset } = cursorText === null ? { offset: 0 } : decodeCursor(MAILCHIMP_PLATFORM, cursorText, cursorSchema);
    const page = await new MailchimpClient(ctx).reportsPage(window.since, window.until, offset);
    const emailMetrics = page.reports
      .filter((report) => sentInWindow(report.send_time, window))
      .map((report) => reportToEmailMetric(report, { timezone: ctx.store.timezone, fallbackCurrency: ctx.store.currency }));
    const nextOffset = offset + MAILCHIMP_PAGE_SIZE;
    const done = page.reports.length === 0 || nextOffset >= page.total_items;
    return { emailMetrics, nextCursor: done ? null : encodeCursor({ offset: nextOffset }), estimatedTotal: page.total_items };
  },
  // No sourceTotals: Mailchimp reports per campaign, with no per-day order or spend figures.
};
