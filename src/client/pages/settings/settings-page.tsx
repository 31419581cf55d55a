import { useTranslation } from 'react-i18next';
import { trpc } from '../../lib/trpc.ts';
import { useAccess } from '../../lib/use-access.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading, PageHeader } from '../account-shared/page-header.tsx';
import { BillingSection } from '../billing/billing-section.tsx';
import { AccountSection } from './account-section.tsx';
import { DeleteAccountSection } from './delete-account-section.tsx';
import { EmailSection } from './email-section.tsx';
import { ExportDataSection } from './export-data-section.tsx';
import { PasswordSection } from './password-section.tsx';
import { PreferencesSection } from './preferences-section.tsx';
import { PrivacyRequestsSection } from './privacy-requests-section.tsx';

const SECTIONS = ['account', 'email', 'preferences', 'password', 'billing', 'exportData', 'privacyRequests', 'deleteAccount'] as const;
const ANCHORS: Partial<Record<(typeof SECTIONS)[number], string>> = { exportData: 'export-data', privacyRequests: 'privacy-requests', deleteAccount: 'delete-account' };

/** /settings: account (username), e-mail address (changed by confirmation), preferences (marketing e-mails, theme), change password. */
export function SettingsPage() {
  const { t } = useTranslation('account');
  const settings = trpc.settings.get.useQuery();
  // An administrator viewing the account does not see its customers' exports (the server refuses them too).
  const { guestMode } = useAccess();
  const OWN_ONLY: readonly string[] = ['exportData', 'privacyRequests', 'deleteAccount'];
  const sections = SECTIONS.filter((section) => !guestMode || !OWN_ONLY.includes(section));

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader title={t('settings.title')} description={t('settings.description')} />
      <div className="grid gap-6 lg:grid-cols-[12rem_1fr]">
        <nav aria-label={t('settings.sectionsLabel')} className="hidden lg:block">
          <ul className="menu bg-base-100 rounded-box border-base-content/10 sticky top-24 w-full border p-2">
            {sections.map((section) => (
              <li key={section}>
                <a href={`#${ANCHORS[section] ?? section}`}>{t(`settings.${section}.title`)}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="min-w-0 space-y-6">
          {settings.isPending && <InlineLoading label={t('settings.loading')} />}
          {settings.isError && (
            <div role="alert" className="alert alert-error alert-soft">
              <span>{errorText(t, settings.error)}</span>
              <button type="button" className="btn btn-sm" onClick={() => void settings.refetch()}>
                {t('actions.retry')}
              </button>
            </div>
          )}
          {settings.data && (
            <>
              {/* Keyed on the saved values so the form starts again from them after a save elsewhere. */}
              <AccountSection key={settings.data.username} settings={settings.data} />
              <EmailSection settings={settings.data} />
              <PreferencesSection settings={settings.data} />
            </>
          )}
          <PasswordSection />
          <BillingSection />
          {!guestMode && <ExportDataSection />}
          {!guestMode && <PrivacyRequestsSection />}
          {!guestMode && <DeleteAccountSection />}
        </div>
      </div>
    </div>
  );
}
