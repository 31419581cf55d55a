import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SlidersHorizontalIcon } from 'lucide-react';
import type { AccountSettings } from '../../../shared/settings.ts';
import { toast } from '../../components/toast.tsx';
import { THEME_PREFERENCES, useTheme } from '../../lib/theme.tsx';
import { trpc } from '../../lib/trpc.ts';
import { SettingsCard } from './settings-card.tsx';

/** Marketing e-mails (saved on the account at once) and the theme (kept in this browser). */
export function PreferencesSection({ settings }: { settings: AccountSettings }) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const { preference, setPreference } = useTheme();
  // While saving, the switch shows the value being saved; afterwards the stored one (unchanged on failure).
  const [saving, setSaving] = useState<boolean | null>(null);

  const update = trpc.settings.updatePreferences.useMutation({
    onSuccess: (saved) => {
      utils.settings.get.setData(undefined, saved);
      toast({ title: t('settings.saved.title'), description: t('settings.saved.description'), variant: 'success' });
      void utils.auth.me.invalidate();
    },
    onError: () => toast({ title: t('settings.failed.title'), description: t('settings.failed.description'), variant: 'destructive' }),
    onSettled: () => setSaving(null),
  });
  const marketingEmails = saving ?? settings.marketingEmails;

  return (
    <SettingsCard id="preferences" icon={<SlidersHorizontalIcon />} title={t('settings.preferences.title')} description={t('settings.preferences.description')}>
      <div className="flex items-start justify-between gap-4">
        <div className="min-w-0">
          <label htmlFor="marketing-emails" className="font-medium">
            {t('settings.preferences.marketing')}
          </label>
          <p id="marketing-emails-hint" className="text-base-content/70 text-sm">
            {t('settings.preferences.marketingHint')}
          </p>
        </div>
        <div className="flex shrink-0 items-center gap-2">
          {update.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          <input
            id="marketing-emails"
            type="checkbox"
            role="switch"
            className="toggle toggle-primary"
            checked={marketingEmails}
            disabled={update.isPending}
            aria-busy={update.isPending}
            aria-describedby="marketing-emails-hint"
            onChange={(event) => {
              setSaving(event.target.checked);
              update.mutate({ marketingEmails: event.target.checked });
            }}
          />
        </div>
      </div>

      <div className="divider my-0" />

      <fieldset className="min-w-0">
        <legend className="font-medium">{t('settings.preferences.theme')}</legend>
        <p className="text-base-content/70 text-sm">{t('settings.preferences.themeHint')}</p>
        <div className="join mt-3 flex w-full sm:w-auto sm:inline-flex">
          {THEME_PREFERENCES.map((option) => (
            <input
              key={option}
              type="radio"
              name="theme"
              className="join-item btn btn-sm flex-1 sm:flex-none sm:px-5"
              aria-label={t(`settings.preferences.themes.${option}`)}
              value={option}
              checked={preference === option}
              onChange={() => setPreference(option)}
            />
          ))}
        </div>
      </fieldset>
    </SettingsCard>
  );
}
