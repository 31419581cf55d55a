import { EyeIcon, EyeOffIcon, ExternalLinkIcon, HeartIcon, MessageCircleIcon, PlugIcon, RefreshCwIcon, ReplyIcon, Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import {
  COMMENT_CATEGORIES, COMMENT_PLATFORMS, SENTIMENT_LABELS, fillTemplate, type CommentAction, type CommentFilters, type CommentRow,
} from '../../../shared/meta-comments.ts';
import { DataError, DataPage } from '../../components/data-page.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { useAccess } from '../../lib/use-access.ts';
import { DataScreenPage } from '../data-screens/data-screen-page.tsx';

const notify = (variant: 'success' | 'error', title: string) => toast({ title, variant: variant === 'error' ? 'destructive' : 'success' });

/** New comments arrive by webhook; the list asks again this often while the page is open. */
const REFRESH_MS = 3000;

/** Admins in their own view get the tool; everyone else keeps the 'Coming Soon' screen (spec section 2). */
export function MetaCommentsRoute() {
  const access = useAccess();
  if (!access.adminToolsAvailable) return <DataScreenPage screen="metaComments" />;
  return <MetaCommentsPage />;
}

function MetaCommentsPage() {
  const { t } = useTranslation('meta-comments');
  const status = trpc.metaComments.status.useQuery(undefined, { refetchInterval: REFRESH_MS });
  return (
    <DataPage title={t('page.title')} description={t('page.description')} showDateRange={false}>
      {status.isPending ? (
        <div className="flex justify-center py-16" data-state="loading"><span className="loading loading-spinner loading-lg" aria-label={t('page.loading')} /></div>
      ) : status.isError ? (
        <DataError error={status.error} onRetry={() => void status.refetch()} />
      ) : !status.data.metaConnected ? (
        <EmptyState
          icon={PlugIcon}
          title={t('notConnected.title')}
          body={t('notConnected.body')}
          actions={<Link href="/integrations" className="btn btn-primary mt-6">{t('notConnected.action')}</Link>}
        />
      ) : (
        <div className="space-y-4">
          <SyncPanel />
          <CommentsSection />
          <div className="grid gap-4 lg:grid-cols-2">
            <RulesPanel />
            <TemplatesPanel />
          </div>
        </div>
      )}
    </DataPage>
  );
}

function SyncPanel() {
  const { t, i18n } = useTranslation('meta-comments');
  const utils = trpc.useUtils();
  const status = trpc.metaComments.status.useQuery(undefined, { refetchInterval: REFRESH_MS });
  const sync = trpc.metaComments.syncNow.useMutation({
    onSuccess: (data) => {
      utils.metaComments.status.setData(undefined, data);
      void utils.metaComments.list.invalidate();
      notify('success', t('sync.done', { count: data.comments }));
    },
    onError: (error) => {
      void utils.metaComments.status.invalidate();
      notify('error', serverMessage(error) ?? t('sync.failed'));
    },
  });
  const state = status.data!;
  return (
    <section className="card bg-base-100 border-base-300 border" data-testid="sync-panel">
      <div className="card-body flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between">
        <div className="text-sm">
          <p data-testid="last-sync">
            {state.lastSyncAt ? t('sync.last', { when: new Date(state.lastSyncAt).toLocaleString(i18n.language) }) : t('sync.never')}
          </p>
          {state.lastSyncError && (
            <p className="text-error mt-1" role="alert" data-testid="sync-error">
              {state.lastSyncError}{' '}
              {state.reconnectNeeded && <Link href="/integrations" className="link">{t('sync.reconnect')}</Link>}
            </p>
          )}
        </div>
        <button type="button" className="btn btn-primary btn-sm gap-2" onClick={() => sync.mutate({})} disabled={sync.isPending}>
          <RefreshCwIcon className={sync.isPending ? 'animate-spin' : ''} aria-hidden="true" />
          {t('sync.now')}
        </button>
      </div>
    </section>
  );
}

type Filters = Omit<CommentFilters, 'limit'>;

function CommentsSection() {
  const { t } = useTranslation('meta-comments');
  const [filters, setFilters] = useState<Filters>({});
  const [selected, setSelected] = useState<string[]>([]);
  const [replyingTo, setReplyingTo] = useState<CommentRow | null>(null);
  const utils = trpc.useUtils();
  const list = trpc.metaComments.list.useQuery(filters, { refetchInterval: REFRESH_MS });
  const act = trpc.metaComments.act.useMutation({
    onSuccess: (result) => {
      void utils.metaComments.list.invalidate();
      setSelected([]);
      if (result.failed.length > 0) notify('error', result.failed[0]!.message);
      else notify('success', t('actions.done', { count: result.done.length }));
    },
    onError: (error) => notify('error', serverMessage(error) ?? t('actions.failed')),
  });
  const run = (commentIds: string[], action: CommentAction) => act.mutate({ commentIds, action });
  const set = (patch: Filters) => setFilters((current) => ({ ...current, ...patch }));
  const rows = list.data?.comments ?? [];
  const allSelected = rows.length > 0 && rows.every((row) => selected.includes(row.commentId));

  return (
    <section className="card bg-base-100 border-base-300 border" data-testid="comments-section">
      <div className="card-body gap-3 p-4">
        {(list.data?.complaintsToSee ?? 0) > 0 && (
          <div role="status" className="alert alert-warning alert-soft" data-testid="complaints-alert">{t('complaints', { count: list.data!.complaintsToSee })}</div>
        )}
        <div className="grid grid-cols-2 gap-2 md:grid-cols-3 xl:grid-cols-6">
          <input type="search" className="input input-sm col-span-2 w-full md:col-span-3 xl:col-span-1" placeholder={t('filters.search')} aria-label={t('filters.search')} value={filters.search ?? ''} onChange={(event) => set({ search: event.target.value || undefined })} />
          <FilterSelect label={t('filters.platform')} value={filters.platform} options={COMMENT_PLATFORMS.map((value) => [value, t(`platform.${value}`)])} onChange={(value) => set({ platform: value as Filters['platform'] })} />
          <FilterSelect label={t('filters.sentiment')} value={filters.sentiment} options={SENTIMENT_LABELS.map((value) => [value, t(`sentiment.${value}`)])} onChange={(value) => set({ sentiment: value as Filters['sentiment'] })} />
          <FilterSelect label={t('filters.category')} value={filters.category} options={COMMENT_CATEGORIES.map((value) => [value, t(`category.${value}`)])} onChange={(value) => set({ category: value as Filters['category'] })} />
          <FilterSelect label={t('filters.hidden')} value={filters.hidden === undefined ? undefined : String(filters.hidden)} options={[['false', t('filters.visibleOnly')], ['true', t('filters.hiddenOnly')]]} onChange={(value) => set({ hidden: value === undefined ? undefined : value === 'true' })} />
          <FilterSelect label={t('filters.replied')} value={filters.replied === undefined ? undefined : String(filters.replied)} options={[['false', t('filters.notReplied')], ['true', t('filters.repliedOnly')]]} onChange={(value) => set({ replied: value === undefined ? undefined : value === 'true' })} />
        </div>

        <div className="flex flex-wrap items-center gap-2" data-testid="bulk-actions">
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" className="checkbox checkbox-sm" checked={allSelected} onChange={() => setSelected(allSelected ? [] : rows.map((row) => row.commentId))} aria-label={t('bulk.selectAll')} />
            {t('bulk.selected', { count: selected.length })}
          </label>
          {(['hide', 'unhide', 'like', 'delete'] as const).map((action) => (
            <button key={action} type="button" className="btn btn-xs btn-outline" disabled={selected.length === 0 || act.isPending} onClick={() => run(selected, action)}>
              {t(`actions.${action}`)}
            </button>
          ))}
        </div>

        {list.isPending ? (
          <div className="flex justify-center py-10" data-state="loading"><span className="loading loading-spinner" aria-label={t('page.loading')} /></div>
        ) : list.isError ? (
          <DataError error={list.error} onRetry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <p className="text-base-content/70 py-10 text-center" data-testid="no-comments">{t('empty')}</p>
        ) : (
          <ul className="divide-base-300 divide-y" data-testid="comment-list">
            {rows.map((row) => (
              <CommentItem
                key={row.commentId}
                row={row}
                selected={selected.includes(row.commentId)}
                onSelect={(on) => setSelected((current) => (on ? [...current, row.commentId] : current.filter((id) => id !== row.commentId)))}
                onAction={(action) => run([row.commentId], action)}
                onReply={() => setReplyingTo(row)}
                busy={act.isPending}
              />
            ))}
          </ul>
        )}
      </div>
      {replyingTo && <ReplyDialog row={replyingTo} onClose={() => setReplyingTo(null)} />}
    </section>
  );
}

function FilterSelect({ label, value, options, onChange }: { label: string; value: string | undefined; options: [string, string][]; onChange: (value: string | undefined) => void }) {
  const { t } = useTranslation('meta-comments');
  return (
    <select className="select select-sm w-full" aria-label={label} value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
      <option value="">{`${label}: ${t('filters.all')}`}</option>
      {options.map(([key, text]) => <option key={key} value={key}>{text}</option>)}
    </select>
  );
}

const SENTIMENT_BADGE = { positive: 'badge-success', neutral: 'badge-ghost', negative: 'badge-error' } as const;

function CommentItem({ row, selected, onSelect, onAction, onReply, busy }: { row: CommentRow; selected: boolean; onSelect: (on: boolean) => void; onAction: (action: CommentAction) => void; onReply: () => void; busy: boolean }) {
  const { t, i18n } = useTranslation('meta-comments');
  return (
    <li className="flex gap-3 py-3" data-testid="comment-row" data-comment-id={row.commentId} data-hidden={row.hidden} data-replied={row.replied}>
      <input type="checkbox" className="checkbox checkbox-sm mt-1" checked={selected} onChange={(event) => onSelect(event.target.checked)} aria-label={t('bulk.select', { name: row.authorName })} />
      <div className="min-w-0 flex-1 space-y-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
          <span className="font-semibold">{row.authorName || t('unknownAuthor')}</span>
          <span className="text-base-content/60">{new Date(row.createdTime).toLocaleString(i18n.language)}</span>
          <span className="badge badge-sm badge-outline">{t(`platform.${row.platform}`)}</span>
          {row.hidden && <span className="badge badge-sm badge-warning" data-testid="hidden-badge">{t('state.hidden')}</span>}
          {row.replied && <span className="badge badge-sm badge-info" data-testid="replied-badge">{t('state.replied')}</span>}
        </div>
        <p className={`break-words ${row.hidden ? 'text-base-content/60' : ''}`}>{row.message}</p>
        <div className="flex flex-wrap items-center gap-1 text-xs">
          <span className={`badge badge-sm ${SENTIMENT_BADGE[row.sentimentLabel]}`}>{t(`sentiment.${row.sentimentLabel}`)}</span>
          <span className="badge badge-sm badge-soft">{t(`category.${row.category}`)}</span>
          <span className="badge badge-sm badge-ghost uppercase">{row.language}</span>
          <a href={row.postLink ?? undefined} target="_blank" rel="noreferrer" className="link link-hover text-base-content/70 inline-flex min-w-0 items-center gap-1">
            <ExternalLinkIcon className="size-3 shrink-0" aria-hidden="true" />
            <span className="truncate">{row.adId ? t('post.ad', { text: row.postText }) : t('post.post', { text: row.postText || row.postId })}</span>
          </a>
        </div>
        <div className="flex flex-wrap gap-1 pt-1">
          <button type="button" className="btn btn-xs gap-1" onClick={onReply}><ReplyIcon className="size-3" aria-hidden="true" />{t('actions.reply')}</button>
          <button type="button" className="btn btn-xs gap-1" disabled={busy} onClick={() => onAction(row.hidden ? 'unhide' : 'hide')}>
            {row.hidden ? <EyeIcon className="size-3" aria-hidden="true" /> : <EyeOffIcon className="size-3" aria-hidden="true" />}
            {t(row.hidden ? 'actions.unhide' : 'actions.hide')}
          </button>
          {row.platform === 'facebook' && (
            <button type="button" className="btn btn-xs gap-1" disabled={busy || row.liked} onClick={() => onAction('like')}><HeartIcon className="size-3" aria-hidden="true" />{t(row.liked ? 'state.liked' : 'actions.like')}</button>
          )}
          <button type="button" className="btn btn-xs btn-ghost text-error gap-1" disabled={busy} onClick={() => onAction('delete')}><Trash2Icon className="size-3" aria-hidden="true" />{t('actions.delete')}</button>
        </div>
      </div>
    </li>
  );
}

function ReplyDialog({ row, onClose }: { row: CommentRow; onClose: () => void }) {
  const { t } = useTranslation('meta-comments');
  const utils = trpc.useUtils();
  const templates = trpc.metaComments.templates.useQuery();
  const [message, setMessage] = useState('');
  const reply = trpc.metaComments.reply.useMutation({
    onSuccess: () => {
      void utils.metaComments.list.invalidate();
      notify('success', t('reply.sent'));
      onClose();
    },
    onError: (error) => notify('error', serverMessage(error) ?? t('reply.failed')),
  });
  return (
    <dialog open className="modal modal-open" aria-labelledby="reply-title">
      <form className="modal-box space-y-3" onSubmit={(event) => { event.preventDefault(); reply.mutate({ commentId: row.commentId, message }); }}>
        <h3 id="reply-title" className="text-lg font-semibold">{t('reply.title', { name: row.authorName })}</h3>
        <blockquote className="border-base-300 text-base-content/70 border-l-4 pl-3 text-sm">{row.message}</blockquote>
        {(templates.data?.length ?? 0) > 0 && (
          <select className="select select-sm w-full" aria-label={t('reply.template')} defaultValue="" onChange={(event) => {
            const template = templates.data!.find((item) => String(item.id) === event.target.value);
            if (template) setMessage(fillTemplate(template.body, row.authorName));
          }}>
            <option value="">{t('reply.template')}</option>
            {templates.data!.map((template) => <option key={template.id} value={template.id}>{template.name}</option>)}
          </select>
        )}
        <textarea className="textarea w-full" rows={4} aria-label={t('reply.message')} value={message} onChange={(event) => setMessage(event.target.value)} maxLength={2000} required />
        <div className="modal-action">
          <button type="button" className="btn btn-ghost" onClick={onClose}>{t('reply.cancel')}</button>
          <button type="submit" className="btn btn-primary" disabled={reply.isPending || message.trim() === ''}>{t('reply.send')}</button>
        </div>
      </form>
      <button type="button" className="modal-backdrop" onClick={onClose} aria-label={t('reply.cancel')} />
    </dialog>
  );
}

function RulesPanel() {
  const { t } = useTranslation('meta-comments');
  const utils = trpc.useUtils();
  const rules = trpc.metaComments.rules.useQuery();
  const update = trpc.metaComments.updateRules.useMutation({
    onSuccess: (data) => { utils.metaComments.rules.setData(undefined, data); notify('success', t('rules.saved')); },
    onError: (error) => notify('error', serverMessage(error) ?? t('rules.failed')),
  });
  return (
    <section className="card bg-base-100 border-base-300 border" data-testid="rules-panel">
      <div className="card-body gap-3 p-4">
        <h2 className="card-title text-base">{t('rules.title')}</h2>
        {rules.data && (['autoHideSpam', 'autoHideProfanity', 'notifyComplaints'] as const).map((key) => (
          <label key={key} className="flex items-center justify-between gap-3 text-sm">
            <span>{t(`rules.${key}`)}</span>
            <input type="checkbox" className="toggle toggle-primary toggle-sm" checked={rules.data[key]} disabled={update.isPending} onChange={(event) => update.mutate({ ...rules.data, [key]: event.target.checked })} />
          </label>
        ))}
      </div>
    </section>
  );
}

function TemplatesPanel() {
  const { t } = useTranslation('meta-comments');
  const utils = trpc.useUtils();
  const templates = trpc.metaComments.templates.useQuery();
  const [name, setName] = useState('');
  const [body, setBody] = useState('');
  const onSaved = (data: { id: number; name: string; body: string }[]) => utils.metaComments.templates.setData(undefined, data);
  const save = trpc.metaComments.saveTemplate.useMutation({ onSuccess: (data) => { onSaved(data); setName(''); setBody(''); }, onError: (error) => notify('error', serverMessage(error) ?? t('templates.failed')) });
  const remove = trpc.metaComments.deleteTemplate.useMutation({ onSuccess: onSaved, onError: (error) => notify('error', serverMessage(error) ?? t('templates.failed')) });
  return (
    <section className="card bg-base-100 border-base-300 border" data-testid="templates-panel">
      <div className="card-body gap-3 p-4">
        <h2 className="card-title text-base"><MessageCircleIcon className="size-4" aria-hidden="true" />{t('templates.title')}</h2>
        <ul className="space-y-2 text-sm">
          {(templates.data ?? []).map((template) => (
            <li key={template.id} className="flex items-start justify-between gap-2">
              <span className="min-w-0"><span className="font-medium">{template.name}</span> <span className="text-base-content/70 break-words">{template.body}</span></span>
              <button type="button" className="btn btn-ghost btn-xs text-error" onClick={() => remove.mutate({ id: template.id })} aria-label={t('templates.delete', { name: template.name })}><Trash2Icon className="size-3" aria-hidden="true" /></button>
            </li>
          ))}
          {templates.data?.length === 0 && <li className="text-base-content/70">{t('templates.none')}</li>}
        </ul>
        <form className="space-y-2" onSubmit={(event) => { event.preventDefault(); save.mutate({ name, body }); }}>
          <input className="input input-sm w-full" placeholder={t('templates.name')} aria-label={t('templates.name')} value={name} onChange={(event) => setName(event.target.value)} maxLength={80} required />
          <textarea className="textarea textarea-sm w-full" placeholder={t('templates.body')} aria-label={t('templates.body')} value={body} onChange={(event) => setBody(event.target.value)} rows={2} required />
          <p className="text-base-content/60 text-xs">{t('templates.hint')}</p>
          <button type="submit" className="btn btn-sm btn-outline" disabled={save.isPending}>{t('templates.add')}</button>
        </form>
      </div>
    </section>
  );
}
