import type { EntityManager } from '@mikro-orm/postgresql';
import type { Finding, ReviewStep } from '../../../shared/page-reviewer.ts';
import type { JobDefinition, RecurringCheck } from '../../jobs/queues.ts';
import { outboundFetch, type OutboundPolicy } from '../../outbound/outbound-http.ts';
import { llmProviderFor, llmSettingsFromEnv, type LlmProvider } from '../llm/llm-provider.ts';
import { fetchPage, PageFetchError } from '../page-fetcher/page-fetcher.ts';
import { checkContent } from './content-checks.ts';
import { loadAndMeasure, type PageLoadResult } from './page-load.ts';
import { PageReview } from './page-review.entity.ts';
import { aiSuggestionsFor } from './ai-suggestions.ts';
import { metricSeverity, PERFORMANCE_CURVES, reviewScores } from './scoring.ts';

// The review job (pg-boss): fetch the HTML through the page fetcher, check it, load the page in the
// guarded Chromium for performance and screenshots, check the page's links, optionally ask the LLM,
// score, and write progress as it goes. A user-started review reads the page the user named, like a
// browser would: robots.txt (meant for crawlers) is not applied here; the scheduled price checks do.

export const PAGE_REVIEW_QUEUE = 'page-reviewer.review';
/** A review still queued or running after this long was lost (its process stopped): it is marked failed. */
export const STALE_REVIEW_MS = 10 * 60 * 1000;
export const STALE_REVIEW_MESSAGE = 'The review was interrupted before it finished. Re-run it.';

/** Above these, the page weight and request count are findings (HTTP Archive's median mobile page is ~2.3 MB, ~70 requests). */
export const PAGE_WEIGHT_LIMITS = { low: 2_000_000, medium: 4_000_000 } as const;
export const REQUEST_LIMITS = { low: 80, medium: 150 } as const;

export interface RunReviewOptions {
  /** Another address policy than the app's (tests). */
  policy?: OutboundPolicy;
  llm?: LlmProvider | null;
}

async function progress(em: EntityManager, id: number, step: ReviewStep, percent: number): Promise<void> {
  await em.nativeUpdate(PageReview, { id }, { status: 'running', step, progress: percent });
}

/** Links answering 4xx/5xx or not at all (refused addresses included), through the outbound module, 4 at a time. */
export async function brokenLinks(links: readonly string[], policy?: OutboundPolicy): Promise<string[]> {
  const broken: string[] = [];
  const queue = [...links];
  const check = async (link: string) => {
    const limits = { timeoutMs: 8000, maxBodyBytes: 256 * 1024, ...(policy ? { policy } : {}) };
    try {
      let response = await outboundFetch(link, { method: 'HEAD' }, limits);
      // Some servers refuse HEAD: ask with GET before calling the link broken.
      if (response.status === 405 || response.status === 501) response = await outboundFetch(link, { method: 'GET' }, limits);
      if (response.status >= 400) broken.push(`${link} (${response.status})`);
    } catch {
      broken.push(link);
    }
  };
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let link = queue.shift(); link !== undefined; link = queue.shift()) await check(link);
  }));
  return broken.sort();
}

function graded(lowAt: number, mediumAt: number, value: number) {
  return value > mediumAt ? 'medium' : value > lowAt ? 'low' : 'pass';
}

export function performanceFindings(load: Pick<PageLoadResult, 'lcpMs' | 'tbtMs' | 'cls' | 'pageBytes' | 'requests' | 'cta'>): Finding[] {
  const metric = (code: 'lcp' | 'tbt' | 'cls', key: 'lcpMs' | 'tbtMs' | 'cls', value: number | null, unit: string): Finding => ({
    code,
    category: 'performance',
    severity: value === null ? 'low' : metricSeverity(PERFORMANCE_CURVES[key], value),
    evidence: { element: null, value: value === null ? null : `${value}${unit}` },
  });
  return [
    metric('lcp', 'lcpMs', load.lcpMs, ' ms'),
    metric('tbt', 'tbtMs', load.tbtMs, ' ms'),
    metric('cls', 'cls', load.cls, ''),
    { code: 'page_weight', category: 'performance', severity: graded(PAGE_WEIGHT_LIMITS.low, PAGE_WEIGHT_LIMITS.medium, load.pageBytes), evidence: { element: null, value: `${Math.round(load.pageBytes / 1024)} KB` } },
    { code: 'request_count', category: 'performance', severity: graded(REQUEST_LIMITS.low, REQUEST_LIMITS.medium, load.requests), evidence: { element: null, value: String(load.requests) } },
    {
      code: 'cta_above_fold',
      category: 'conversion',
      severity: load.cta?.aboveFold ? 'pass' : load.cta ? 'medium' : 'high',
      evidence: { element: load.cta?.selector ?? null, value: load.cta?.text ?? null },
    },
  ];
}

/** Runs one review to its end; a failure is recorded on the review (never thrown: a retry would not help). */
export async function runReview(em: EntityManager, id: number, options: RunReviewOptions = {}): Promise<void> {
  const review = await em.findOne(PageReview, { id });
  if (!review || review.status === 'done' || review.status === 'failed') return;
  await em.nativeUpdate(PageReview, { id }, { status: 'running', step: 'fetching', progress: 5, startedAt: new Date() });
  try {
    const fetched = await fetchPage(review.url, options.policy ? { policy: options.policy } : {});
    await progress(em, id, 'parsing', 20);
    const content = checkContent(fetched.html, fetched.url);
    await progress(em, id, 'loading', 30);
    const load = await loadAndMeasure(fetched.url, options.policy ? { policy: options.policy } : {});
    await progress(em, id, 'links', 70);
    const broken = await brokenLinks(content.links, options.policy);
    const linkFinding: Finding = {
      code: 'broken_links',
      category: 'seo',
      severity: broken.length === 0 ? 'pass' : broken.length > 2 ? 'high' : 'medium',
      evidence: { element: 'a[href]', value: broken.length ? broken.slice(0, 5).join(' · ') : `${content.links.length} checked` },
    };
    const findings = [...performanceFindings(load), ...content.findings, linkFinding];
    let aiSuggestions = null;
    if (options.llm) {
      await progress(em, id, 'suggestions', 85);
      aiSuggestions = await aiSuggestionsFor(options.llm, { url: fetched.url, title: content.title, headline: content.headline, cta: load.cta?.text ?? null, findings });
    }
    await progress(em, id, 'scoring', 95);
    const metrics = { fcpMs: load.fcpMs, lcpMs: load.lcpMs, tbtMs: load.tbtMs, cls: load.cls, pageBytes: load.pageBytes, requests: load.requests, fleschReadingEase: content.fleschReadingEase };
    await em.nativeUpdate(PageReview, { id }, {
      status: 'done', step: 'done', progress: 100, finalUrl: load.finalUrl, findings, metrics, aiSuggestions,
      scores: reviewScores(findings, metrics), aboveFoldJpeg: load.aboveFoldJpeg, fullPageJpeg: load.fullPageJpeg, finishedAt: new Date(),
    });
  } catch (error) {
    const message = error instanceof PageFetchError ? error.message : `The page could not be reviewed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`;
    await em.nativeUpdate(PageReview, { id }, { status: 'failed', step: 'failed', error: message.slice(0, 500), finishedAt: new Date() });
  }
}

let jobLlm: LlmProvider | null | undefined;

export const PAGE_REVIEW_JOB: JobDefinition = {
  queue: PAGE_REVIEW_QUEUE,
  retryLimit: 0,
  expireInSeconds: 5 * 60,
  handle: async (context, data) => {
    const reviewId = (data as { reviewId?: unknown } | null)?.reviewId;
    if (typeof reviewId !== 'number') return;
    jobLlm ??= llmProviderFor(llmSettingsFromEnv(process.env));
    await runReview(context.em.fork(), reviewId, { llm: jobLlm });
  },
};

/** Marks reviews whose job was lost (a process stopped mid-review) as failed, so their screens stop waiting. */
export async function failStaleReviews(em: EntityManager, now = new Date()): Promise<number> {
  return em.nativeUpdate(
    PageReview,
    { status: { $in: ['queued', 'running'] }, createdAt: { $lt: new Date(now.getTime() - STALE_REVIEW_MS) } },
    { status: 'failed', step: 'failed', error: STALE_REVIEW_MESSAGE, finishedAt: now },
  );
}

export const PAGE_REVIEW_CHECKS: readonly RecurringCheck[] = [{ name: 'page-reviewer.stale-reviews', everySeconds: 60, run: (context) => failStaleReviews(context.em) }];
