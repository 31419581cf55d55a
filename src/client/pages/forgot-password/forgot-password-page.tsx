import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MailIcon } from 'lucide-react';
import { fieldErrorsOf } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AuthCardShell, AuthOutcome, BackToSignIn } from '../account-shared/auth-card-shell.tsx';
import { errorText, localizeServerText } from '../account-shared/messages.ts';
import { TextField } from '../../components/form-fields.tsx';
import { FormAlert, SubmitButton } from '../../components/form-state.tsx';

/** /forgot-password: asks for the account's e-mail; the answer never says whether the account exists. */
export function ForgotPasswordPage() {
  const { t } = useTranslation('account');
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const request = trpc.auth.requestPasswordReset.useMutation({
    onError: (error) => {
      const fieldMessage = fieldErrorsOf(error).email;
      setFieldError(fieldMessage ? localizeServerText(t, fieldMessage) : undefined);
      setFormError(fieldMessage ? null : errorText(t, error));
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const trimmed = email.trim();
    if (!trimmed) return setFieldError(t('forgot.emailRequired'));
    if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) return setFieldError(t('serverMessages.emailInvalid'));
    setFieldError(undefined);
    request.mutate({ email: trimmed });
  }

  if (request.isSuccess) {
    return (
      <AuthCardShell>
        <AuthOutcome tone="success" icon={<MailIcon />} title={t('forgot.sentTitle')} body={t('forgot.sent')} role="status" bodyTestId="reset-requested">
          <p className="text-base-content/70 text-xs">{t('forgot.sentHint')}</p>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => request.reset()}>
            {t('forgot.again')}
          </button>
        </AuthOutcome>
        <BackToSignIn />
      </AuthCardShell>
    );
  }

  return (
    <AuthCardShell>
      <div>
        <h1 className="text-xl font-semibold">{t('forgot.title')}</h1>
        <p className="text-base-content/70 mt-1 text-sm">{t('forgot.description')}</p>
      </div>
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        <FormAlert message={formError} />
        <TextField
          id="forgot-email"
          type="email"
          label={t('forgot.email')}
          autoComplete="email"
          inputMode="email"
          value={email}
          onValueChange={(value) => {
            setEmail(value);
            setFieldError(undefined);
          }}
          error={fieldError}
        />
        <SubmitButton pending={request.isPending} label={t('forgot.submit')} pendingLabel={t('forgot.sending')} className="w-full" />
      </form>
      <BackToSignIn />
    </AuthCardShell>
  );
}
