import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReviewCampaign, ReviewDetail, ReviewSummary, ScreenshotKind } from '../../../shared/page-reviewer.ts';
import { AppError } from '../../errors.ts';
import { Product } from '../commerce/product.entity.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { PageReview, type PageReviewEntity } from './page-review.entity.ts';
import { PAGE_REVIEW_QUEUE } from './review-job.ts';

// Reviews of the active store: every query is scoped by store id, so another store's review id is
// simply not found.

export const REVIEW_NOT_FOUND_MESSAGE = 'This review does not exist, or it belongs to another store.';
export const PRODUCT_NOT_FOUND_MESSAGE = 'This product does not exist in the active store.';
export const CAMPAIGN_NOT_FOUND_MESSAGE = 'This campaign does not exist in the active store.';
/** The product and campaign pickers list this many of the store's products or campaigns, by name. */
export const PRODUCT_CHOICES_LIMIT = 500;
/** The history shows this many reviews, newest first. */
export const HISTORY_LIMIT = 200;

function summaryOf(review: PageReviewEntity): ReviewSummary {
  return {
    id: review.id,
    url: review.url,
    productTitle: review.productTitle ?? null,
    campaign: review.campaignPlatform && review.campaignId ? ({ platform: review.campaignPlatform, id: review.campaignId, name: review.campaignName ?? review.campaignId } as ReviewCampaign) : null,
    status: review.status,
    progress: review.progress,
    step: review.step,
    error: review.error ?? null,
    scores: review.scores ?? null,
    createdAt: review.createdAt.toISOString(),
    finishedAt: review.finishedAt?.toISOString() ?? null,
  };
}

async function ownReview(em: EntityManager, storeId: number, id: number): Promise<PageReviewEntity> {
  const review = await em.findOne(PageReview, { store: storeId, id });
  if (!review) throw new AppError('NOT_FOUND', REVIEW_NOT_FOUND_MESSAGE);
  return review;
}

interface ReviewTarget {
  url: string;
  productId: number | null;
  productTitle: string | null;
  campaignPlatform: string | null;
  campaignId: string | null;
  campaignName: string | null;
}

async function queueReview(em: EntityManager, storeId: number, userId: number, target: ReviewTarget): Promise<{ id: number }> {
  const review = em.create(PageReview, { store: storeId, ...target, requestedBy: userId });
  await em.flush();
  await sendIntegrationJob(PAGE_REVIEW_QUEUE, { reviewId: review.id }, { singletonKey: `page-review:${review.id}` });
  return { id: review.id };
}

/** The store's campaigns (or the one named by `only`), each with the name of its latest day. */
async function storeCampaigns(em: EntityManager, storeId: number, only?: { platform: string; id: string }): Promise<ReviewCampaign[]> {
  const rows = await sqlRunner(em).rows<{ platform: string; campaign_id: string; name: string }>(
    `select platform, campaign_id, (array_agg(campaign_name order by day desc))[1] as name
       from ad_metrics_daily
      where store_id = $1 ${only ? 'and platform = $3 and campaign_id = $4' : ''}
      group by platform, campaign_id
      order by name, platform, campaign_id
      limit $2`,
    only ? [storeId, PRODUCT_CHOICES_LIMIT, only.platform, only.id] : [storeId, PRODUCT_CHOICES_LIMIT],
  );
  return rows.map((row) => ({ platform: row.platform, id: row.campaign_id, name: row.name || row.campaign_id }) as ReviewCampaign);
}

/** Records a review of `url` (for one of the store's products and campaigns, optionally) and queues its job. */
export async function startReview(
  em: EntityManager,
  storeId: number,
  userId: number,
  input: { url: string; productId?: number | undefined; campaign?: { platform: string; id: string } | undefined },
): Promise<{ id: number }> {
  let product: { id: number; title: string } | null = null;
  if (input.productId) {
    product = await em.findOne(Product, { store: storeId, id: input.productId }, { fields: ['id', 'title'] });
    if (!product) throw new AppError('NOT_FOUND', PRODUCT_NOT_FOUND_MESSAGE);
  }
  let campaign: ReviewCampaign | null = null;
  if (input.campaign) {
    [campaign = null] = await storeCampaigns(em, storeId, input.campaign);
    if (!campaign) throw new AppError('NOT_FOUND', CAMPAIGN_NOT_FOUND_MESSAGE);
  }
  return queueReview(em, storeId, userId, {
    url: input.url,
    productId: product?.id ?? null,
    productTitle: product?.title ?? null,
    campaignPlatform: campaign?.platform ?? null,
    campaignId: campaign?.id ?? null,
    campaignName: campaign?.name ?? null,
  });
}

/** A new review of the same address, product and campaign (the old one stays in the history). */
export async function rerunReview(em: EntityManager, storeId: number, userId: number, id: number): Promise<{ id: number }> {
  const review = await ownReview(em, storeId, id);
  return queueReview(em, storeId, userId, {
    url: review.url,
    productId: review.productId ?? null,
    productTitle: review.productTitle ?? null,
    campaignPlatform: review.campaignPlatform ?? null,
    campaignId: review.campaignId ?? null,
    campaignName: review.campaignName ?? null,
  });
}

/** The store's advertising campaigns, for the picker of the form. */
export async function reviewCampaigns(em: EntityManager, storeId: number): Promise<{ items: ReviewCampaign[] }> {
  return { items: await storeCampaigns(em, storeId) };
}

/** The store's active products, for the picker of the form. */
export async function reviewProducts(em: EntityManager, storeId: number): Promise<{ items: { id: number; title: string }[] }> {
  const products = await em.find(Product, { store: storeId, active: true }, { fields: ['id', 'title'], orderBy: { title: 'asc' }, limit: PRODUCT_CHOICES_LIMIT });
  return { items: products.map((product) => ({ id: product.id, title: product.title })) };
}

export async function listReviews(em: EntityManager, storeId: number): Promise<{ items: ReviewSummary[] }> {
  const reviews = await em.find(PageReview, { store: storeId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: HISTORY_LIMIT });
  return { items: reviews.map(summaryOf) };
}

export async function getReview(em: EntityManager, storeId: number, id: number, aiConfigured: boolean): Promise<ReviewDetail> {
  const review = await ownReview(em, storeId, id);
  const previous = await em.findOne(PageReview, { store: storeId, url: review.url, status: 'done', id: { $lt: review.id } }, { orderBy: { id: 'desc' } });
  const [shots] = await em.getConnection().execute<{ above: boolean; full: boolean }[]>(
    'select above_fold_jpeg is not null as above, full_page_jpeg is not null as full from page_reviews where store_id = ? and id = ?',
    [storeId, id],
  );
  return {
    ...summaryOf(review),
    finalUrl: review.finalUrl ?? null,
    findings: review.findings ?? [],
    metrics: review.metrics ?? null,
    screenshots: { aboveFold: Boolean(shots?.above), fullPage: Boolean(shots?.full) },
    aiSuggestions: review.aiSuggestions ?? null,
    aiConfigured,
    previous: previous ? summaryOf(previous) : null,
  };
}

export async function deleteReview(em: EntityManager, storeId: number, id: number): Promise<{ deleted: true }> {
  const deleted = await em.nativeDelete(PageReview, { store: storeId, id });
  if (deleted === 0) throw new AppError('NOT_FOUND', REVIEW_NOT_FOUND_MESSAGE);
  return { deleted: true };
}

/** The JPEG of one screenshot of the store's review, or null when it has none. */
export async function reviewScreenshot(em: EntityManager, storeId: number, id: number, kind: ScreenshotKind): Promise<Buffer | null> {
  const column = kind === 'above-fold' ? 'above_fold_jpeg' : 'full_page_jpeg';
  const [row] = await em.getConnection().execute<{ image: Buffer | null }[]>(`select ${column} as image from page_reviews where store_id = ? and id = ?`, [storeId, id]);
  if (!row) throw new AppError('NOT_FOUND', REVIEW_NOT_FOUND_MESSAGE);
  return row.image;
}
