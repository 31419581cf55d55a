import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { UserIcon } from 'lucide-react';
import { updateAccountInput, type AccountSettings } from '../../../shared/settings.ts';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { localizeFieldErrors, localizeIssues } from '../account-shared/messages.ts';
import { TextField } from '../../components/form-fields.tsx';
import { useFieldErrors } from '../../components/form-state.tsx';
import { SettingsCard } from './settings-card.tsx';

/**
 * The username, with the registration rules; the server's field errors appear under the field. The
 * e-mail address has its own section: it changes only through a link sent to the new address.
 */
export function AccountSection({ settings }: { settings: AccountSettings }) {
  const { t } = useTranslation('account');
  const utils = trpc.useUtils();
  const [username, setUsername] = useState(settings.username);
  const errors = useFieldErrors();

  const update = trpc.settings.updateAccount.useMutation({
    onSuccess: (saved) => {
      utils.settings.get.setData(undefined, saved);
      setUsername(saved.username);
      toast({ title: t('settings.saved.title'), description: t('settings.saved.description'), variant: 'success' });
      void utils.auth.me.invalidate();
    },
    onError: (error) => {
      errors.setFieldErrors(localizeFieldErrors(t, fieldErrorsOf(error)));
      toast({ title: t('settings.failed.title'), description: t('settings.failed.description'), variant: 'destructive' });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = updateAccountInput.safeParse({ username });
    if (!parsed.success) {
      errors.setFieldErrors(localizeIssues(t, parsed.error.issues));
      return;
    }
    errors.setFieldErrors({});
    update.mutate(parsed.data);
  }

  const unchanged = username.trim() === settings.username;

  return (
    <SettingsCard id="account" icon={<UserIcon />} title={t('settings.account.title')} description={t('settings.account.description')}>
      <form className="grid gap-4 sm:grid-cols-2" onSubmit={submit} noValidate>
        <TextField
          id="settings-username"
          label={t('settings.account.username')}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          {...errors.bind('username', setUsername)}
          hint={t('settings.account.usernameHint')}
        />
        <div className="flex justify-end sm:col-span-2">
          <button type="submit" className="btn btn-primary" disabled={update.isPending || unchanged} aria-busy={update.isPending}>
            {update.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {update.isPending ? t('settings.saving') : t('settings.account.save')}
          </button>
        </div>
      </form>
    </SettingsCard>
  );
}
