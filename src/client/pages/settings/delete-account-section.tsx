import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Trash2Icon } from 'lucide-react';
import { ACCOUNT_DELETION_GRACE_DAYS } from '../../../shared/privacy.ts';
import { PasswordField } from '../../components/form-fields.tsx';
import { fieldErrorsOf } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { errorText, localizeFieldErrors } from '../account-shared/messages.ts';
import { SettingsCard } from './settings-card.tsx';

/** Deleting the account: the password again, then the account is disabled and deleted after the grace period. */
export function DeleteAccountSection() {
  const { t } = useTranslation('account');
  const [currentPassword, setCurrentPassword] = useState('');
  const [error, setError] = useState<string | undefined>();

  const remove = trpc.settings.deleteAccount.useMutation({
    // Signed out by the server: a full navigation leaves no signed-in state behind.
    onSuccess: () => window.location.assign('/auth'),
    onError: (failure) => {
      const fields = localizeFieldErrors(t, fieldErrorsOf(failure));
      setError(fields.currentPassword ?? errorText(t, failure));
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!currentPassword) {
      setError(t('serverMessages.currentPasswordRequired'));
      return;
    }
    remove.mutate({ currentPassword });
  }

  return (
    <SettingsCard id="delete-account" icon={<Trash2Icon />} title={t('settings.deleteAccount.title')} description={t('settings.deleteAccount.description')}>
      <form className="grid gap-4" onSubmit={submit} noValidate data-testid="delete-account">
        <p className="text-base-content/80 text-sm">{t('settings.deleteAccount.explanation', { days: ACCOUNT_DELETION_GRACE_DAYS })}</p>
        <PasswordField
          id="delete-account-password"
          label={t('settings.deleteAccount.password')}
          autoComplete="current-password"
          value={currentPassword}
          onValueChange={(value) => {
            setCurrentPassword(value);
            setError(undefined);
          }}
          error={error}
        />
        <div className="flex justify-end">
          <button type="submit" className="btn btn-error w-full sm:w-auto" disabled={remove.isPending} aria-busy={remove.isPending}>
            {remove.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {t('settings.deleteAccount.confirm')}
          </button>
        </div>
      </form>
    </SettingsCard>
  );
}
