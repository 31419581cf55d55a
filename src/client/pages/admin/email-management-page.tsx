import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { CircleCheckIcon, InboxIcon, MailIcon, RotateCwIcon, SearchIcon, TriangleAlertIcon } from 'lucide-react';
import type { EmailTemplateDto, OutboundEmailDto } from '../../../shared/email.ts';
import { Modal } from '../../components/modal.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AdminTabs } from './admin-shared.tsx';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from './ui.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';

type Tab = 'templates' | 'outbox';
const OUTBOX_LIMIT = 200;

/** Replaces `{{name}}` with a value; unknown placeholders stay as they are (as the server does). */
export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
}

/** /admin/email-management ("Email Templates"): edit the e-mails the product sends, and read the outbox. */
export function EmailManagementPage() {
  const { t } = useTranslation('admin');
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const tab: Tab = params.get('tab') === 'outbox' ? 'outbox' : 'templates';

  function setParam(name: string, value: string | null) {
    const next = new URLSearchParams(search);
    if (value === null) next.delete(name);
    else next.set(name, value);
    const query = next.toString();
    navigate(query ? `${location}?${query}` : location, { replace: true });
  }

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <PageHeader title={t('email.title')} description={t('email.description')} />
      <AdminTabs />
      <div role="tablist" aria-label={t('email.tabsLabel')} className="tabs tabs-box w-fit">
        {(['templates', 'outbox'] as const).map((option) => (
          <button
            key={option}
            id={`email-tab-${option}`}
            type="button"
            role="tab"
            aria-selected={tab === option}
            aria-controls={`email-panel-${option}`}
            className={`tab gap-2 ${tab === option ? 'tab-active' : 'text-base-content/80!'}`}
            onClick={() => setParam('tab', option === 'templates' ? null : option)}
          >
            {option === 'templates' ? <MailIcon /> : <InboxIcon />}
            {t(`email.tabs.${option}`)}
          </button>
        ))}
      </div>
      <MailDeliveryStatus />
      <div id={`email-panel-${tab}`} role="tabpanel" aria-labelledby={`email-tab-${tab}`}>
        {tab === 'templates' ? (
          <TemplatesPanel selectedKey={params.get('template')} onSelect={(key) => setParam('template', key)} />
        ) : (
          <OutboxPanel query={params.get('to') ?? ''} onQuery={(value) => setParam('to', value || null)} />
        )}
      </div>
    </div>
  );
}

/** Says plainly whether e-mails leave the server (SMTP_URL) or are only logged. */
function MailDeliveryStatus() {
  const { t } = useTranslation('admin');
  const delivery = trpc.email.delivery.useQuery();
  if (!delivery.data) return null;
  const { configured, host, port, secure, from } = delivery.data;
  return configured ? (
    <div role="status" className="alert border-success/40 bg-success/10 text-base-content items-start" data-testid="mail-delivery" data-state="configured">
      <CircleCheckIcon className="text-success" aria-hidden="true" />
      <div className="min-w-0">
        <p className="font-semibold">{t('email.delivery.configured.title')}</p>
        <p className="text-sm break-words">{t('email.delivery.configured.body', { server: `${host}:${port}`, security: t(secure ? 'email.delivery.tls' : 'email.delivery.starttls'), from })}</p>
      </div>
    </div>
  ) : (
    <div role="status" className="alert border-warning/60 bg-warning/15 text-base-content items-start" data-testid="mail-delivery" data-state="not-configured">
      <TriangleAlertIcon className="text-warning" aria-hidden="true" />
      <div className="min-w-0">
        <p className="font-semibold">{t('email.delivery.notConfigured.title')}</p>
        <p className="text-sm">{t('email.delivery.notConfigured.body')}</p>
      </div>
    </div>
  );
}

function TemplatesPanel({ selectedKey, onSelect }: { selectedKey: string | null; onSelect: (key: string) => void }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const templates = trpc.email.templates.useQuery();
  if (templates.isPending) return <LoadingBlock label={t('common.loading')} />;
  if (templates.isError) {
    return <ErrorBlock message={t('common.loadFailed', { message: serverMessage(templates.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void templates.refetch()} />;
  }
  const selected = templates.data.find((template) => template.key === selectedKey) ?? templates.data[0];
  return (
    <div className="grid gap-4 lg:grid-cols-[18rem_1fr]">
      <nav aria-label={t('email.listLabel')}>
        <ul className="bg-base-100 border-base-content/10 rounded-box flex flex-col gap-1 border p-2 shadow-sm">
          {templates.data.map((template) => {
            const active = template.key === selected?.key;
            return (
              <li key={template.key}>
                <button
                  type="button"
                  onClick={() => onSelect(template.key)}
                  aria-current={active ? 'true' : undefined}
                  className={`hover:bg-base-200 flex w-full flex-col items-start gap-0.5 rounded-lg px-3 py-2 text-left ${active ? 'bg-primary/10 ring-primary/30 ring-1' : ''}`}
                >
                  <span className="flex w-full items-center justify-between gap-2">
                    <span className="font-medium">{t(`email.templates.${template.key}.name`, { defaultValue: template.key })}</span>
                    {template.customized && <span className="badge border-primary/50 bg-primary/10 text-base-content badge-xs">{t('email.customized')}</span>}
                  </span>
                  <span className="text-base-content/70 text-xs">
                    {template.updatedAt ? t('email.updated', { date: dates.date(template.updatedAt) }) : t('email.default')}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      </nav>
      {selected && <TemplateEditor key={`${selected.key}-${selected.updatedAt ?? 'default'}`} template={selected} />}
    </div>
  );
}

function TemplateEditor({ template }: { template: EmailTemplateDto }) {
  const { t } = useTranslation('admin');
  const utils = trpc.useUtils();
  const [subject, setSubject] = useState(template.subject);
  const [body, setBody] = useState(template.textBody);
  const [confirmReset, setConfirmReset] = useState(false);
  const subjectRef = useRef<HTMLInputElement>(null);
  const bodyRef = useRef<HTMLTextAreaElement>(null);
  const lastFocused = useRef<'subject' | 'body'>('body');
  const dirty = subject !== template.subject || body !== template.textBody;

  const samples = useMemo(() => {
    const origin = typeof window === 'undefined' ? '' : window.location.origin;
    const values: Record<string, string> = {
      username: t('email.samples.username'),
      inviterName: t('email.samples.inviterName'),
      storeName: t('email.samples.storeName'),
      name: t('email.samples.name'),
      message: t('email.samples.message'),
      validMinutes: '60',
      validDays: '7',
      resetUrl: `${origin}/reset-password?token=sample-token`,
      acceptUrl: `${origin}/accept-invite?token=sample-token`,
    };
    return Object.fromEntries(template.variables.map((name) => [name, values[name] ?? `[${name}]`]));
  }, [template.variables, t]);

  const save = trpc.email.updateTemplate.useMutation({
    onSuccess: async () => {
      toast({ title: t('email.saved.title'), description: t('email.saved.description', { name: t(`email.templates.${template.key}.name`, { defaultValue: template.key }) }), variant: 'success' });
      await utils.email.templates.invalidate();
    },
    onError: (error) => toast({ title: t('email.saveFailed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  });
  const reset = trpc.email.resetTemplate.useMutation({
    onSuccess: async (restored) => {
      setConfirmReset(false);
      setSubject(restored.subject);
      setBody(restored.textBody);
      toast({ title: t('email.reset.done.title'), description: t('email.reset.done.description'), variant: 'success' });
      await utils.email.templates.invalidate();
    },
    onError: (error) => {
      setConfirmReset(false);
      toast({ title: t('email.reset.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' });
    },
  });

  /** Puts {{name}} where the caret was in the field last used, and puts the caret after it. */
  function insert(name: string) {
    const placeholder = `{{${name}}}`;
    const target = lastFocused.current === 'subject' ? subjectRef.current : bodyRef.current;
    const value = lastFocused.current === 'subject' ? subject : body;
    const start = target?.selectionStart ?? value.length;
    const end = target?.selectionEnd ?? value.length;
    const next = value.slice(0, start) + placeholder + value.slice(end);
    if (lastFocused.current === 'subject') setSubject(next);
    else setBody(next);
    requestAnimationFrame(() => {
      target?.focus();
      target?.setSelectionRange(start + placeholder.length, start + placeholder.length);
    });
  }

  useEffect(() => {
    // Leaving with unsaved changes loses them; the browser asks first.
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const name = t(`email.templates.${template.key}.name`, { defaultValue: template.key });
  return (
    <div className="grid min-w-0 gap-4 xl:grid-cols-2">
      <Section
        id="editor-heading"
        title={t('email.editorTitle', { name })}
        aside={template.customized ? <span className="badge border-primary/50 bg-primary/10 text-base-content badge-sm">{t('email.customized')}</span> : <span className="badge badge-ghost badge-sm">{t('email.default')}</span>}
      >
        <form
          className="flex flex-col gap-4 p-4 sm:p-5"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ key: template.key, subject, textBody: body });
          }}
        >
          <p className="text-base-content/75 text-sm">{t(`email.templates.${template.key}.description`, { defaultValue: '' })}</p>
          <div className="fieldset py-0">
            <label htmlFor="template-subject" className="fieldset-legend pt-0 pb-1 text-sm">
              {t('email.subject')}
            </label>
            <input
              id="template-subject"
              ref={subjectRef}
              className="input w-full"
              value={subject}
              maxLength={255}
              onChange={(event) => setSubject(event.target.value)}
              onFocus={() => (lastFocused.current = 'subject')}
            />
          </div>
          <div className="fieldset py-0">
            <label htmlFor="template-body" className="fieldset-legend pt-0 pb-1 text-sm">
              {t('email.body')}
            </label>
            <textarea
              id="template-body"
              ref={bodyRef}
              className="textarea h-64 w-full font-mono text-sm leading-relaxed"
              value={body}
              onChange={(event) => setBody(event.target.value)}
              onFocus={() => (lastFocused.current = 'body')}
            />
          </div>
          <div>
            <p className="text-base-content/80 text-sm font-medium" id="variables-label">
              {t('email.variables')}
            </p>
            <p className="text-base-content/70 text-xs">{t('email.variablesHint')}</p>
            <div className="mt-2 flex flex-wrap gap-2" role="group" aria-labelledby="variables-label">
              {template.variables.map((variable) => (
                <button
                  key={variable}
                  type="button"
                  className="badge border-primary/40 bg-primary/10 text-base-content hover:bg-primary/20 cursor-pointer font-mono"
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => insert(variable)}
                  aria-label={t('email.insertVariable', { name: variable })}
                >
                  {`{{${variable}}}`}
                </button>
              ))}
            </div>
          </div>
          <div className="flex flex-wrap gap-2">
            <button type="submit" className="btn btn-primary" disabled={!dirty || save.isPending || !subject.trim() || !body.trim()} aria-busy={save.isPending}>
              {save.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {t('email.save')}
            </button>
            {dirty && (
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => {
                  setSubject(template.subject);
                  setBody(template.textBody);
                }}
              >
                {t('email.discard')}
              </button>
            )}
            {template.customized && (
              <button type="button" className="btn btn-outline btn-error ml-auto" onClick={() => setConfirmReset(true)}>
                {t('email.reset.button')}
              </button>
            )}
          </div>
        </form>
      </Section>

      <Section id="preview-heading" title={t('email.preview')} aside={<span className="text-base-content/70 text-xs">{t('email.previewHint')}</span>}>
        <div className="p-4 sm:p-5" data-testid="template-preview">
          <div className="bg-base-200/60 border-base-content/10 rounded-box border">
            <div className="border-base-content/10 border-b px-4 py-3">
              <p className="text-base-content/70 text-xs">{t('email.subject')}</p>
              <p className="font-semibold break-words">{fillPlaceholders(subject, samples)}</p>
            </div>
            <pre className="px-4 py-3 font-sans text-sm leading-relaxed break-words whitespace-pre-wrap">{fillPlaceholders(body, samples)}</pre>
          </div>
        </div>
      </Section>

      <ConfirmDialog
        open={confirmReset}
        title={t('email.reset.title')}
        body={t('email.reset.confirm', { name })}
        confirmLabel={t('email.reset.submit')}
        cancelLabel={t('common.cancel')}
        pending={reset.isPending}
        onConfirm={() => reset.mutate({ key: template.key })}
        onClose={() => setConfirmReset(false)}
      />
    </div>
  );
}

const STATUS_CLASS: Record<OutboundEmailDto['status'], string> = {
  logged: 'border-info/50 bg-info/10 text-base-content',
  sent: 'border-success/50 bg-success/10 text-base-content',
  pending: 'border-warning/60 bg-warning/15 text-base-content',
  failed: 'border-error/50 bg-error/10 text-base-content',
};

function OutboxPanel({ query, onQuery }: { query: string; onQuery: (value: string) => void }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  // While an e-mail waits for delivery, its row follows the delivery job (sent, retried, failed).
  const outbox = trpc.email.outbox.useQuery({ limit: OUTBOX_LIMIT }, { refetchInterval: (query) => (query.state.data?.some((email) => email.status === 'pending') ? 3000 : false) });
  const [openId, setOpenId] = useState<number | null>(null);
  const filtered = useMemo(() => {
    const needle = query.trim().toLowerCase();
    return (outbox.data ?? []).filter((email) => !needle || email.toAddress.toLowerCase().includes(needle));
  }, [outbox.data, query]);
  const open = outbox.data?.find((email) => email.id === openId) ?? null;
  const delivery = trpc.email.delivery.useQuery();
  const utils = trpc.useUtils();
  const retry = trpc.email.retry.useMutation({
    onSuccess: async () => {
      toast({ title: t('email.outbox.retry.done'), variant: 'success' });
      await utils.email.outbox.invalidate();
    },
    onError: (error) => toast({ title: t('email.outbox.retry.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  });

  return (
    <Section
      id="outbox-heading"
      title={t('email.outbox.title')}
      aside={outbox.data && <span className="text-base-content/70 text-sm">{t('email.outbox.showing', { shown: filtered.length, total: outbox.data.length })}</span>}
    >
      <div className="border-base-content/10 flex flex-col gap-1 border-b p-4 sm:px-5">
        <label htmlFor="outbox-search" className="text-sm font-medium">
          {t('email.outbox.searchLabel')}
        </label>
        <label className="input w-full md:max-w-md">
          <SearchIcon className="text-base-content/60" />
          <input id="outbox-search" type="search" className="grow" placeholder={t('email.outbox.searchPlaceholder')} value={query} onChange={(event) => onQuery(event.target.value)} />
        </label>
        <p className="text-base-content/70 text-xs">{t('email.outbox.note', { count: OUTBOX_LIMIT })}</p>
      </div>
      {outbox.isPending && <LoadingBlock label={t('common.loading')} />}
      {outbox.isError && (
        <div className="p-4">
          <ErrorBlock message={t('common.loadFailed', { message: serverMessage(outbox.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void outbox.refetch()} />
        </div>
      )}
      {outbox.data && filtered.length === 0 && (
        <div className="flex flex-col items-center px-6 py-12 text-center">
          <span className="bg-primary/10 text-primary grid size-12 place-items-center rounded-2xl text-2xl" aria-hidden="true">
            <InboxIcon />
          </span>
          <p className="mt-3 font-semibold">{query ? t('email.outbox.noMatch') : t('email.outbox.empty')}</p>
        </div>
      )}
      {filtered.length > 0 && (
        <ul className="divide-base-content/10 divide-y" data-testid="outbox-list">
          {filtered.map((email) => (
            <li key={email.id}>
              <button type="button" className="hover:bg-base-200/60 flex w-full flex-col gap-1 px-4 py-3 text-left sm:flex-row sm:items-center sm:gap-4 sm:px-5" onClick={() => setOpenId(email.id)}>
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium">{email.subject}</span>
                  <span className="text-base-content/70 block truncate text-sm">
                    {t('email.outbox.to', { address: email.toAddress })} · {t(`email.templates.${email.template}.name`, { defaultValue: email.template })}
                  </span>
                  {(email.status === 'failed' || email.status === 'pending') && (email.serverResponse ?? email.error) && (
                    <span className={`block truncate text-xs ${email.status === 'failed' ? 'text-error' : 'text-base-content/70'}`} data-testid="outbox-answer">
                      {email.serverResponse ?? email.error}
                    </span>
                  )}
                </span>
                <span className="flex shrink-0 items-center gap-2" data-state={email.status}>
                  {email.attempts > 0 && <span className="text-base-content/70 text-xs whitespace-nowrap">{t('email.outbox.attempts', { count: email.attempts })}</span>}
                  <span className={`badge badge-sm ${STATUS_CLASS[email.status]}`}>{t(`email.outbox.status.${email.status}`)}</span>
                  <time className="text-base-content/70 text-xs whitespace-nowrap" dateTime={email.createdAt}>
                    {dates.dateTime(email.createdAt)}
                  </time>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}

      <Modal open={open !== null} titleId="outbox-detail-title" onClose={() => setOpenId(null)} boxClassName="max-w-2xl">
        {open && (
          <>
            <h2 id="outbox-detail-title" className="pr-8 text-lg font-semibold break-words">
              {open.subject}
            </h2>
            <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-base-content/70">{t('email.outbox.fields.to')}</dt>
              <dd className="break-all">{open.toAddress}</dd>
              <dt className="text-base-content/70">{t('email.outbox.fields.template')}</dt>
              <dd>{t(`email.templates.${open.template}.name`, { defaultValue: open.template })}</dd>
              <dt className="text-base-content/70">{t('email.outbox.fields.status')}</dt>
              <dd>
                <span className={`badge badge-sm ${STATUS_CLASS[open.status]}`}>{t(`email.outbox.status.${open.status}`)}</span>
              </dd>
              <dt className="text-base-content/70">{t('email.outbox.fields.created')}</dt>
              <dd>{dates.dateTime(open.createdAt)}</dd>
              {open.sentAt && (
                <>
                  <dt className="text-base-content/70">{t('email.outbox.fields.sent')}</dt>
                  <dd>{dates.dateTime(open.sentAt)}</dd>
                </>
              )}
              {open.attempts > 0 && (
                <>
                  <dt className="text-base-content/70">{t('email.outbox.fields.attempts')}</dt>
                  <dd>{open.attempts}</dd>
                </>
              )}
              {open.serverResponse && (
                <>
                  <dt className="text-base-content/70">{t('email.outbox.fields.response')}</dt>
                  <dd className={`font-mono text-xs break-all ${open.status === 'failed' ? 'text-error' : ''}`} data-testid="outbox-response">
                    {open.serverResponse}
                  </dd>
                </>
              )}
              {open.error && !(open.serverResponse && open.error.includes(open.serverResponse)) && (
                <>
                  <dt className="text-base-content/70">{t('email.outbox.fields.error')}</dt>
                  <dd className="text-error break-words">{open.error}</dd>
                </>
              )}
              {open.messageId && (
                <>
                  <dt className="text-base-content/70">{t('email.outbox.fields.messageId')}</dt>
                  <dd className="font-mono text-xs break-all">{open.messageId}</dd>
                </>
              )}
              {open.attachmentNames.length > 0 && (
                <>
                  <dt className="text-base-content/70">{t('email.outbox.fields.attachments')}</dt>
                  <dd className="break-all">{open.attachmentNames.join(', ')}</dd>
                </>
              )}
            </dl>
            <pre className="bg-base-200/60 rounded-box mt-4 max-h-[50vh] overflow-auto p-4 font-sans text-sm leading-relaxed break-words whitespace-pre-wrap" data-testid="outbox-body">
              {open.textBody}
            </pre>
            <div className="modal-action">
              {open.status === 'failed' && delivery.data?.configured && (
                <button type="button" className="btn btn-primary" disabled={retry.isPending} onClick={() => retry.mutate({ id: open.id })}>
                  <RotateCwIcon aria-hidden="true" />
                  {t('email.outbox.retry.button')}
                </button>
              )}
              <form method="dialog">
                <button type="submit" className="btn">
                  {t('common.close')}
                </button>
              </form>
            </div>
          </>
        )}
      </Modal>
    </Section>
  );
}
