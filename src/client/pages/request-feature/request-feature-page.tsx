import { keepPreviousData } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { LightbulbIcon } from 'lucide-react';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf, serverMessage, useSession } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import {
  FEATURE_DESCRIPTION_MAX_LENGTH,
  FEATURE_DESCRIPTION_MIN_LENGTH,
  FEATURE_REQUEST_SORTS,
  FEATURE_REQUEST_STATUSES,
  FEATURE_TITLE_MAX_LENGTH,
  FEATURE_TITLE_MIN_LENGTH,
  type FeatureRequestDto,
  type FeatureRequestSort,
  type FeatureRequestStatus,
} from '../../../shared/feature-requests.ts';
import { TextAreaField, TextField } from '../../components/form-fields.tsx';
import { SubmitButton, useFieldErrors, type FieldErrors } from '../../components/form-state.tsx';
import { formattingLocale } from '../legal/date-locale.ts';
import { useDates } from '../admin/ui.tsx';

const STATUS_BADGE: Record<FeatureRequestStatus, string> = {
  open: 'badge-ghost',
  planned: 'badge-info',
  in_progress: 'badge-warning',
  done: 'badge-success',
  declined: 'badge-error',
};

function isStatus(value: string | null): value is FeatureRequestStatus {
  return (FEATURE_REQUEST_STATUSES as readonly string[]).includes(value ?? '');
}

function ArrowUpIcon() {
  return (
    <svg viewBox="0 0 24 24" width="1.25em" height="1.25em" fill="none" stroke="currentColor" strokeWidth={2.5} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="m18 15-6-6-6 6" />
    </svg>
  );
}

function SuggestFeatureForm() {
  const { t, i18n } = useTranslation('features');
  const maxDescription = FEATURE_DESCRIPTION_MAX_LENGTH.toLocaleString(formattingLocale(i18n.resolvedLanguage));
  const utils = trpc.useUtils();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const { setFieldErrors: setErrors, bind } = useFieldErrors();
  const form = useRef<HTMLFormElement>(null);
  const create = trpc.featureRequests.create.useMutation({
    onSuccess: () => utils.featureRequests.list.invalidate(),
  });

  function validate() {
    const found: FieldErrors = {};
    const trimmedTitle = title.trim();
    const trimmedDescription = description.trim();
    if (trimmedTitle.length < FEATURE_TITLE_MIN_LENGTH) found.title = t('form.validation.titleTooShort', { min: FEATURE_TITLE_MIN_LENGTH });
    else if (trimmedTitle.length > FEATURE_TITLE_MAX_LENGTH) found.title = t('form.validation.titleTooLong', { max: FEATURE_TITLE_MAX_LENGTH });
    if (trimmedDescription.length < FEATURE_DESCRIPTION_MIN_LENGTH) {
      found.description = t('form.validation.descriptionTooShort', { min: FEATURE_DESCRIPTION_MIN_LENGTH });
    } else if (trimmedDescription.length > FEATURE_DESCRIPTION_MAX_LENGTH) {
      found.description = t('form.validation.descriptionTooLong', { max: maxDescription });
    }
    return found;
  }

  function focusFirst(found: FieldErrors) {
    const first = (['title', 'description'] as const).find((field) => found[field]);
    if (first) form.current?.querySelector<HTMLElement>(`#feature-${first}`)?.focus();
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (create.isPending) return;
    const found = validate();
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirst(found);
      return;
    }
    create.mutate(
      { title: title.trim(), description: description.trim() },
      {
        onSuccess: () => {
          setTitle('');
          setDescription('');
          toast({ title: t('form.successTitle'), description: t('form.successDescription'), variant: 'success' });
        },
        onError: (error) => {
          const byField = fieldErrorsOf(error);
          if (Object.keys(byField).length > 0) {
            setErrors(byField);
            focusFirst(byField);
            return;
          }
          toast({ title: t('form.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' });
        },
      },
    );
  }

  const pending = create.isPending;
  return (
    <section aria-labelledby="suggest-title" className="card bg-base-100 border-base-content/10 border shadow-sm">
      <div className="card-body gap-4 p-5 sm:p-6">
        <div className="flex items-start gap-3">
          <span className="bg-primary/10 text-primary grid size-10 shrink-0 place-items-center rounded-xl text-xl" aria-hidden="true">
            <LightbulbIcon />
          </span>
          <div>
            <h2 id="suggest-title" className="text-lg font-semibold">
              {t('form.title')}
            </h2>
            <p className="text-base-content/70 text-sm">{t('form.description')}</p>
          </div>
        </div>
        <form ref={form} noValidate onSubmit={onSubmit} className="flex flex-col gap-3" aria-busy={pending}>
          <TextField
            id="feature-title"
            label={t('form.titleLabel')}
            value={title}
            {...bind('title', setTitle)}
            placeholder={t('form.titlePlaceholder')}
            aside={t('form.counter', { length: title.trim().length, max: FEATURE_TITLE_MAX_LENGTH })}
            maxLength={FEATURE_TITLE_MAX_LENGTH + 20}
            disabled={pending}
            required
          />
          <TextAreaField
            id="feature-description"
            label={t('form.descriptionLabel')}
            value={description}
            {...bind('description', setDescription)}
            placeholder={t('form.descriptionPlaceholder')}
            aside={t('form.counter', { length: description.trim().length, max: maxDescription })}
            rows={5}
            maxLength={FEATURE_DESCRIPTION_MAX_LENGTH + 200}
            disabled={pending}
            required
          />
          <SubmitButton pending={pending} label={t('form.submit')} pendingLabel={t('form.submitting')} className="mt-1 w-full" />
        </form>
      </div>
    </section>
  );
}

function FeatureRequestCard({ request, canSetStatus }: { request: FeatureRequestDto; canSetStatus: boolean }) {
  const { t } = useTranslation('features');
  const utils = trpc.useUtils();
  const refresh = () => utils.featureRequests.list.invalidate();
  const vote = trpc.featureRequests.vote.useMutation({ onSettled: refresh });
  const unvote = trpc.featureRequests.unvote.useMutation({ onSettled: refresh });
  const setStatus = trpc.featureRequests.setStatus.useMutation({ onSettled: refresh });
  const busy = vote.isPending || unvote.isPending;
  const date = useDates().date(request.createdAt);

  function toggleVote() {
    const mutation = request.hasVoted ? unvote : vote;
    mutation.mutate(
      { id: request.id },
      { onError: (error) => toast({ title: t('item.voteFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }) },
    );
  }

  return (
    <li className="bg-base-100 border-base-content/10 rounded-box flex gap-3 border p-4 shadow-sm sm:gap-4 sm:p-5" data-testid="feature-request">
      <button
        type="button"
        onClick={toggleVote}
        disabled={busy}
        aria-pressed={request.hasVoted}
        className={`btn h-auto w-14 shrink-0 flex-col gap-0 self-start px-0 py-2 ${request.hasVoted ? 'btn-primary' : 'btn-outline border-base-content/20'}`}
      >
        {busy ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <ArrowUpIcon />}
        <span className="sr-only">{t('item.voteFor', { title: request.title })} (</span>
        <span className="text-base font-semibold tabular-nums" data-testid="vote-count">
          {request.votes}
        </span>
        <span className="sr-only"> {t('item.votesUnit', { count: request.votes })})</span>
      </button>
      <div className="min-w-0 flex-1 space-y-1.5">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <h3 className="font-semibold wrap-break-word">{request.title}</h3>
          <span className={`badge badge-sm ${STATUS_BADGE[request.status]}`}>{t(`status.${request.status}`)}</span>
          {request.isMine && <span className="badge badge-sm badge-outline border-primary text-base-content">{t('item.yours')}</span>}
        </div>
        <p className="text-base-content/80 text-sm leading-relaxed wrap-break-word whitespace-pre-line">{request.description}</p>
        <div className="text-base-content/70 flex flex-wrap items-center gap-x-3 gap-y-2 pt-1 text-xs">
          <span>{t('item.by', { author: request.author })}</span>
          <span aria-hidden="true">·</span>
          <time dateTime={request.createdAt}>{date}</time>
          {canSetStatus && (
            <select
              className="select select-xs ml-auto w-auto"
              aria-label={t('item.statusLabel', { title: request.title })}
              value={request.status}
              disabled={setStatus.isPending}
              onChange={(event) => {
                const status = event.target.value as FeatureRequestStatus;
                setStatus.mutate(
                  { id: request.id, status },
                  {
                    onSuccess: () => toast({ title: t('item.statusUpdated', { status: t(`status.${status}`) }), variant: 'success' }),
                    onError: (error) =>
                      toast({ title: t('item.statusFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
                  },
                );
              }}
            >
              {FEATURE_REQUEST_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {t(`status.${status}`)}
                </option>
              ))}
            </select>
          )}
        </div>
      </div>
    </li>
  );
}

export function RequestFeaturePage() {
  const { t } = useTranslation('features');
  const search = useSearch();
  const [, navigate] = useLocation();
  const session = useSession();
  const params = new URLSearchParams(search);
  const sort: FeatureRequestSort = params.get('sort') === 'new' ? 'new' : 'top';
  const statusParam = params.get('status');
  const status = isStatus(statusParam) ? statusParam : undefined;
  const list = trpc.featureRequests.list.useQuery({ sort, ...(status ? { status } : {}) }, { placeholderData: keepPreviousData });
  const isAdmin = session.status === 'signedIn' && session.user.isAdmin;

  function setView(next: { sort?: FeatureRequestSort; status?: FeatureRequestStatus | null }) {
    const nextParams = new URLSearchParams();
    const nextSort = next.sort ?? sort;
    const nextStatus = next.status === undefined ? status : next.status;
    if (nextSort !== 'top') nextParams.set('sort', nextSort);
    if (nextStatus) nextParams.set('status', nextStatus);
    const query = nextParams.toString();
    navigate(query ? `/request-feature?${query}` : '/request-feature', { replace: true });
  }

  const requests = list.data ?? [];
  return (
    <div className="mx-auto w-full max-w-6xl space-y-6">
      <header>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{t('title')}</h1>
        <p className="text-base-content/70 mt-1">{t('subtitle')}</p>
      </header>

      <div className="grid items-start gap-6 lg:grid-cols-[22rem_minmax(0,1fr)]">
        <div className="lg:sticky lg:top-24">
          <SuggestFeatureForm />
        </div>

        <section aria-labelledby="requests-title" className="min-w-0 space-y-4">
          <div className="flex flex-wrap items-center gap-3">
            <h2 id="requests-title" className="mr-auto text-lg font-semibold">
              {t('list.title')}
              {list.data && <span className="text-base-content/70 ml-2 text-sm font-normal">{t('list.count', { count: requests.length })}</span>}
            </h2>
            <div className="join" role="group" aria-label={t('list.sortLabel')}>
              {FEATURE_REQUEST_SORTS.map((option) => (
                <button
                  key={option}
                  type="button"
                  className={`btn btn-sm join-item ${sort === option ? 'btn-primary' : ''}`}
                  aria-pressed={sort === option}
                  onClick={() => setView({ sort: option })}
                >
                  {t(`list.sort.${option}`)}
                </button>
              ))}
            </div>
            <select
              className="select select-sm w-auto"
              aria-label={t('list.statusFilter')}
              value={status ?? ''}
              onChange={(event) => setView({ status: isStatus(event.target.value) ? event.target.value : null })}
            >
              <option value="">{t('list.allStatuses')}</option>
              {FEATURE_REQUEST_STATUSES.map((option) => (
                <option key={option} value={option}>
                  {t(`status.${option}`)}
                </option>
              ))}
            </select>
          </div>

          {list.isPending ? (
            <div className="flex items-center gap-3 py-10" role="status">
              <span className="loading loading-spinner text-primary" aria-hidden="true" />
              <span className="text-base-content/70 text-sm">{t('list.loading')}</span>
            </div>
          ) : list.isError && !list.data ? (
            <div role="alert" className="alert alert-error alert-soft">
              <span>{serverMessage(list.error) ?? t('list.loadFailed')}</span>
              <button type="button" className="btn btn-sm" onClick={() => void list.refetch()}>
                {t('list.retry')}
              </button>
            </div>
          ) : requests.length === 0 ? (
            <div className="bg-base-100 border-base-content/20 rounded-box border border-dashed px-6 py-12 text-center">
              <LightbulbIcon className="text-primary mx-auto text-3xl" />
              <h3 className="mt-3 font-semibold">{status ? t('list.emptyFilteredTitle') : t('list.emptyTitle')}</h3>
              <p className="text-base-content/70 mx-auto mt-1 max-w-sm text-sm">{status ? t('list.emptyFilteredBody') : t('list.emptyBody')}</p>
              {status && (
                <button type="button" className="btn btn-sm mt-4" onClick={() => setView({ status: null })}>
                  {t('list.showAll')}
                </button>
              )}
            </div>
          ) : (
            <ul className={`space-y-3 transition-opacity ${list.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={list.isFetching}>
              {requests.map((request) => (
                <FeatureRequestCard key={request.id} request={request} canSetStatus={isAdmin} />
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
