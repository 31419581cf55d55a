import { useTranslation } from 'react-i18next';
import { trpc } from '../../lib/trpc.ts';
import { errorText } from '../account-shared/messages.ts';
import { InlineLoading, PageHeader } from '../account-shared/page-header.tsx';
import { BillingSection } from '../billing/billing-section.tsx';
import { AccountSection } from './account-section.tsx';
import { EmailSection } from './email-section.tsx';
import { PasswordSection } from './password-section.tsx';
import { PreferencesSection } from './preferences-section.tsx';

const SECTIONS = ['account', 'email', 'preferences', 'password', 'billing'] as const;

/** /settings: account (username), e-mail address (changed by confirmation), preferences (marketing e-mails, theme), change password. */
export function SettingsPage() {
  const { t } = useTranslation('account');
  const settings = trpc.settings.get.useQuery();

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader title={t('settings.title')} description={t('settings.description')} />
      <div className="grid gap-6 lg:grid-cols-[12rem_1fr]">
        <nav aria-label={t('settings.sectionsLabel')} className="hidden lg:block">
          <ul className="menu bg-base-100 rounded-box border-base-content/10 sticky top-24 w-full border p-2">
            {SECTIONS.map((section) => (
              <li key={section}>
                <a href={`#${section}`}>{t(`settings.${section}.title`)}</a>
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
        </div>
      </div>
    </div>
  );
}
