import { ArrowLeftIcon, CircleAlertIcon, PrinterIcon, RefreshCwIcon, SparklesIcon } from 'lucide-react';
import { useId, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { FINDING_SEVERITIES, REVIEW_CATEGORIES, screenshotPath, type Finding, type FindingSeverity, type ReviewDetail } from '../../../shared/page-reviewer.ts';
import { DataError, DataLoading, useViewOnly } from '../../components/data-page.tsx';
import { PageHeader } from '../../components/empty-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { applyTheme, useTheme } from '../../lib/theme.tsx';
import { trpc } from '../../lib/trpc.ts';
import { formatReviewDate, isPending, ReviewProgress, ReviewTarget, ScoreDelta, scoreTone } from './review-parts.tsx';

// /landing-page-reviewer/{id}: one review. While its job runs, the progress; when done, the score
// gauges (compared with the previous review of the same address), the measurements, the screenshots,
// the findings by category (filterable by severity) and the AI suggestions. Prints as a report.

// The app's sidebar, header and buttons are left out of the printout (Print / PDF).
const PRINT_STYLE = `@media print {
  aside, header, nav, .print-hidden, [data-testid="guest-banner"] { display: none !important; }
  main { padding: 0 !important; overflow: visible !important; }
  .card { break-inside: avoid; box-shadow: none !important; }
}`;

/** Paper is white and browsers leave out background colours: the report prints in the light theme, then the screen's comes back. */
function printReport(screenTheme: 'light' | 'dark') {
  applyTheme('light');
  window.addEventListener('afterprint', () => applyTheme(screenTheme), { once: true });
  window.print();
}

const SEVERITY_BADGE: Record<FindingSeverity, string> = { high: 'badge-error', medium: 'badge-warning', low: 'badge-info', pass: 'badge-success' };

export function PageReviewDetailPage({ id }: { id: string }) {
  const { t, i18n } = useTranslation('page-reviewer');
  const reviewId = Number(id);
  const viewOnly = useViewOnly();
  const [, navigate] = useLocation();
  const { resolved: screenTheme } = useTheme();
  const review = trpc.pageReviewer.get.useQuery(
    { id: reviewId },
    { enabled: Number.isInteger(reviewId) && reviewId > 0, refetchInterval: (query) => (query.state.data && isPending(query.state.data) ? 1000 : false) },
  );
  const rerun = trpc.pageReviewer.rerun.useMutation({
    onSuccess: ({ id: next }) => navigate(`/landing-page-reviewer/${next}`),
    onError: (failure) => toast({ title: t('history.rerunFailed'), description: serverMessage(failure) ?? undefined, variant: 'destructive' }),
  });

  let content;
  if (!Number.isInteger(reviewId) || reviewId <= 0 || review.isError) content = <DataError error={review.error ?? new Error(t('history.loadFailed'))} onRetry={() => void review.refetch()} />;
  else if (review.isPending) content = <DataLoading label={t('detail.title')} cards={6} gridClassName="grid-cols-3 lg:grid-cols-6" chartClassName="h-60" />;
  else content = <ReviewBody review={review.data} />;

  const data = review.data;
  return (
    <div className="mx-auto max-w-6xl space-y-6" data-testid="review-detail" data-state={data?.status ?? 'loading'}>
      <style>{PRINT_STYLE}</style>
      <Link href="/landing-page-reviewer" className="link link-hover print-hidden inline-flex items-center gap-1 text-sm">
        <ArrowLeftIcon className="size-4" aria-hidden="true" />
        {t('detail.back')}
      </Link>
      <PageHeader
        title={t('detail.title')}
        description={
          data ? (
            <span className="flex flex-col">
              <a href={data.url} target="_blank" rel="noopener noreferrer" className="link break-all">
                {data.url}
              </a>
              <ReviewTarget review={data} className="text-sm" />
              <span className="text-sm">{t(isPending(data) ? 'detail.startedAt' : 'detail.reviewedAt', { date: formatReviewDate(data.createdAt, i18n.language) })}</span>
            </span>
          ) : undefined
        }
      >
        {data && (
          <div className="print-hidden flex flex-wrap gap-2">
            {data.status === 'done' && (
              <button type="button" className="btn btn-outline btn-sm" onClick={() => printReport(screenTheme)}>
                <PrinterIcon className="size-4" aria-hidden="true" />
                {t('detail.print')}
              </button>
            )}
            {!viewOnly && !isPending(data) && (
              <button type="button" className="btn btn-primary btn-sm" onClick={() => rerun.mutate({ id: data.id })} disabled={rerun.isPending}>
                <RefreshCwIcon className="size-4" aria-hidden="true" />
                {t('detail.rerun')}
              </button>
            )}
          </div>
        )}
      </PageHeader>
      {content}
    </div>
  );
}

function ReviewBody({ review }: { review: ReviewDetail }) {
  const { t } = useTranslation('page-reviewer');
  if (isPending(review)) {
    return (
      <div className="card bg-base-100 border-base-content/10 border shadow-xs" role="status">
        <div className="card-body gap-3 p-4 sm:p-6">
          <h2 className="card-title text-base">{t('detail.running')}</h2>
          <ReviewProgress review={review} wide />
        </div>
      </div>
    );
  }
  if (review.status === 'failed') {
    return (
      <div role="alert" className="alert alert-error alert-soft items-start">
        <CircleAlertIcon className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
        <div>
          <h2 className="font-semibold">{t('detail.failedTitle')}</h2>
          <p>{review.error}</p>
        </div>
      </div>
    );
  }
  return (
    <>
      <ScoreGauges review={review} />
      <Measurements review={review} />
      <Screenshots review={review} />
      <Findings findings={review.findings} />
      <AiSuggestions review={review} />
    </>
  );
}

function Gauge({ label, score, previous, large = false }: { label: string; score: number; previous: number | null; large?: boolean }) {
  const delta = previous === null ? null : score - previous;
  const style = { '--value': score, '--size': large ? '6.5rem' : '5rem', '--thickness': large ? '0.6rem' : '0.45rem' } as CSSProperties;
  return (
    <div className="flex flex-col items-center gap-1 text-center" data-testid={`gauge-${label}`}>
      <div className={`radial-progress ${scoreTone(score)} font-bold ${large ? 'text-2xl' : 'text-lg'}`} style={style} role="progressbar" aria-valuenow={score} aria-valuemin={0} aria-valuemax={100} aria-label={label}>
        {score}
      </div>
      <span className="text-sm font-medium">{label}</span>
      {delta !== null && <ScoreDelta delta={delta} />}
    </div>
  );
}

function ScoreGauges({ review }: { review: ReviewDetail }) {
  const { t, i18n } = useTranslation('page-reviewer');
  const titleId = useId();
  const scores = review.scores!;
  const previous = review.previous?.scores ?? null;
  return (
    <SectionCard
      titleId={titleId}
      title={t('detail.scores')}
      description={review.previous ? (
        <Link href={`/landing-page-reviewer/${review.previous.id}`} className="link link-hover">
          {t('detail.previous', { date: formatReviewDate(review.previous.createdAt, i18n.language) })}
        </Link>
      ) : t('detail.noPrevious')}
      testId="review-scores"
    >
      <div className="grid grid-cols-3 gap-4 sm:grid-cols-6">
        <Gauge label={t('categories.overall')} score={scores.overall} previous={previous?.overall ?? null} large />
        {REVIEW_CATEGORIES.map((category) => (
          <Gauge key={category} label={t(`categories.${category}`)} score={scores[category]} previous={previous?.[category] ?? null} />
        ))}
      </div>
    </SectionCard>
  );
}

function Measurements({ review }: { review: ReviewDetail }) {
  const { t, i18n } = useTranslation('page-reviewer');
  const titleId = useId();
  const metrics = review.metrics;
  if (!metrics) return null;
  const number = (value: number, digits = 0) => new Intl.NumberFormat(i18n.language, { maximumFractionDigits: digits }).format(value);
  const seconds = (ms: number | null) => (ms === null ? '–' : `${number(ms / 1000, 2)} s`);
  const items: [string, string][] = [
    [t('metrics.lcp'), seconds(metrics.lcpMs)],
    [t('metrics.fcp'), seconds(metrics.fcpMs)],
    [t('metrics.tbt'), metrics.tbtMs === null ? '–' : `${number(metrics.tbtMs)} ms`],
    [t('metrics.cls'), metrics.cls === null ? '–' : number(metrics.cls, 3)],
    [t('metrics.weight'), metrics.pageBytes === null ? '–' : `${number(metrics.pageBytes / 1024)} KB`],
    [t('metrics.requests'), metrics.requests === null ? '–' : number(metrics.requests)],
    [t('metrics.readability'), metrics.fleschReadingEase === null ? '–' : number(metrics.fleschReadingEase, 1)],
  ];
  return (
    <SectionCard titleId={titleId} title={t('detail.metrics')} testId="review-metrics">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
        {items.map(([label, value]) => (
          <div key={label} className="bg-base-200/60 rounded-box p-3">
            <dt className="text-base-content/70 text-xs">{label}</dt>
            <dd className="text-lg font-semibold tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
    </SectionCard>
  );
}

function Screenshots({ review }: { review: ReviewDetail }) {
  const { t } = useTranslation('page-reviewer');
  const titleId = useId();
  if (!review.screenshots.aboveFold && !review.screenshots.fullPage) return null;
  return (
    <SectionCard titleId={titleId} title={t('detail.screenshots')} testId="review-screenshots">
      <div className="flex flex-col gap-6 sm:flex-row">
        {review.screenshots.aboveFold && (
          <figure className="flex flex-col gap-2">
            <figcaption className="text-sm font-medium">{t('detail.aboveFold')}</figcaption>
            <img src={screenshotPath(review.id, 'above-fold')} alt={t('detail.screenshotAlt', { url: review.url })} className="border-base-content/15 w-56 rounded-lg border" loading="lazy" />
          </figure>
        )}
        {review.screenshots.fullPage && (
          <figure className="flex flex-col gap-2">
            <figcaption className="text-sm font-medium">{t('detail.fullPage')}</figcaption>
            <div className="border-base-content/15 max-h-[28rem] w-56 overflow-y-auto rounded-lg border print:max-h-none">
              <img src={screenshotPath(review.id, 'full-page')} alt={t('detail.screenshotAlt', { url: review.url })} className="w-full" loading="lazy" />
            </div>
          </figure>
        )}
      </div>
    </SectionCard>
  );
}

const SEVERITY_ORDER: Record<FindingSeverity, number> = { high: 0, medium: 1, low: 2, pass: 3 };

function Findings({ findings }: { findings: Finding[] }) {
  const { t } = useTranslation('page-reviewer');
  const titleId = useId();
  const filterId = useId();
  const [severity, setSeverity] = useState<FindingSeverity | 'all'>('all');
  const shown = findings.filter((finding) => severity === 'all' || finding.severity === severity);
  return (
    <SectionCard
      titleId={titleId}
      title={t('detail.findings')}
      testId="review-findings"
      actions={
        <label className="print-hidden flex items-center gap-2 text-sm" htmlFor={filterId}>
          {t('detail.filter')}
          <select id={filterId} className="select select-sm w-auto" value={severity} onChange={(event) => setSeverity(event.target.value as FindingSeverity | 'all')}>
            <option value="all">{t('severity.all')}</option>
            {FINDING_SEVERITIES.map((value) => (
              <option key={value} value={value}>
                {t(`severity.${value}`)} ({findings.filter((finding) => finding.severity === value).length})
              </option>
            ))}
          </select>
        </label>
      }
    >
      {shown.length === 0 && <p className="text-base-content/70">{t('detail.noFindings')}</p>}
      <div className="space-y-5">
        {REVIEW_CATEGORIES.map((category) => {
          const own = shown.filter((finding) => finding.category === category).sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
          if (own.length === 0) return null;
          return (
            <div key={category} data-testid={`findings-${category}`}>
              <h3 className="mb-2 font-semibold">{t(`categories.${category}`)}</h3>
              <ul className="space-y-2">
                {own.map((finding) => (
                  <li key={finding.code} className="border-base-content/10 rounded-box border p-3" data-testid={`finding-${finding.code}`} data-severity={finding.severity}>
                    <div className="flex flex-wrap items-center gap-2">
                      <span className={`badge badge-soft badge-sm ${SEVERITY_BADGE[finding.severity]}`}>{t(`severity.${finding.severity}`)}</span>
                      <span className="font-medium">{t(`findings.${finding.code}.title`)}</span>
                    </div>
                    <p className="mt-1 text-sm break-words">
                      <span className="text-base-content/70">{t('detail.evidence')}: </span>
                      {finding.evidence.element && <code className="bg-base-200 rounded px-1 text-xs">{finding.evidence.element}</code>} {finding.evidence.value ?? t('detail.none')}
                    </p>
                    {finding.severity !== 'pass' && (
                      <div className="mt-2 grid gap-2 text-sm md:grid-cols-2">
                        <p>
                          <span className="font-medium">{t('detail.why')}: </span>
                          {t(`findings.${finding.code}.why`)}
                        </p>
                        <p>
                          <span className="font-medium">{t('detail.fix')}: </span>
                          {t(`findings.${finding.code}.fix`)}
                        </p>
                      </div>
                    )}
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </div>
    </SectionCard>
  );
}

function AiSuggestions({ review }: { review: ReviewDetail }) {
  const { t } = useTranslation('page-reviewer');
  const titleId = useId();
  const suggestions = review.aiSuggestions;
  return (
    <SectionCard titleId={titleId} title={<span className="flex items-center gap-2"><SparklesIcon className="size-4" aria-hidden="true" />{t('detail.ai')}</span>} testId="review-ai">
      {suggestions ? (
        <dl className="space-y-3">
          <div>
            <dt className="text-base-content/70 text-sm">{t('detail.aiHeadline')}</dt>
            <dd className="font-medium">{suggestions.headline}</dd>
          </div>
          <div>
            <dt className="text-base-content/70 text-sm">{t('detail.aiCta')}</dt>
            <dd className="font-medium">{suggestions.cta}</dd>
          </div>
          <div>
            <dt className="text-base-content/70 text-sm">{t('detail.aiHypotheses')}</dt>
            <dd>
              <ul className="list-disc space-y-1 pl-5">
                {suggestions.hypotheses.map((hypothesis) => (
                  <li key={hypothesis}>{hypothesis}</li>
                ))}
              </ul>
            </dd>
          </div>
        </dl>
      ) : (
        <p className="text-base-content/70">{review.aiConfigured ? t('detail.aiNoAnswer') : t('detail.aiNotConfigured')}</p>
      )}
    </SectionCard>
  );
}
