import { useTranslation } from 'react-i18next';
import { DownloadIcon, ShieldCheckIcon } from 'lucide-react';
import type { PrivacyRequestRow } from '../../../shared/privacy.ts';
import { trpc } from '../../lib/trpc.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading } from '../account-shared/page-header.tsx';
import { SettingsCard } from './settings-card.tsx';

/**
 * The privacy requests platforms sent about customers of the stores the user owns (Shopify's
 * customers/data_request), each with the export to send the customer, downloadable until it expires.
 */
export function PrivacyRequestsSection() {
  const { t, i18n } = useTranslation('account');
  const requests = trpc.privacy.requests.useQuery();
  const day = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' });

  return (
    <SettingsCard id="privacy-requests" icon={<ShieldCheckIcon className="size-5" />} title={t('settings.privacyRequests.title')} description={t('settings.privacyRequests.description')}>
      {requests.isPending && <InlineLoading label={t('settings.loading')} />}
      {requests.isError && (
        <div role="alert" className="alert alert-error alert-soft">
          <span>{errorText(t, requests.error)}</span>
        </div>
      )}
      {requests.data && requests.data.length === 0 && (
        <p className="text-base-content/70 text-sm" data-testid="privacy-requests-empty">
          {t('settings.privacyRequests.empty')}
        </p>
      )}
      {requests.data && requests.data.length > 0 && (
        <ul className="divide-base-content/10 divide-y" data-testid="privacy-requests">
          {requests.data.map((request: PrivacyRequestRow) => (
            <li key={request.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3" data-state="ready">
              <div className="min-w-0 flex-1 basis-64">
                <p className="font-medium">
                  {t('settings.privacyRequests.dataRequest', { customerId: request.customerId })}
                  <span className="badge badge-success badge-soft badge-sm ms-2">{t('settings.privacyRequests.ready')}</span>
                </p>
                <p className="text-base-content/70 text-sm break-words">
                  {t('settings.privacyRequests.details', {
                    date: day.format(new Date(request.createdAt)),
                    shop: request.shop,
                    store: request.storeName,
                    count: request.ordersCount,
                  })}
                </p>
                <p className="text-base-content/60 text-xs">{t('settings.privacyRequests.expires', { date: day.format(new Date(request.expiresAt)) })}</p>
              </div>
              <a className="btn btn-sm btn-outline" href={`/api/privacy-requests/${request.id}/download`} download>
                <DownloadIcon className="size-4" aria-hidden="true" />
                {t('settings.privacyRequests.download')}
              </a>
            </li>
          ))}
        </ul>
      )}
    </SettingsCard>
  );
}
