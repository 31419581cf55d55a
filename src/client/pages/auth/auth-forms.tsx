import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { PASSWORD_MIN_LENGTH } from '../../../shared/auth.ts';
import { fieldErrorsOf, serverMessage, type CurrentUser } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { PasswordField, TextField } from '../../components/form-fields.tsx';

type FieldErrors = Record<string, string>;
/** What the alert says: the server's own words, or our generic text when it never answered. */
type FormError = { kind: 'server'; message: string } | { kind: 'generic' } | null;

function FormAlert({ error }: { error: FormError }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <div role="alert" className="alert alert-error alert-soft text-sm">
      <span>{error.kind === 'server' ? error.message : t('auth.genericError')}</span>
    </div>
  );
}

function SubmitButton({ pending, label, pendingLabel }: { pending: boolean; label: string; pendingLabel: string }) {
  return (
    <button type="submit" className="btn btn-primary mt-2 w-full" disabled={pending} aria-busy={pending}>
      {pending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
      {pending ? pendingLabel : label}
    </button>
  );
}

/** Keeps the signed-in user in the cache and refreshes everything else that may depend on who is signed in. */
function useStoreSignedInUser() {
  const utils = trpc.useUtils();
  return (user: CurrentUser) => {
    utils.auth.me.setData(undefined, user);
    void utils.invalidate();
  };
}

/** Field and form errors of one form: set by local checks before sending, or from the server's answer. */
function useFormErrors() {
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<FormError>(null);
  return {
    fieldErrors,
    formError,
    /** Shows the local check's errors; true when there are none and the form may be sent. */
    acceptLocalCheck(errors: FieldErrors): boolean {
      setFieldErrors(errors);
      setFormError(null);
      return Object.keys(errors).length === 0;
    },
    showServerError(error: unknown) {
      const message = serverMessage(error);
      setFieldErrors(fieldErrorsOf(error));
      setFormError(message ? { kind: 'server', message } : { kind: 'generic' });
    },
    clear(field: string) {
      setFieldErrors(({ [field]: _removed, ...rest }) => rest);
    },
  };
}

export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const { t } = useTranslation();
  const storeUser = useStoreSignedInUser();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const errors = useFormErrors();

  const login = trpc.auth.login.useMutation({
    onSuccess: (user) => {
      // Leave the page first so the "already signed in" redirect of /auth never races this one.
      onSignedIn();
      storeUser(user);
    },
    onError: errors.showServerError,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found: FieldErrors = {};
    if (!username.trim()) found.username = t('auth.validation.usernameOrEmailRequired');
    if (!password) found.password = t('auth.validation.passwordRequired');
    if (!errors.acceptLocalCheck(found)) return;
    login.mutate({ username: username.trim(), password });
  }

  return (
    <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
      <FormAlert error={errors.formError} />
      <TextField
        id="username"
        label={t('auth.fields.usernameOrEmail')}
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        value={username}
        onValueChange={(value) => {
          setUsername(value);
          errors.clear('username');
        }}
        error={errors.fieldErrors.username}
      />
      <PasswordField
        id="password"
        label={t('auth.fields.password')}
        autoComplete="current-password"
        value={password}
        onValueChange={(value) => {
          setPassword(value);
          errors.clear('password');
        }}
        error={errors.fieldErrors.password}
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
  const errors = useFormErrors();

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
      <FormAlert error={errors.formError} />
      <TextField
        id="register-username"
        label={t('auth.fields.username')}
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        value={username}
        onValueChange={(value) => {
          setUsername(value);
          errors.clear('username');
        }}
        error={errors.fieldErrors.username}
        hint={t('auth.hints.username')}
      />
      <TextField
        id="register-email"
        type="email"
        label={t('auth.fields.email')}
        autoComplete="email"
        inputMode="email"
        value={email}
        onValueChange={(value) => {
          setEmail(value);
          errors.clear('email');
        }}
        error={errors.fieldErrors.email}
      />
      <PasswordField
        id="register-password"
        label={t('auth.fields.password')}
        autoComplete="new-password"
        value={password}
        onValueChange={(value) => {
          setPassword(value);
          errors.clear('password');
        }}
        error={errors.fieldErrors.password}
        hint={t('auth.hints.password', { count: PASSWORD_MIN_LENGTH })}
      />
      <SubmitButton pending={register.isPending} label={t('auth.actions.register')} pendingLabel={t('auth.actions.registering')} />
    </form>
  );
}
