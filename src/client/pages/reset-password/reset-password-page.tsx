import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { CheckIcon, KeyRoundIcon } from 'lucide-react';
import { PASSWORD_MIN_LENGTH } from '../../../shared/auth.ts';
import { RESET_LINK_INVALID_MESSAGE } from '../../../shared/settings.ts';
import { fieldErrorsOf, serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AuthCardShell, AuthOutcome, BackToSignIn } from '../account-shared/auth-card-shell.tsx';
import { errorText, localizeFieldErrors } from '../account-shared/messages.ts';
import { PasswordField } from '../../components/form-fields.tsx';
import { FormAlert, SubmitButton, useFieldErrors, type FieldErrors } from '../../components/form-state.tsx';

/** /reset-password?token=...: the new password, twice. The link works once, for 60 minutes. */
export function ResetPasswordPage() {
  const { t } = useTranslation('account');
  const token = new URLSearchParams(useSearch()).get('token')?.trim() ?? '';
  const [newPassword, setNewPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const errors = useFieldErrors();
  const [formError, setFormError] = useState<string | null>(null);
  const reset = trpc.auth.resetPassword.useMutation({
    onError: (error) => {
      const fieldErrors = fieldErrorsOf(error);
      errors.setFieldErrors(localizeFieldErrors(t, fieldErrors));
      setFormError(Object.keys(fieldErrors).length > 0 ? null : errorText(t, error));
    },
  });

  if (!token || (reset.isError && serverMessage(reset.error) === RESET_LINK_INVALID_MESSAGE)) {
    return (
      <AuthCardShell>
        <AuthOutcome
          tone="warning"
          icon={<KeyRoundIcon />}
          title={t('reset.invalidTitle')}
          body={t('reset.invalidLink')}
          role="alert"
          testId="reset-invalid"
        >
          <Link href="/forgot-password" className="btn btn-primary mt-2">
            {t('reset.requestNew')}
          </Link>
        </AuthOutcome>
        <BackToSignIn />
      </AuthCardShell>
    );
  }

  if (reset.isSuccess) {
    return (
      <AuthCardShell>
        <AuthOutcome
          tone="success"
          icon={<CheckIcon />}
          title={t('reset.doneTitle')}
          body={t('reset.doneBody')}
          role="status"
          testId="reset-done"
        >
          <Link href="/auth" className="btn btn-primary mt-2 w-full">
            {t('reset.signIn')}
          </Link>
        </AuthOutcome>
      </AuthCardShell>
    );
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const found: FieldErrors = {};
    if (newPassword.length < PASSWORD_MIN_LENGTH) found.newPassword = t('serverMessages.passwordTooShort');
    // An empty confirmation is not flagged while the new password itself still needs fixing: the
    // mismatch then shows once something is typed there, or on a submit with a valid new password.
    if (confirmPassword !== newPassword && (confirmPassword !== '' || !found.newPassword)) {
      found.confirmPassword = t('serverMessages.passwordsDoNotMatch');
    }
    errors.setFieldErrors(found);
    if (Object.keys(found).length > 0) return;
    reset.mutate({ token, newPassword, confirmPassword });
  }

  return (
    <AuthCardShell>
      <div>
        <h1 className="text-xl font-semibold">{t('reset.title')}</h1>
        <p className="text-base-content/70 mt-1 text-sm">{t('reset.description')}</p>
      </div>
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        <FormAlert message={formError} />
        <PasswordField
          id="reset-new-password"
          label={t('reset.newPassword')}
          autoComplete="new-password"
          value={newPassword}
          {...errors.bind('newPassword', setNewPassword)}
          hint={t('settings.password.hint', { count: PASSWORD_MIN_LENGTH })}
        />
        <PasswordField
          id="reset-confirm-password"
          label={t('reset.confirmPassword')}
          autoComplete="new-password"
          value={confirmPassword}
          {...errors.bind('confirmPassword', setConfirmPassword)}
        />
        <SubmitButton pending={reset.isPending} label={t('reset.submit')} pendingLabel={t('reset.saving')} className="w-full" />
      </form>
      <BackToSignIn />
    </AuthCardShell>
  );
}
