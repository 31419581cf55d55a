import { RefreshCwIcon, ScanSearchIcon, Trash2Icon } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { REVIEW_CATEGORIES, startReviewInput, type ReviewCampaign, type ReviewSummary } from '../../../shared/page-reviewer.ts';
import { ConfirmDialog, useConfirmation } from '../../components/confirm-dialog.tsx';
import { DataError, DataLoading, useViewOnly } from '../../components/data-page.tsx';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatReviewDate, isPending, ReviewProgress, ReviewTarget, ScoreDelta, scoreTone, useCampaignLabel } from './review-parts.tsx';

/** /landing-page-reviewer: start a review of a URL, and the store's reviews with their scores over time. */
export function PageReviewerPage() {
  const { t } = useTranslation('page-reviewer');
  const viewOnly = useViewOnly();
  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <PageHeader title={t('title')} description={t('description')} />
      {!viewOnly && <StartReviewForm />}
      <ReviewHistory viewOnly={viewOnly} />
    </div>
  );
}

function StartReviewForm() {
  const { t } = useTranslation('page-reviewer');
  const campaignLabel = useCampaignLabel();
  const [, navigate] = useLocation();
  const [url, setUrl] = useState('');
  const [productId, setProductId] = useState('');
  const [campaignKey, setCampaignKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const productFieldId = useId();
  const campaignFieldId = useId();
  const products = trpc.pageReviewer.products.useQuery();
  const campaigns = trpc.pageReviewer.campaigns.useQuery();
  const errorId = useId();
  const utils = trpc.useUtils();
  const start = trpc.pageReviewer.start.useMutation({
    onSuccess: async ({ id }) => {
      await utils.pageReviewer.list.invalidate();
      navigate(`/landing-page-reviewer/${id}`);
    },
    onError: (failure) => setError(serverMessage(failure) ?? t('form.failed')),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const campaign = campaigns.data?.items.find((item) => campaignOptionKey(item) === campaignKey);
    const parsed = startReviewInput.safeParse({
      url,
      ...(productId ? { productId: Number(productId) } : {}),
      ...(campaign ? { campaign: { platform: campaign.platform, id: campaign.id } } : {}),
    });
    if (!parsed.success) {
      setError(t('form.invalidUrl'));
      return;
    }
    setError(null);
    start.mutate(parsed.data);
  };
  return (
    <form className="card bg-base-100 border-base-content/10 border shadow-xs" onSubmit={submit} noValidate>
      <div className="card-body gap-3 p-4 sm:p-6">
        <label htmlFor={inputId} className="font-semibold">
          {t('form.label')}
        </label>
        <div className="flex flex-col gap-2 sm:flex-row">
          <input
            id={inputId}
            type="url"
            inputMode="url"
            autoComplete="url"
            className={`input w-full ${error ? 'input-error' : ''}`}
            placeholder={t('form.placeholder')}
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
          />
          <button type="submit" className="btn btn-primary shrink-0" disabled={start.isPending} aria-busy={start.isPending}>
            {start.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : <ScanSearchIcon className="size-4" aria-hidden="true" />}
            {start.isPending ? t('form.starting') : t('form.submit')}
          </button>
        </div>
        {((products.data?.items.length ?? 0) > 0 || (campaigns.data?.items.length ?? 0) > 0) && (
          <div className="grid gap-3 sm:grid-cols-2">
            {(products.data?.items.length ?? 0) > 0 && (
              <div className="flex flex-col gap-1">
                <label htmlFor={productFieldId} className="text-sm">
                  {t('form.product')}
                </label>
                <select id={productFieldId} className="select w-full" value={productId} onChange={(event) => setProductId(event.target.value)}>
                  <option value="">{t('form.noProduct')}</option>
                  {products.data!.items.map((product) => (
                    <option key={product.id} value={product.id}>
                      {product.title}
                    </option>
                  ))}
                </select>
              </div>
            )}
            {(campaigns.data?.items.length ?? 0) > 0 && (
              <div className="flex flex-col gap-1">
                <label htmlFor={campaignFieldId} className="text-sm">
                  {t('form.campaign')}
                </label>
                <select id={campaignFieldId} className="select w-full" value={campaignKey} onChange={(event) => setCampaignKey(event.target.value)}>
                  <option value="">{t('form.noCampaign')}</option>
                  {campaigns.data!.items.map((campaign) => (
                    <option key={campaignOptionKey(campaign)} value={campaignOptionKey(campaign)}>
                      {campaignLabel(campaign)}
                    </option>
                  ))}
                </select>
              </div>
            )}
          </div>
        )}
        {error ? (
          <p id={errorId} className="text-error text-sm" role="alert">
            {error}
          </p>
        ) : (
          <p className="text-base-content/70 text-sm">{t('form.hint')}</p>
        )}
      </div>
    </form>
  );
}

function ReviewHistory({ viewOnly }: { viewOnly: boolean }) {
  const { t, i18n } = useTranslation('page-reviewer');
  const titleId = useId();
  const [, navigate] = useLocation();
  const utils = trpc.useUtils();
  const list = trpc.pageReviewer.list.useQuery(undefined, {
    refetchInterval: (query) => (query.state.data?.items.some(isPending) ? 1500 : false),
  });
  const confirmation = useConfirmation<ReviewSummary>();
  const remove = trpc.pageReviewer.remove.useMutation({
    onSuccess: async () => {
      confirmation.close();
      toast({ title: t('history.deleted'), variant: 'success' });
      await utils.pageReviewer.list.invalidate();
    },
    onError: (failure) => toast({ title: t('history.deleteFailed'), description: serverMessage(failure) ?? undefined, variant: 'destructive' }),
  });
  const rerun = trpc.pageReviewer.rerun.useMutation({
    onSuccess: ({ id }) => navigate(`/landing-page-reviewer/${id}`),
    onError: (failure) => toast({ title: t('history.rerunFailed'), description: serverMessage(failure) ?? undefined, variant: 'destructive' }),
  });

  let content;
  if (list.isError) content = <DataError error={list.error} onRetry={() => void list.refetch()} />;
  else if (list.isPending) content = <DataLoading label={t('history.title')} cards={0} gridClassName="hidden" chartClassName="h-40" />;
  else if (list.data.items.length === 0) content = <EmptyState icon={ScanSearchIcon} title={t('history.emptyTitle')} body={t('history.emptyBody')} headingLevel={3} />;
  else {
    content = (
      <div className="overflow-x-auto">
        <table className="table-sm table" data-testid="review-history">
          <thead>
            <tr>
              <th className="hidden sm:table-cell">{t('history.date')}</th>
              <th>{t('history.page')}</th>
              <th className="hidden sm:table-cell">{t('history.status')}</th>
              <th className="text-right">{t('categories.overall')}</th>
              {REVIEW_CATEGORIES.map((category) => (
                <th key={category} className="hidden text-right lg:table-cell">
                  {t(`categories.${category}`)}
                </th>
              ))}
              <th>
                <span className="sr-only">{t('history.open')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((review) => (
              <tr key={review.id} data-review-id={review.id}>
                <td className="hidden whitespace-nowrap sm:table-cell">{formatReviewDate(review.createdAt, i18n.language)}</td>
                <td className="max-w-36 sm:max-w-72" title={review.url}>
                  <Link href={`/landing-page-reviewer/${review.id}`} className="link link-hover block truncate">
                    {review.url.replace(/^https?:\/\//, '')}
                  </Link>
                  <ReviewTarget review={review} className="text-base-content/70 block truncate text-xs" />
                  <span className="text-base-content/70 text-xs whitespace-nowrap sm:hidden">{formatReviewDate(review.createdAt, i18n.language)}</span>
                  {review.status !== 'done' && (
                    <div className="mt-1 sm:hidden">
                      <ReviewProgress review={review} />
                    </div>
                  )}
                </td>
                <td className="hidden sm:table-cell">
                  <ReviewProgress review={review} />
                </td>
                <td className="text-right whitespace-nowrap tabular-nums">
                  <span className={`font-semibold ${review.scores ? scoreTone(review.scores.overall) : ''}`}>{review.scores?.overall ?? '–'}</span>
                  <ScoreChange review={review} items={list.data.items} />
                </td>
                {REVIEW_CATEGORIES.map((category) => (
                  <td key={category} className={`hidden text-right tabular-nums lg:table-cell ${review.scores ? scoreTone(review.scores[category]) : ''}`}>
                    {review.scores?.[category] ?? '–'}
                  </td>
                ))}
                <td>
                  <div className="flex justify-end gap-1">
                    <Link href={`/landing-page-reviewer/${review.id}`} className="btn btn-ghost btn-xs hidden sm:inline-flex">
                      {t('history.open')}
                    </Link>
                    {!viewOnly && (
                      <>
                        <button type="button" className="btn btn-ghost btn-xs" onClick={() => rerun.mutate({ id: review.id })} disabled={rerun.isPending} aria-label={`${t('history.rerun')}: ${review.url}`} title={t('history.rerun')}>
                          <RefreshCwIcon className="size-4" aria-hidden="true" />
                        </button>
                        <button type="button" className="btn btn-ghost btn-xs text-error" onClick={() => confirmation.ask(review)} aria-label={`${t('history.delete')}: ${review.url}`} title={t('history.delete')}>
                          <Trash2Icon className="size-4" aria-hidden="true" />
                        </button>
                      </>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  return (
    <SectionCard titleId={titleId} title={t('history.title')} testId="review-history-card">
      {content}
      <ConfirmDialog
        open={confirmation.open}
        title={t('history.deleteTitle')}
        body={confirmation.target ? t('history.deleteBody', { url: confirmation.target.url, date: formatReviewDate(confirmation.target.createdAt, i18n.language) }) : ''}
        confirmLabel={t('history.delete')}
        cancelLabel={t('history.cancel')}
        pending={remove.isPending}
        onConfirm={() => confirmation.target && remove.mutate({ id: confirmation.target.id })}
        onClose={confirmation.close}
      />
    </SectionCard>
  );
}

const campaignOptionKey = (campaign: ReviewCampaign) => `${campaign.platform}:${campaign.id}`;

/** The overall score's change since the previous finished review of the same address (the history is newest first). */
function ScoreChange({ review, items }: { review: ReviewSummary; items: ReviewSummary[] }) {
  if (!review.scores) return null;
  const previous = items.slice(items.indexOf(review) + 1).find((item) => item.url === review.url && item.scores);
  return previous?.scores ? <ScoreDelta delta={review.scores.overall - previous.scores.overall} className="ml-1" /> : null;
}
