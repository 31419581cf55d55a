import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { PASSWORD_MIN_LENGTH } from '../../../shared/auth.ts';
import { ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE } from '../../../shared/privacy.ts';
import { serverMessage, type CurrentUser } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { PasswordField, TextField } from '../../components/form-fields.tsx';
import { FormAlert, SubmitButton, useFormErrors, type FieldErrors } from '../../components/form-state.tsx';

/** Keeps the signed-in user in the cache and refreshes everything else that may depend on who is signed in. */
function useStoreSignedInUser() {
  const utils = trpc.useUtils();
  return (user: CurrentUser) => {
    utils.auth.me.setData(undefined, user);
    void utils.invalidate();
  };
}

export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const { t } = useTranslation();
  const storeUser = useStoreSignedInUser();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const errors = useFormErrors(t('auth.genericError'));

  const login = trpc.auth.login.useMutation({
    onSuccess: (user) => {
      // Leave the page first so the "already signed in" redirect of /auth never races this one.
      onSignedIn();
      storeUser(user);
    },
    onError: (error) => {
      // An account scheduled for deletion: not an error of the form, a choice (below).
      if (serverMessage(error) === ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE) setScheduledForDeletion(true);
      else errors.showServerError(error);
    },
  });
  const [scheduledForDeletion, setScheduledForDeletion] = useState(false);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setScheduledForDeletion(false);
    const found: FieldErrors = {};
    if (!username.trim()) found.username = t('auth.validation.usernameOrEmailRequired');
    if (!password) found.password = t('auth.validation.passwordRequired');
    if (!errors.acceptLocalCheck(found)) return;
    login.mutate({ username: username.trim(), password });
  }

  return (
    <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
      <FormAlert message={errors.formError} />
      {scheduledForDeletion && (
        <div role="alert" className="alert alert-warning alert-soft flex flex-col items-start gap-3 text-sm" data-testid="scheduled-for-deletion">
          <span>{t('auth.scheduledForDeletion.body')}</span>
          <button type="button" className="btn btn-sm btn-warning" disabled={login.isPending} onClick={() => login.mutate({ username: username.trim(), password, cancelDeletion: true })}>
            {t('auth.scheduledForDeletion.cancel')}
          </button>
        </div>
      )}
      <TextField
        id="username"
        label={t('auth.fields.usernameOrEmail')}
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        value={username}
        {...errors.bind('username', setUsername)}
      />
      <PasswordField
        id="password"
        label={t('auth.fields.password')}
        autoComplete="current-password"
        value={password}
        {...errors.bind('password', setPassword)}
      />
      <Link href="/forgot-password" className="link link-hover text-base-content/80 -mt-2 self-end text-sm">
        {t('account:forgot.link')}
      </Link>
      <SubmitButton pending={login.isPending} label={t('auth.actions.signIn')} pendingLabel={t('auth.actions.signingIn')} />
    </form>
  );
}

export function RegisterForm({ onRegistered }: { onRegistered: () => void }) {
  const { t } = useTranslation();
  const storeUser = useStoreSignedInUser();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const errors = useFormErrors(t('auth.genericError'));

  const register = trpc.auth.register.useMutation({
    onSuccess: (user) => {
      onRegistered();
      storeUser(user);
    },
    onError: errors.showServerError,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found: FieldErrors = {};
    if (!username.trim()) found.username = t('auth.validation.usernameRequired');
    if (!email.trim()) found.email = t('auth.validation.emailRequired');
    else if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) found.email = t('auth.validation.emailInvalid');
    if (password.length < PASSWORD_MIN_LENGTH) found.password = t('auth.validation.passwordTooShort', { count: PASSWORD_MIN_LENGTH });
    if (!errors.acceptLocalCheck(found)) return;
    register.mutate({ username: username.trim(), email: email.trim(), password });
  }

  return (
    <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
      <FormAlert message={errors.formError} />
      <TextField
        id="register-username"
        label={t('auth.fields.username')}
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        value={username}
        {...errors.bind('username', setUsername)}
        hint={t('auth.hints.username')}
      />
      <TextField
        id="register-email"
        type="email"
        label={t('auth.fields.email')}
        autoComplete="email"
        inputMode="email"
        value={email}
        {...errors.bind('email', setEmail)}
      />
      <PasswordField
        id="register-password"
        label={t('auth.fields.password')}
        autoComplete="new-password"
        value={password}
        {...errors.bind('password', setPassword)}
        hint={t('auth.hints.password', { count: PASSWORD_MIN_LENGTH })}
      />
      <SubmitButton pending={register.isPending} label={t('auth.actions.register')} pendingLabel={t('auth.actions.registering')} />
    </form>
  );
}
