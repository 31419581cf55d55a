import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { CheckIcon, KeyRoundIcon } from 'lucide-react';
import { PASSWORD_MIN_LENGTH } from '../../../shared/auth.ts';
import { RESET_LINK_INVALID_MESSAGE } from '../../../shared/settings.ts';
import { fieldErrorsOf, serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AuthCardShell, BackToSignIn } from '../account-shared/auth-card-shell.tsx';
import { errorText, localizeFieldErrors } from '../account-shared/messages.ts';
import { PasswordField } from '../../components/form-fields.tsx';

function InvalidLink() {
  const { t } = useTranslation('account');
  return (
    <AuthCardShell>
      <div className="flex flex-col items-center gap-3 text-center" data-testid="reset-invalid">
        <span className="bg-warning/15 text-warning grid size-12 place-items-center rounded-full text-2xl" aria-hidden="true">
          <KeyRoundIcon />
        </span>
        <h1 className="text-xl font-semibold">{t('reset.invalidTitle')}</h1>
        <p role="alert" className="text-base-content/80 text-sm">
          {t('reset.invalidLink')}
        </p>
        <Link href="/forgot-password" className="btn btn-primary mt-2">
          {t('reset.requestNew')}
        </Link>
      </div>
      <BackToSignIn />
    </AuthCardShell>
  );
}

/** /reset-password?token=...: the new password, twice. The link works once, for 60 minutes. */
export function ResetPasswordPage() {
  const { t } = useTranslation('account');
  const token = new URLSearchParams(useSearch()).get('token')?.trim() ?? '';
  const [newPassword, setNewPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const reset = trpc.auth.resetPassword.useMutation({
    onError: (error) => {
      const fieldErrors = fieldErrorsOf(error);
      setErrors(localizeFieldErrors(t, fieldErrors));
      setFormError(Object.keys(fieldErrors).length > 0 ? null : errorText(t, error));
    },
  });

  if (!token || (reset.isError && serverMessage(reset.error) === RESET_LINK_INVALID_MESSAGE)) return <InvalidLink />;

  if (reset.isSuccess) {
    return (
      <AuthCardShell>
        <div className="flex flex-col items-center gap-3 text-center" data-testid="reset-done">
          <span className="bg-success/15 text-success grid size-12 place-items-center rounded-full text-2xl" aria-hidden="true">
            <CheckIcon />
          </span>
          <h1 className="text-xl font-semibold">{t('reset.doneTitle')}</h1>
          <p role="status" className="text-base-content/80 text-sm">
            {t('reset.doneBody')}
          </p>
          <Link href="/auth" className="btn btn-primary mt-2 w-full">
            {t('reset.signIn')}
          </Link>
        </div>
      </AuthCardShell>
    );
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const found: Record<string, string> = {};
    if (newPassword.length < PASSWORD_MIN_LENGTH) found.newPassword = t('serverMessages.passwordTooShort');
    if (confirmPassword !== newPassword) found.confirmPassword = t('serverMessages.passwordsDoNotMatch');
    setErrors(found);
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
        {formError && (
          <div role="alert" className="alert alert-error alert-soft text-sm">
            <span>{formError}</span>
          </div>
        )}
        <PasswordField
          id="reset-new-password"
          label={t('reset.newPassword')}
          autoComplete="new-password"
          value={newPassword}
          onValueChange={(value) => {
            setNewPassword(value);
            setErrors(({ newPassword: _gone, ...rest }) => rest);
          }}
          error={errors.newPassword}
          hint={t('settings.password.hint', { count: PASSWORD_MIN_LENGTH })}
        />
        <PasswordField
          id="reset-confirm-password"
          label={t('reset.confirmPassword')}
          autoComplete="new-password"
          value={confirmPassword}
          onValueChange={(value) => {
            setConfirmPassword(value);
            setErrors(({ confirmPassword: _gone, ...rest }) => rest);
          }}
          error={errors.confirmPassword}
        />
        <button type="submit" className="btn btn-primary w-full" disabled={reset.isPending} aria-busy={reset.isPending}>
          {reset.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {reset.isPending ? t('reset.saving') : t('reset.submit')}
        </button>
      </form>
      <BackToSignIn />
    </AuthCardShell>
  );
}
