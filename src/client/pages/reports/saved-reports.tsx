import type { UseQueryResult } from '@tanstack/react-query';
import { CalendarClockIcon, FileTextIcon, FolderOpenIcon, PencilIcon, TrashIcon } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_REPORT_RECIPIENTS, REPORT_SCHEDULES, type ReportSchedule, type SavedReport } from '../../../shared/reports.ts';
import { ConfirmDialog, useConfirmation } from '../../components/confirm-dialog.tsx';
import { DataError } from '../../components/data-page.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextField } from '../../components/form-fields.tsx';
import { FormAlert, SubmitButton, useFormErrors } from '../../components/form-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { useStoreDateTime } from '../../lib/store-time.ts';
import { trpc } from '../../lib/trpc.ts';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Recipients as typed (commas, spaces or new lines between them). */
function parseRecipients(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function SavedReportsCard({ reports, openedId, onOpen, viewOnly }: { reports: UseQueryResult<SavedReport[], unknown>; openedId: number | null; onOpen: (report: SavedReport) => void; viewOnly: boolean }) {
  const { t } = useTranslation('reports');
  // Reports go out at 08:00 store time: the last sending is told on the store's clock too.
  const storeDateTime = useStoreDateTime();
  const utils = trpc.useUtils();
  const [editing, setEditing] = useState<SavedReport | null>(null);
  const deleting = useConfirmation<SavedReport>();
  const remove = trpc.reports.remove.useMutation({
    onSuccess: async () => {
      deleting.close();
      toast({ title: t('saved.deleted'), variant: 'success' });
      await utils.reports.list.invalidate();
    },
    onError: (error) => toast({ title: t('saved.deleteFailed'), description: serverMessage(error) ?? t('common.connection'), variant: 'destructive' }),
  });
  return (
    <SectionCard titleId="saved-reports-title" title={t('saved.title')} testId="saved-reports">
      {reports.isError ? (
        <DataError error={reports.error} onRetry={() => void reports.refetch()} />
      ) : !reports.data ? (
        <div className="skeleton h-24 rounded-box" role="status" aria-label={t('saved.loading')} />
      ) : reports.data.length === 0 ? (
        <div className="text-base-content/70 flex flex-col items-center gap-2 py-8 text-center text-sm">
          <FileTextIcon aria-hidden="true" className="size-8 opacity-50" />
          {t('saved.empty')}
        </div>
      ) : (
        <ul className="divide-base-content/10 divide-y">
          {reports.data.map((report) => (
            <li key={report.id} className={`flex flex-wrap items-center gap-3 py-2 ${report.id === openedId ? 'bg-primary/5 -mx-2 rounded px-2' : ''}`} data-testid="saved-report">
              <div className="min-w-0 flex-1">
                <p className="truncate font-medium" data-testid="saved-report-name">
                  {report.name}
                </p>
                <p className="text-base-content/70 text-xs">
                  {t(`dimensions.${report.definition.dimension}`)} · {report.definition.metrics.map((metric) => t(`metrics.${metric}`)).join(', ')}
                </p>
                {report.schedule !== 'none' && (
                  <p className="text-base-content/70 mt-0.5 flex items-center gap-1 text-xs" data-testid="saved-report-schedule">
                    <CalendarClockIcon aria-hidden="true" className="size-3.5" />
                    {t(`schedule.summary.${report.schedule}`, { recipients: report.recipients.join(', ') })}
                    {report.lastSentAt && ` · ${t('schedule.lastSent', { date: storeDateTime(report.lastSentAt) })}`}
                  </p>
                )}
              </div>
              <div className="flex gap-1">
                <button type="button" className="btn btn-ghost btn-xs gap-1" onClick={() => onOpen(report)} aria-label={t('saved.open', { name: report.name })}>
                  <FolderOpenIcon aria-hidden="true" className="size-4" />
                  <span className="hidden sm:inline">{t('saved.openShort')}</span>
                </button>
                {!viewOnly && (
                  <>
                    <button type="button" className="btn btn-ghost btn-xs gap-1" onClick={() => setEditing(report)} aria-label={t('saved.edit', { name: report.name })} data-testid="saved-report-edit">
                      <PencilIcon aria-hidden="true" className="size-4" />
                      <span className="hidden sm:inline">{t('saved.editShort')}</span>
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-xs btn-square text-error"
                      aria-label={t('saved.delete', { name: report.name })}
                      onClick={() => deleting.ask(report)}
                    >
                      <TrashIcon aria-hidden="true" className="size-4" />
                    </button>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      <ReportSettingsDialog report={editing} onClose={() => setEditing(null)} />
      <ConfirmDialog
        open={deleting.open}
        title={t('saved.confirmDelete', { name: deleting.target?.name ?? '' })}
        body={t(deleting.target && deleting.target.schedule !== 'none' ? 'saved.confirmDeleteScheduledBody' : 'saved.confirmDeleteBody')}
        confirmLabel={t('saved.confirmDeleteAction')}
        cancelLabel={t('schedule.cancel')}
        pending={remove.isPending}
        onConfirm={() => deleting.target && remove.mutate({ id: deleting.target.id })}
        onClose={deleting.close}
      />
    </SectionCard>
  );
}

/** Rename and schedule a saved report (weekly: Mondays 08:00, monthly: the 1st at 08:00, store time). */
function ReportSettingsDialog({ report, onClose }: { report: SavedReport | null; onClose: () => void }) {
  const { t } = useTranslation('reports');
  const utils = trpc.useUtils();
  const errors = useFormErrors(t('common.connection'));
  const [name, setName] = useState('');
  const [schedule, setSchedule] = useState<ReportSchedule>('none');
  const [recipients, setRecipients] = useState('');
  useEffect(() => {
    if (report) {
      setName(report.name);
      setSchedule(report.schedule);
      setRecipients(report.recipients.join(', '));
    }
    errors.acceptLocalCheck({});
  }, [report]);
  const update = trpc.reports.update.useMutation({
    onSuccess: async (saved) => {
      toast({ title: t('saved.updatedToast', { name: saved.name }), variant: 'success' });
      await utils.reports.list.invalidate();
      onClose();
    },
    onError: (error) => errors.showServerError(error),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!report) return;
    const list = parseRecipients(recipients);
    const local: Record<string, string> = {};
    if (!name.trim()) local.name = t('saved.nameRequired');
    if (list.some((entry) => !EMAIL_PATTERN.test(entry))) local.recipients = t('schedule.invalidEmail');
    else if (list.length > MAX_REPORT_RECIPIENTS) local.recipients = t('schedule.tooMany', { max: MAX_REPORT_RECIPIENTS });
    else if (schedule !== 'none' && list.length === 0) local.recipients = t('schedule.recipientRequired');
    if (!errors.acceptLocalCheck(local)) return;
    update.mutate({ id: report.id, name, schedule, recipients: list });
  };

  return (
    <Modal open={report !== null} titleId="report-settings-title" onClose={onClose} busy={update.isPending}>
      <h2 id="report-settings-title" className="text-lg font-semibold">
        {t('schedule.title')}
      </h2>
      <form className="mt-4 space-y-3" onSubmit={submit} noValidate data-testid="report-settings-form">
        <FormAlert message={errors.formError} />
        <TextField id="report-settings-name" label={t('saved.nameLabel')} value={name} {...errors.bind('name', setName)} maxLength={120} />
        <div className="fieldset py-0">
          <label htmlFor="report-schedule" className="fieldset-legend pt-0 pb-1 text-sm">
            {t('schedule.label')}
          </label>
          <select id="report-schedule" className="select w-full" value={schedule} onChange={(event) => { setSchedule(event.target.value as ReportSchedule); errors.clear('recipients'); }} data-testid="report-schedule">
            {REPORT_SCHEDULES.map((option) => (
              <option key={option} value={option}>
                {t(`schedule.options.${option}`)}
              </option>
            ))}
          </select>
          <p className="text-base-content/70 text-xs">{t('schedule.hint')}</p>
        </div>
        <TextField
          id="report-recipients"
          label={t('schedule.recipients', { max: MAX_REPORT_RECIPIENTS })}
          value={recipients}
          {...errors.bind('recipients', setRecipients)}
          hint={t('schedule.recipientsHint')}
          placeholder="name@example.com"
          data-testid="report-recipients"
        />
        <div className="modal-action">
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={update.isPending}>
            {t('schedule.cancel')}
          </button>
          <SubmitButton pending={update.isPending} label={t('schedule.save')} pendingLabel={t('schedule.saving')} className="" />
        </div>
      </form>
    </Modal>
  );
}
