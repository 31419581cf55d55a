import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { REVIEW_STATUSES, REVIEW_STEPS, type AiSuggestions, type Finding, type ReviewMetrics, type ReviewScores } from '../../../shared/page-reviewer.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/**
 * One landing page review: the address, the job's progress (0-100 and the step it is at), and when
 * done the scores, findings, metrics and two JPEG screenshots (lazy: never loaded with the row; the
 * screenshot route reads them alone). A re-run is a new row, so the history keeps scores over time.
 */
export const PageReview = defineEntity({
  name: 'PageReview',
  tableName: 'page_reviews',
  properties: {
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    id: p.integer().primary().autoincrement(),
    url: p.text(),
    finalUrl: p.text().nullable(),
    /** The store's product the page sells (picked when the review was started), and its title then. */
    productId: p.bigint('number').nullable(),
    productTitle: p.text().nullable(),
    /** The store's advertising campaign the page is for (picked when the review was started), and its name then. */
    campaignPlatform: p.string().length(32).nullable(),
    campaignId: p.string().length(64).nullable(),
    campaignName: p.text().nullable(),
    status: p.enum(REVIEW_STATUSES).default('queued'),
    progress: p.smallint().default(0),
    step: p.enum(REVIEW_STEPS).default('queued'),
    error: p.text().nullable(),
    scores: p.json<ReviewScores>().nullable(),
    findings: p.json<Finding[]>().nullable(),
    metrics: p.json<ReviewMetrics>().nullable(),
    aiSuggestions: p.json<AiSuggestions>().nullable(),
    aboveFoldJpeg: p.blob().lazy().nullable(),
    fullPageJpeg: p.blob().lazy().nullable(),
    requestedBy: () => p.manyToOne(User).deleteRule('set null').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['store', 'createdAt'] }, { properties: ['store', 'url', 'createdAt'] }],
});
export type PageReviewEntity = InferEntity<typeof PageReview>;
