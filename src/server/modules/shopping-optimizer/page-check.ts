import type { EntityManager } from '@mikro-orm/postgresql';
import type { FeedIssue, FeedIssueType, PageCheckResult, PageCheckState } from '../../../shared/shopping-optimizer.ts';
import { AppError } from '../../errors.ts';
import type { JobDefinition, RecurringCheck } from '../../jobs/queues.ts';
import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { Product } from '../commerce/product.entity.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { fetchPage, PageFetchError } from '../page-fetcher/page-fetcher.ts';
import { crawlPacer, type DomainPacer } from '../page-fetcher/politeness.ts';
import { extractPrice, type ExtractedPrice } from '../price-tracker/price-extraction.ts';
import { feedIssueOf, feedItemOf, type FeedItem, type Overrides } from './feed-rules.ts';
import { ShoppingFeedOverride, ShoppingPageCheck, type ShoppingPageCheckEntity } from './shopping-optimizer.entities.ts';

// "Check product pages" (issue 20): every active product's feed link (overrides applied) read through the
// page fetcher, robots.txt obeyed (a bulk crawl) and one request per domain per 10 s (the pacer), its
// price, currency and availability read by the price tracker's extractor and compared with the feed.
// Google disapproves a product whose page disagrees: "Mismatched value (page crawl): (price [price])",
// https://support.google.com/merchants/answer/6098334 (Googlebot compares the feed's price with the page's
// and its structured data), and the same for availability [availability] (the page's schema.org
// availability against the feed's, https://support.google.com/merchants/answer/6098383).

export const PAGE_CHECK_QUEUE = 'shopping-optimizer.page-check';
export const PAGE_CHECK_RUNNING_MESSAGE = 'A page check is already running for this store';
/** A run without a sign of life for this long was lost (its process stopped): a page takes at most ~1 min (robots.txt, pacer, page). */
export const STALE_PAGE_CHECK_MS = 10 * 60 * 1000;
export const STALE_PAGE_CHECK_MESSAGE = 'The check was interrupted before it finished. Run it again.';
export const PAGE_CHECK_NO_LINKS_MESSAGE = 'No product has a link to check: add a product link template first';

export interface PageCheckOptions {
  pacer?: DomainPacer;
  /** Another address policy than the app's (tests). */
  policy?: OutboundPolicy;
}

/** Page and feed side by side: the outcome Google's crawler would reach (pure). */
export function compareWithPage(productId: number, item: FeedItem, page: ExtractedPrice): PageCheckResult {
  // A page that names no currency is read in the feed's (as the price tracker does).
  const pageCurrency = page.currency ?? item.currency;
  const priceDiffers = pageCurrency !== item.currency || page.priceMinor !== item.priceMinor;
  const availabilityDiffers = page.availability !== 'unknown' && page.availability !== item.availability;
  return {
    productId,
    url: item.link,
    outcome: priceDiffers ? 'price_differs' : availabilityDiffers ? 'availability_differs' : 'match',
    pagePriceMinor: page.priceMinor,
    pageCurrency,
    pageAvailability: page.availability,
    feedPriceMinor: item.priceMinor,
    feedCurrency: item.currency,
    feedAvailability: item.availability,
    error: null,
    httpStatus: null,
  };
}

function pageError(productId: number, item: FeedItem, error: PageCheckResult['error'], httpStatus: number | null = null): PageCheckResult {
  return {
    productId, url: item.link, outcome: 'page_error', pagePriceMinor: null, pageCurrency: null, pageAvailability: null,
    feedPriceMinor: item.priceMinor, feedCurrency: item.currency, feedAvailability: item.availability, error, httpStatus,
  };
}

/** A product's page check results as audit issues (a price that differs and stock that differs are both reported). */
export function pageCheckIssues(result: PageCheckResult): FeedIssue[] {
  const types: FeedIssueType[] = [];
  if (result.outcome === 'page_error') types.push('page_error');
  if (result.outcome === 'price_differs') types.push('page_price_mismatch');
  if (result.pageAvailability && result.pageAvailability !== 'unknown' && result.pageAvailability !== result.feedAvailability) types.push('page_availability_mismatch');
  return types.map((type) => ({ ...feedIssueOf(type), page: result }));
}

export function pageCheckStateOf(check: ShoppingPageCheckEntity | null): PageCheckState | null {
  if (!check) return null;
  return {
    status: check.status,
    checked: check.checked,
    total: check.total,
    startedAt: check.startedAt?.toISOString() ?? null,
    finishedAt: check.finishedAt?.toISOString() ?? null,
    error: check.error ?? null,
  };
}

/** The feed items with a link, exactly as the feed sends them. */
async function linkedItems(em: EntityManager, storeId: number): Promise<{ productId: number; item: FeedItem }[]> {
  const [products, rows] = await Promise.all([
    em.find(Product, { store: storeId, active: true }, { orderBy: { id: 'asc' } }),
    em.find(ShoppingFeedOverride, { store: storeId }),
  ]);
  const overrides = new Map<number, Overrides>();
  for (const row of rows) overrides.set(row.productId, { ...overrides.get(row.productId), [row.attribute]: row.value });
  return products
    .map((product) => ({ productId: product.id, item: feedItemOf(product, overrides.get(product.id) ?? {}) }))
    .filter(({ item }) => /^https?:\/\//i.test(item.link));
}

/** Queues a check of the store's product pages; refused while one is queued or running. */
export async function startPageCheck(em: EntityManager, storeId: number): Promise<PageCheckState> {
  const total = (await linkedItems(em, storeId)).length;
  if (total === 0) throw new AppError('BAD_REQUEST', PAGE_CHECK_NO_LINKS_MESSAGE);
  // One statement, so two clicks at once cannot both start a run.
  const started = await em.getConnection().execute<{ store_id: number }[]>(
    `insert into shopping_page_checks (store_id, status, checked, total, results, created_at, updated_at) values (?, 'queued', 0, ?, '[]', now(), now())
     on conflict (store_id) do update set status = 'queued', checked = 0, total = excluded.total, error = null, created_at = now(), updated_at = now(), started_at = null, finished_at = null
     where shopping_page_checks.status not in ('queued', 'running') or shopping_page_checks.updated_at < now() - make_interval(secs => ?)
     returning store_id`,
    [storeId, total, STALE_PAGE_CHECK_MS / 1000],
  );
  if (started.length === 0) throw new AppError('CONFLICT', PAGE_CHECK_RUNNING_MESSAGE);
  await sendIntegrationJob(PAGE_CHECK_QUEUE, { storeId }, { singletonKey: `page-check:${storeId}` });
  return pageCheckStateOf(await em.findOneOrFail(ShoppingPageCheck, { store: storeId }, { refresh: true }))!;
}

/** Reads every linked product's page, one after another, writing progress as it goes; failures are recorded, never thrown. */
export async function runPageCheck(em: EntityManager, storeId: number, options: PageCheckOptions = {}): Promise<void> {
  const pacer = options.pacer ?? crawlPacer();
  try {
    const items = await linkedItems(em, storeId);
    await em.nativeUpdate(ShoppingPageCheck, { store: storeId }, { status: 'running', startedAt: new Date(), updatedAt: new Date(), total: items.length, checked: 0 });
    const results: PageCheckResult[] = [];
    for (const { productId, item } of items) {
      try {
        await pacer.wait(item.link);
        const page = await fetchPage(item.link, { respectRobots: true, ...(options.policy ? { policy: options.policy } : {}) });
        const found = extractPrice(page.html);
        results.push(found ? compareWithPage(productId, item, found) : pageError(productId, item, 'no_price'));
      } catch (error) {
        if (!(error instanceof PageFetchError)) throw error;
        results.push(pageError(productId, item, error.reason, error.status ?? null));
      }
      await em.nativeUpdate(ShoppingPageCheck, { store: storeId }, { checked: results.length, results, updatedAt: new Date() });
    }
    await em.nativeUpdate(ShoppingPageCheck, { store: storeId }, { status: 'done', finishedAt: new Date() });
  } catch (error) {
    const message = `The check stopped: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    await em.nativeUpdate(ShoppingPageCheck, { store: storeId }, { status: 'failed', error: message.slice(0, 500), finishedAt: new Date() });
  }
}

export const PAGE_CHECK_JOB: JobDefinition = {
  queue: PAGE_CHECK_QUEUE,
  retryLimit: 0,
  // 10 s per page of one domain: a shop of 2,000 products takes ~6 h. The heartbeat, not this, notices a dead worker.
  expireInSeconds: 8 * 60 * 60,
  heartbeatSeconds: 120,
  handle: async (context, data) => {
    const storeId = (data as { storeId?: unknown } | null)?.storeId;
    if (typeof storeId === 'number') await runPageCheck(context.em.fork(), storeId);
  },
};

/** Marks runs whose process stopped as failed, so the screen stops waiting and a new run can start. */
export async function failStalePageChecks(em: EntityManager, now = new Date()): Promise<number> {
  return em.nativeUpdate(
    ShoppingPageCheck,
    { status: { $in: ['queued', 'running'] }, updatedAt: { $lt: new Date(now.getTime() - STALE_PAGE_CHECK_MS) } },
    { status: 'failed', error: STALE_PAGE_CHECK_MESSAGE, finishedAt: now },
  );
}

export const PAGE_CHECK_CHECKS: readonly RecurringCheck[] = [{ name: 'shopping-optimizer.stale-page-checks', everySeconds: 60, run: (context) => failStalePageChecks(context.em) }];
