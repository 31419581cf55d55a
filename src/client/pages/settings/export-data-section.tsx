import { useTranslation } from 'react-i18next';
import { DownloadIcon, FileArchiveIcon } from 'lucide-react';
import { ACCOUNT_EXPORT_DAYS } from '../../../shared/privacy.ts';
import { toast } from '../../components/toast.tsx';
import { trpc } from '../../lib/trpc.ts';
import { errorText } from '../account-shared/messages.ts';
import { SettingsCard } from './settings-card.tsx';

/** "Export your data": a zip of everything the account holds, built in the background, downloadable for a week. */
export function ExportDataSection() {
  const { t, i18n } = useTranslation('account');
  const utils = trpc.useUtils();
  const latest = trpc.privacy.accountExport.useQuery(undefined, {
    // While the job builds it, the state is asked again every few seconds.
    refetchInterval: (query) => (query.state.data && (query.state.data.status === 'queued' || query.state.data.status === 'running') ? 3_000 : false),
  });
  const request = trpc.privacy.requestAccountExport.useMutation({
    onSuccess: (row) => utils.privacy.accountExport.setData(undefined, row),
    onError: (error) => toast({ title: t('settings.exportData.failed'), description: errorText(t, error), variant: 'destructive' }),
  });
  const day = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' });
  const current = latest.data ?? null;
  const building = current?.status === 'queued' || current?.status === 'running';

  return (
    <SettingsCard id="export-data" icon={<FileArchiveIcon />} title={t('settings.exportData.title')} description={t('settings.exportData.description', { days: ACCOUNT_EXPORT_DAYS })}>
      <div className="flex flex-col gap-3" data-testid="export-data" data-state={current?.status ?? 'none'}>
        {building && (
          <p className="text-sm" role="status">
            <span className="loading loading-spinner loading-xs me-2 align-middle" aria-hidden="true" />
            {t('settings.exportData.building')}
          </p>
        )}
        {current?.status === 'failed' && (
          <div role="alert" className="alert alert-error alert-soft text-sm">
            <span>{t('settings.exportData.buildFailed')}</span>
          </div>
        )}
        {current?.status === 'ready' && (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-sm">{t('settings.exportData.ready', { created: day.format(new Date(current.createdAt)), expires: day.format(new Date(current.expiresAt!)) })}</p>
            <a className="btn btn-sm btn-outline" href={`/api/account-exports/${current.id}/download`} download>
              <DownloadIcon className="size-4" aria-hidden="true" />
              {t('settings.exportData.download')}
            </a>
          </div>
        )}
        <div className="flex justify-end">
          <button type="button" className="btn btn-primary w-full sm:w-auto" disabled={building || request.isPending} onClick={() => request.mutate()}>
            {t(current?.status === 'ready' ? 'settings.exportData.again' : 'settings.exportData.request')}
          </button>
        </div>
      </div>
    </SettingsCard>
  );
}
