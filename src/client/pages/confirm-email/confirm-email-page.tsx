import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { CheckIcon, MailWarningIcon } from 'lucide-react';
import { EMAIL_CHANGE_LINK_INVALID_MESSAGE } from '../../../shared/settings.ts';
import { useAuth } from '../../lib/auth.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AuthCardShell, AuthOutcome, BackToSignIn } from '../account-shared/auth-card-shell.tsx';
import { errorText } from '../account-shared/messages.ts';
import { FormAlert } from '../../components/form-state.tsx';

/**
 * /confirm-email?token=...: the link e-mailed to a new address. The change happens on a click, not on
 * opening the page, so a mail scanner that fetches links does not use it up.
 */
export function ConfirmEmailPage() {
  const { t } = useTranslation('account');
  const { session } = useAuth();
  const utils = trpc.useUtils();
  const token = new URLSearchParams(useSearch()).get('token')?.trim() ?? '';
  const confirm = trpc.settings.confirmEmailChange.useMutation({
    onSuccess: () => void utils.invalidate(),
  });
  const signedIn = session.status === 'signedIn';

  if (!token || (confirm.isError && serverMessage(confirm.error) === EMAIL_CHANGE_LINK_INVALID_MESSAGE)) {
    return (
      <AuthCardShell>
        <AuthOutcome tone="warning" icon={<MailWarningIcon />} title={t('confirmEmail.invalidTitle')} body={t('confirmEmail.invalidBody')} role="alert" testId="confirm-email-invalid">
          <Link href="/settings#email" className="btn btn-primary mt-2">
            {t('confirmEmail.toSettings')}
          </Link>
        </AuthOutcome>
      </AuthCardShell>
    );
  }

  if (confirm.isSuccess) {
    return (
      <AuthCardShell>
        <AuthOutcome
          tone="success"
          icon={<CheckIcon />}
          title={t('confirmEmail.doneTitle')}
          body={t('confirmEmail.doneBody', { email: confirm.data.email })}
          role="status"
          testId="confirm-email-done"
        >
          <Link href={signedIn ? '/settings' : '/auth'} className="btn btn-primary mt-2 w-full">
            {signedIn ? t('confirmEmail.toSettings') : t('reset.signIn')}
          </Link>
        </AuthOutcome>
      </AuthCardShell>
    );
  }

  return (
    <AuthCardShell>
      <div>
        <h1 className="text-xl font-semibold">{t('confirmEmail.title')}</h1>
        <p className="text-base-content/70 mt-1 text-sm">{t('confirmEmail.description')}</p>
      </div>
      <FormAlert message={confirm.isError ? errorText(t, confirm.error) : null} />
      <button type="button" className="btn btn-primary w-full" onClick={() => confirm.mutate({ token })} disabled={confirm.isPending} aria-busy={confirm.isPending}>
        {confirm.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
        {confirm.isPending ? t('confirmEmail.confirming') : t('confirmEmail.confirm')}
      </button>
      <BackToSignIn />
    </AuthCardShell>
  );
}
