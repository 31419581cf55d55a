import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { LockIcon } from 'lucide-react';
import { PASSWORD_MIN_LENGTH } from '../../../shared/auth.ts';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { localizeFieldErrors } from '../account-shared/messages.ts';
import { PasswordField } from '../../components/form-fields.tsx';
import { SubmitButton, useFieldErrors, type FieldErrors } from '../../components/form-state.tsx';
import { SettingsCard } from './settings-card.tsx';

const EMPTY = { currentPassword: '', newPassword: '', confirmPassword: '' };
type PasswordFields = typeof EMPTY;

/** Current, new and confirmed new password. Other sessions of the account are signed out by the server. */
export function PasswordSection() {
  const { t } = useTranslation('account');
  const [fields, setFields] = useState<PasswordFields>(EMPTY);
  const { fieldErrors: errors, setFieldErrors: setErrors, clear } = useFieldErrors();

  const change = trpc.settings.changePassword.useMutation({
    onSuccess: () => {
      setFields(EMPTY);
      setErrors({});
      toast({ title: t('settings.password.saved.title'), description: t('settings.password.saved.description'), variant: 'success' });
    },
    onError: (error) => {
      setErrors(localizeFieldErrors(t, fieldErrorsOf(error)));
      toast({ title: t('settings.password.failed.title'), description: t('settings.password.failed.description'), variant: 'destructive' });
    },
  });

  function set(field: keyof PasswordFields, value: string) {
    setFields((current) => ({ ...current, [field]: value }));
    clear(field);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found: FieldErrors = {};
    if (!fields.currentPassword) found.currentPassword = t('serverMessages.currentPasswordRequired');
    if (fields.newPassword.length < PASSWORD_MIN_LENGTH) found.newPassword = t('serverMessages.passwordTooShort');
    if (fields.confirmPassword !== fields.newPassword) found.confirmPassword = t('serverMessages.passwordsDoNotMatch');
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    change.mutate(fields);
  }

  return (
    <SettingsCard id="password" icon={<LockIcon />} title={t('settings.password.title')} description={t('settings.password.description')}>
      <form className="grid gap-4" onSubmit={submit} noValidate>
        <PasswordField
          id="current-password"
          label={t('settings.password.current')}
          autoComplete="current-password"
          value={fields.currentPassword}
          onValueChange={(value) => set('currentPassword', value)}
          error={errors.currentPassword}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <PasswordField
            id="new-password"
            label={t('settings.password.new')}
            autoComplete="new-password"
            value={fields.newPassword}
            onValueChange={(value) => set('newPassword', value)}
            error={errors.newPassword}
            hint={t('settings.password.hint', { count: PASSWORD_MIN_LENGTH })}
          />
          <PasswordField
            id="confirm-password"
            label={t('settings.password.confirm')}
            autoComplete="new-password"
            value={fields.confirmPassword}
            onValueChange={(value) => set('confirmPassword', value)}
            error={errors.confirmPassword}
          />
        </div>
        <div className="flex flex-col-reverse gap-3 sm:flex-row sm:items-center sm:justify-between">
          <p className="text-base-content/70 text-xs">{t('settings.password.othersSignedOut')}</p>
          <SubmitButton pending={change.isPending} label={t('settings.password.save')} pendingLabel={t('settings.saving')} className="shrink-0" />
        </div>
      </form>
    </SettingsCard>
  );
}
