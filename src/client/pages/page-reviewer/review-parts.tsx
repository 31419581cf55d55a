import { useTranslation } from 'react-i18next';
import type { ReviewCampaign, ReviewSummary } from '../../../shared/page-reviewer.ts';

// Pieces both reviewer screens show: a review's status or progress, a score's colour, a date.

export function scoreTone(score: number): string {
  if (score >= 90) return 'text-success';
  if (score >= 50) return 'text-warning';
  return 'text-error';
}

export function formatReviewDate(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/** Whether the review's job has yet to end (its screens poll meanwhile). */
export const isPending = (review: Pick<ReviewSummary, 'status'>) => review.status === 'queued' || review.status === 'running';

export function ReviewProgress({ review, wide = false }: { review: ReviewSummary; wide?: boolean }) {
  const { t } = useTranslation('page-reviewer');
  if (isPending(review)) {
    return (
      <div className={wide ? 'space-y-2' : 'min-w-32 space-y-1'} data-testid="review-progress" data-state={review.status}>
        <progress className="progress progress-primary w-full" value={review.progress} max={100} aria-label={t(`steps.${review.step}`)} />
        <p className={wide ? 'text-sm' : 'text-base-content/70 text-xs'}>
          {t(`steps.${review.step}`)} {review.progress}%
        </p>
      </div>
    );
  }
  const tone = review.status === 'done' ? 'badge-success' : 'badge-error';
  return <span className={`badge badge-soft ${tone}`}>{t(`status.${review.status}`)}</span>;
}

/** A score's change since the previous review of the same address: +5 in green, -3 in red, ±0. */
export function ScoreDelta({ delta, className = '' }: { delta: number; className?: string }) {
  const { t } = useTranslation('page-reviewer');
  const text = delta > 0 ? `+${delta}` : delta === 0 ? '±0' : String(delta);
  const tone = delta > 0 ? 'text-success' : delta < 0 ? 'text-error' : 'text-base-content/60';
  return (
    <span className={`text-xs tabular-nums ${tone} ${className}`} title={t('detail.change', { delta: text })}>
      {text}
    </span>
  );
}

/** A campaign as the pickers and reviews name it: "Winter sale (Google Ads)". */
export function useCampaignLabel(): (campaign: ReviewCampaign) => string {
  const { t } = useTranslation('marketing');
  return (campaign) => `${campaign.name} (${t(`platforms.${campaign.platform}`)})`;
}

/** The product and campaign a review was started for, one line each (nothing when it names neither). */
export function ReviewTarget({ review, className }: { review: Pick<ReviewSummary, 'productTitle' | 'campaign'>; className: string }) {
  const { t } = useTranslation('page-reviewer');
  const campaignLabel = useCampaignLabel();
  return (
    <>
      {review.productTitle && <span className={className}>{t('detail.product', { title: review.productTitle })}</span>}
      {review.campaign && <span className={className}>{t('detail.campaign', { name: campaignLabel(review.campaign) })}</span>}
    </>
  );
}
