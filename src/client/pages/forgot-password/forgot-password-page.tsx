import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MailIcon } from 'lucide-react';
import { fieldErrorsOf } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AuthCardShell, BackToSignIn } from '../account-shared/auth-card-shell.tsx';
import { errorText, localizeServerText } from '../account-shared/messages.ts';
import { TextField } from '../../components/form-fields.tsx';

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
        <div className="flex flex-col items-center gap-3 text-center">
          <span className="bg-success/15 text-success grid size-12 place-items-center rounded-full text-2xl" aria-hidden="true">
            <MailIcon />
          </span>
          <h1 className="text-xl font-semibold">{t('forgot.sentTitle')}</h1>
          <p role="status" className="text-base-content/80 text-sm" data-testid="reset-requested">
            {t('forgot.sent')}
          </p>
          <p className="text-base-content/70 text-xs">{t('forgot.sentHint')}</p>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => request.reset()}>
            {t('forgot.again')}
          </button>
        </div>
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
        {formError && (
          <div role="alert" className="alert alert-error alert-soft text-sm">
            <span>{formError}</span>
          </div>
        )}
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
        <button type="submit" className="btn btn-primary w-full" disabled={request.isPending} aria-busy={request.isPending}>
          {request.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {request.isPending ? t('forgot.sending') : t('forgot.submit')}
        </button>
      </form>
      <BackToSignIn />
    </AuthCardShell>
  );
}
