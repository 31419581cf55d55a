import { ConnectorRequestError, MalformedResponseError, type ConnectorContext, type PlatformAccount, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { addDays, daysBetween } from '../../modules/commerce/days.ts';
import { dayCount, reportingDays, type DayRange } from '../ads-shared/reporting-days.ts';
import {
  accessOf,
  awaitReportRun,
  fetchAdAccount,
  fetchInsightsPage,
  fetchReportRunPage,
  INSIGHTS_PAGE_SIZE,
  MAX_REPORT_POLLS,
  nextAfter,
  PLATFORM,
  startReportRun,
  type InsightsPage,
  type MetaAccess,
} from './client.ts';
import { mapAccountSpend, mapInsightsRow } from './map.ts';

// Reading one ad account's daily campaign insights over a window, a page per batch.
//
// A range of up to `asyncThresholdDays` days is read synchronously (GET act_{id}/insights, paged
// with `after`). A longer one goes through an asynchronous report run: POST act_{id}/insights, poll
// the run until "Job Completed", then read its /insights pages. Meta documents no size at which a
// synchronous query fails; its error codes page answers a timed-out synchronous query with "try a
// smaller date range, fetch less data, or use async jobs". 31 days keeps the reads users wait on (the
// last days, a month restated daily) synchronous and sends backfills and quarterly restatements to
// report runs.
//
// "Ask for less" answers to a synchronous query (code 1, the data-per-call limit, the sync timeouts)
// split the range in halves, down to single days, instead of repeating the same query; a report run
// that fails ("Job Failed", "Job Skipped") is split the same way, each half read as its length says.
//
// The cursor holds the ranges still to read (the first one under way), the report run reading the
// first one and Graph's `after` cursor within it: a resumed sync polls the same run and goes on from
// the same page. A run Meta no longer knows is started again.

export interface InsightsReadingOptions {
  pageSize?: number;
  /** Ranges longer than this many days go through a report run. */
  asyncThresholdDays?: number;
  maxReportPolls?: number;
}

export const ASYNC_THRESHOLD_DAYS = 31;

interface AccountCursor {
  /** The account's currency, read once (a connection made before accounts could be chosen does not know it). */
  currency: string;
  /** Ranges still to read, in order; the first is under way. */
  ranges: DayRange[];
  /** The report run reading ranges[0], when it is read asynchronously. */
  run?: string;
  /** Graph's cursor of the next page of ranges[0]. */
  after?: string;
}

const isDay = (value: unknown): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

function parseCursor(raw: string | null): AccountCursor | null {
  if (!raw) return null;
  let value: Partial<AccountCursor>;
  try {
    value = JSON.parse(raw) as Partial<AccountCursor>;
  } catch {
    value = {};
  }
  const ranges = Array.isArray(value.ranges) ? value.ranges : [];
  if (typeof value.currency !== 'string' || ranges.length === 0 || !ranges.every((range) => isDay(range?.from) && isDay(range?.to) && range.from <= range.to)) {
    throw new MalformedResponseError(PLATFORM, `sync cursor not understood: ${raw.slice(0, 120)}`);
  }
  return {
    currency: value.currency,
    ranges: ranges.map(({ from, to }) => ({ from, to })),
    ...(typeof value.run === 'string' ? { run: value.run } : {}),
    ...(typeof value.after === 'string' ? { after: value.after } : {}),
  };
}

/** A range in two halves (the first the longer by a day when the count is odd). */
export function halves(range: DayRange): [DayRange, DayRange] {
  const firstDays = Math.ceil((daysBetween(range.from, range.to) + 1) / 2);
  const middle = addDays(range.from, firstDays - 1);
  return [
    { from: range.from, to: middle },
    { from: addDays(middle, 1), to: range.to },
  ];
}

/** The account's currency: as chosen (PlatformAccount), else from its node. */
async function currencyOf(ctx: ConnectorContext, access: MetaAccess, account: PlatformAccount): Promise<string> {
  return account.currency ?? (await fetchAdAccount(ctx.http, access, account.accountId)).currency;
}

/** The batch of one page of ranges[0], and where the account's reading goes on. */
function batchOf(page: InsightsPage, account: PlatformAccount, state: AccountCursor): SyncBatch {
  const after = nextAfter(page);
  const [, ...rest] = state.ranges;
  const next: AccountCursor | null = after ? { ...state, after } : rest.length > 0 ? { currency: state.currency, ranges: rest } : null;
  return {
    adMetrics: page.data.map((row) => mapInsightsRow(row, account.accountId, state.currency)),
    nextCursor: next ? JSON.stringify(next) : null,
  };
}

/** The reader fetchAcrossAccounts runs for each account: the next page of its campaign-day rows. */
export function campaignInsightsReader(options: InsightsReadingOptions = {}) {
  const pageSize = options.pageSize ?? INSIGHTS_PAGE_SIZE;
  const asyncThreshold = Math.max(1, options.asyncThresholdDays ?? ASYNC_THRESHOLD_DAYS);
  const maxPolls = options.maxReportPolls ?? MAX_REPORT_POLLS;

  return async (ctx: ConnectorContext, account: PlatformAccount, window: SyncWindow, cursor: string | null): Promise<SyncBatch> => {
    const range = reportingDays(window);
    if (!range) return { adMetrics: [], nextCursor: null, estimatedTotal: 0 };
    const access = accessOf(ctx);
    let state = parseCursor(cursor) ?? { currency: await currencyOf(ctx, access, account), ranges: [range] };

    for (;;) {
      const [head, ...rest] = state.ranges as [DayRange, ...DayRange[]];
      const split = () => ({ currency: state.currency, ranges: [...halves(head), ...rest] });
      if (dayCount(head) > asyncThreshold) {
        const started = !state.run;
        const run = state.run ?? (await startReportRun(ctx.http, access, account.accountId, 'campaign', head));
        const outcome = await awaitReportRun(ctx.http, access, run, maxPolls);
        if (outcome.kind === 'gone') {
          if (started) throw new ConnectorRequestError(PLATFORM, 0, `Meta lost the report run ${run} it had just started (${outcome.reason})`);
          // Meta no longer keeps that run: a new one reads the range from its start (ingest is idempotent).
          state = { currency: state.currency, ranges: state.ranges };
          continue;
        }
        if (outcome.kind === 'failed') {
          state = split();
          continue;
        }
        const page = await fetchReportRunPage(ctx.http, access, run, state.after ?? null, pageSize);
        return batchOf(page, account, { ...state, run });
      }
      const answer = await fetchInsightsPage(ctx.http, access, account.accountId, 'campaign', head, state.after ?? null, pageSize);
      if (answer.kind === 'too_much_data') {
        state = split();
        continue;
      }
      return batchOf(answer.page, account, state);
    }
  };
}

/**
 * Meta's own daily spend of one account (level=account, which counts every campaign, deleted and
 * archived ones too): synchronous reads, a range split in halves whenever Meta asks for less.
 */
export async function accountDailySpend(ctx: ConnectorContext, account: PlatformAccount, window: SyncWindow, pageSize = INSIGHTS_PAGE_SIZE): Promise<SourceDayTotal[]> {
  const range = reportingDays(window);
  if (!range) return [];
  const access = accessOf(ctx);
  const currency = await currencyOf(ctx, access, account);
  const totals: SourceDayTotal[] = [];
  const pending: DayRange[] = [range];
  while (pending.length > 0) {
    const head = pending.shift()!;
    let after: string | null = null;
    do {
      const answer = await fetchInsightsPage(ctx.http, access, account.accountId, 'account', head, after, pageSize);
      if (answer.kind === 'too_much_data') {
        // Rows of the split range already read are read again by its halves: start the range over.
        totals.splice(0, totals.length, ...totals.filter((total) => total.day < head.from || total.day > head.to));
        pending.unshift(...halves(head));
        break;
      }
      totals.push(...mapAccountSpend(answer.page.data, account.accountId, currency));
      after = nextAfter(answer.page);
    } while (after);
  }
  return totals;
}
