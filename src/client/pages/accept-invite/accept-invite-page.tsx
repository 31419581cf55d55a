import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { CircleCheckIcon, ClockIcon, Link2OffIcon, MailIcon } from 'lucide-react';
import { PASSWORD_MIN_LENGTH } from '../../../shared/auth.ts';
import type { InvitationDto } from '../../../shared/guests.ts';
import { Brand } from '../../components/brand.tsx';
import { LanguageMenu } from '../../components/language-menu.tsx';
import { ThemeMenu } from '../../components/theme-menu.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage, useSession, type CurrentUser } from '../../lib/session.ts';
import { FormAlert, SubmitButton, useFormErrors, type FieldErrors } from '../../components/form-state.tsx';
import { trpc } from '../../lib/trpc.ts';
import { PasswordField, TextField } from '../../components/form-fields.tsx';
import { useDates } from '../admin/ui.tsx';

/** /accept-invite?token=...: what the invitation is for, then accept it (signing up first if needed). */
export function AcceptInvitePage() {
  const { t } = useTranslation('guests');
  const token = new URLSearchParams(useSearch()).get('token')?.trim() ?? '';
  const session = useSession();
  const invitation = trpc.guests.invitation.useQuery({ token }, { enabled: token !== '', retry: false, staleTime: 0 });
  // Set once accepted: the page then only says it is opening the dashboard while the caches refresh.
  const [finishing, setFinishing] = useState<string | null>(null);

  let content: ReactNode;
  if (finishing !== null) {
    content = (
      <div className="flex flex-col items-center gap-3 py-16" role="status" aria-live="polite">
        <span className="loading loading-spinner loading-lg text-primary" aria-hidden="true" />
        <p className="text-base-content/70 text-sm">{t('accept.opening', { store: finishing })}</p>
      </div>
    );
  } else if (!token) {
    content = <StateCard tone="error" icon={<Link2OffIcon />} title={t('accept.missing.title')} body={t('accept.missing.body')} action={<HomeLink />} />;
  } else if (invitation.isPending || session.status === 'loading') {
    content = (
      <div className="flex flex-col items-center gap-3 py-16" role="status" aria-live="polite">
        <span className="loading loading-spinner loading-lg text-primary" aria-hidden="true" />
        <p className="text-base-content/70 text-sm">{t('accept.loading')}</p>
      </div>
    );
  } else if (invitation.isError) {
    const notFound = invitation.error.data?.code === 'NOT_FOUND';
    content = (
      <StateCard
        tone="error"
        icon={<Link2OffIcon />}
        title={notFound ? t('accept.notFound.title') : t('accept.loadFailed.title')}
        body={notFound ? t('accept.notFound.body') : (serverMessage(invitation.error) ?? t('common.networkError'))}
        action={
          notFound ? (
            <HomeLink />
          ) : (
            <button type="button" className="btn btn-primary" onClick={() => void invitation.refetch()}>
              {t('common.retry')}
            </button>
          )
        }
      />
    );
  } else {
    content = (
      <InvitationView token={token} invitation={invitation.data} user={session.status === 'signedIn' ? session.user : null} onAccepted={setFinishing} />
    );
  }

  return (
    <div className="flex min-h-screen flex-col">
      <header className="flex items-center gap-2 px-4 py-3 sm:px-6">
        <Link href="/" className="rounded-lg" aria-label={t('accept.home')}>
          <Brand />
        </Link>
        <div className="ml-auto flex gap-1">
          <LanguageMenu />
          <ThemeMenu />
        </div>
      </header>
      <main className="flex flex-1 flex-col items-center px-4 pt-4 pb-16 sm:pt-10">
        <div className="w-full max-w-lg">{content}</div>
      </main>
    </div>
  );
}

function HomeLink() {
  const { t } = useTranslation('guests');
  return (
    <Link href="/" className="btn btn-ghost">
      {t('accept.goHome')}
    </Link>
  );
}

function StateCard({ tone, icon, title, body, action }: { tone: 'error' | 'warning' | 'success'; icon: ReactNode; title: string; body: string; action?: ReactNode }) {
  const toneClass = { error: 'bg-error/10 text-error', warning: 'bg-warning/15 text-warning', success: 'bg-success/15 text-success' }[tone];
  return (
    <div className="card bg-base-100 border-base-content/10 border shadow-xl" data-testid="invite-state">
      <div className="card-body items-center gap-3 p-6 text-center sm:p-8">
        <span className={`grid size-14 place-items-center rounded-2xl text-3xl ${toneClass}`} aria-hidden="true">
          {icon}
        </span>
        <h1 className="text-xl font-semibold text-balance break-words">{title}</h1>
        <p className="text-base-content/75 text-pretty">{body}</p>
        {action && <div className="mt-2 flex flex-wrap justify-center gap-2">{action}</div>}
      </div>
    </div>
  );
}

function signInPath(token: string): string {
  return `/auth?redirect=${encodeURIComponent(`/accept-invite?token=${token}`)}`;
}

type OnAccepted = (storeName: string) => void;

function InvitationView({ token, invitation, user, onAccepted }: { token: string; invitation: InvitationDto; user: CurrentUser | null; onAccepted: OnAccepted }) {
  const { t } = useTranslation('guests');
  const dates = useDates();

  if (invitation.status === 'expired' || invitation.status === 'revoked') {
    return (
      <StateCard
        tone="warning"
        icon={<ClockIcon />}
        title={t(`accept.${invitation.status}.title`)}
        body={t(`accept.${invitation.status}.body`, { inviter: invitation.inviterName, store: invitation.storeName })}
        action={
          <Link href={user ? '/dashboard' : '/auth'} className="btn btn-ghost">
            {user ? t('accept.goToDashboard') : t('accept.signIn')}
          </Link>
        }
      />
    );
  }
  if (invitation.status === 'accepted') {
    return (
      <StateCard
        tone="success"
        icon={<CircleCheckIcon />}
        title={t('accept.accepted.title')}
        body={t('accept.accepted.body', { store: invitation.storeName })}
        action={
          <Link href={user ? '/dashboard' : signInPath(token)} className="btn btn-primary">
            {user ? t('accept.goToDashboard') : t('accept.signIn')}
          </Link>
        }
      />
    );
  }

  const sameEmail = user !== null && user.email.trim().toLowerCase() === invitation.email.trim().toLowerCase();
  return (
    <div className="card bg-base-100 border-base-content/10 border shadow-xl">
      <div className="card-body gap-5 p-6 sm:p-8">
        <div className="flex items-start gap-4">
          <span className="bg-primary/10 text-primary grid size-12 shrink-0 place-items-center rounded-2xl text-2xl" aria-hidden="true">
            <MailIcon />
          </span>
          <div className="min-w-0">
            <h1 className="text-xl font-semibold text-balance break-words">{t('accept.title', { inviter: invitation.inviterName, store: invitation.storeName })}</h1>
            <p className="text-base-content/75 mt-1 text-sm">{t('accept.subtitle')}</p>
          </div>
        </div>

        <dl className="bg-base-200/60 rounded-box grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 p-4 text-sm" data-testid="invitation-details">
          <dt className="text-base-content/70">{t('accept.details.store')}</dt>
          <dd className="font-medium break-words">{invitation.storeName}</dd>
          <dt className="text-base-content/70">{t('accept.details.inviter')}</dt>
          <dd className="font-medium break-words">{invitation.inviterName}</dd>
          <dt className="text-base-content/70">{t('accept.details.email')}</dt>
          <dd className="font-medium break-all">{invitation.email}</dd>
          <dt className="text-base-content/70">{t('accept.details.expires')}</dt>
          <dd className="font-medium">{dates.date(invitation.expiresAt)}</dd>
        </dl>

        {user === null ? (
          <RegisterAndAccept token={token} invitation={invitation} onAccepted={onAccepted} />
        ) : sameEmail ? (
          <AcceptButton token={token} storeName={invitation.storeName} onAccepted={onAccepted} />
        ) : (
          <WrongAccount user={user} invitation={invitation} />
        )}
      </div>
    </div>
  );
}

/** After accepting: fresh answers for who may see what, then the dashboard of the shared store. */
function useAfterAccept(onAccepted: OnAccepted) {
  const { t } = useTranslation('guests');
  const utils = trpc.useUtils();
  const [, navigate] = useLocation();
  return async (storeName: string) => {
    onAccepted(storeName);
    toast({ title: t('accept.done.title'), description: t('accept.done.description', { store: storeName }), variant: 'success' });
    await utils.invalidate();
    await Promise.allSettled([utils.auth.me.fetch(), utils.subscription.current.fetch(), utils.stores.list.fetch(), utils.stores.active.fetch()]);
    navigate('/dashboard');
  };
}

function AcceptButton({ token, storeName, onAccepted }: { token: string; storeName: string; onAccepted: OnAccepted }) {
  const { t } = useTranslation('guests');
  const afterAccept = useAfterAccept(onAccepted);
  const accept = trpc.guests.accept.useMutation({
    onSuccess: (result) => afterAccept(result.storeName),
    onError: (error) => toast({ title: t('accept.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  });
  return (
    <div className="flex flex-col gap-2">
      <button type="button" className="btn btn-primary w-full" onClick={() => accept.mutate({ token })} disabled={accept.isPending} aria-busy={accept.isPending}>
        {accept.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
        {t('accept.submit')}
      </button>
      <p className="text-base-content/70 text-center text-xs">{t('accept.readOnlyNote', { store: storeName })}</p>
    </div>
  );
}

function WrongAccount({ user, invitation }: { user: CurrentUser; invitation: InvitationDto }) {
  const { t } = useTranslation('guests');
  const logout = trpc.auth.logout.useMutation({
    // Back to this same link, signed out: it then offers to sign up or sign in with the invited address.
    onSettled: () => window.location.reload(),
  });
  return (
    <div className="flex flex-col gap-3">
      <div role="alert" className="alert alert-warning alert-soft items-start text-sm break-words">
        <span>{t('accept.wrongAccount', { username: user.username, email: user.email, invited: invitation.email })}</span>
      </div>
      <button type="button" className="btn btn-outline w-full" onClick={() => logout.mutate()} disabled={logout.isPending} aria-busy={logout.isPending}>
        {logout.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
        {logout.isPending ? t('accept.loggingOut') : t('accept.logout')}
      </button>
    </div>
  );
}

function RegisterAndAccept({ token, invitation, onAccepted }: { token: string; invitation: InvitationDto; onAccepted: OnAccepted }) {
  const { t } = useTranslation('guests');
  const afterAccept = useAfterAccept(onAccepted);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const errors = useFormErrors(t('common.networkError'));

  const accept = trpc.guests.accept.useMutation({
    onSuccess: (result) => afterAccept(result.storeName),
    onError: errors.showServerError,
  });
  const register = trpc.auth.register.useMutation({
    // The session cache is refreshed after accepting, so this form stays on screen until then.
    onSuccess: () => accept.mutate({ token }),
    onError: errors.showServerError,
  });
  const pending = register.isPending || accept.isPending;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (register.isSuccess) {
      // The account exists already (accepting failed): only try accepting again.
      accept.mutate({ token });
      return;
    }
    const found: FieldErrors = {};
    if (!username.trim()) found.username = t('accept.register.usernameRequired');
    if (password.length < PASSWORD_MIN_LENGTH) found.password = t('accept.register.passwordTooShort', { count: PASSWORD_MIN_LENGTH });
    if (!errors.acceptLocalCheck(found)) return;
    register.mutate({ username: username.trim(), email: invitation.email, password });
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="divider text-base-content/70 my-0 text-xs">{t('accept.register.title')}</div>
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        <FormAlert message={errors.formError} />
        <TextField id="invite-email" type="email" label={t('accept.register.email')} value={invitation.email} onValueChange={() => undefined} readOnly className="input bg-base-200 text-base-content/80 w-full cursor-default" hint={t('accept.register.emailHint')} error={errors.fieldErrors.email} />
        <TextField
          id="invite-username"
          label={t('accept.register.username')}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          {...errors.bind('username', setUsername)}
        />
        <PasswordField
          id="invite-password"
          label={t('accept.register.password')}
          autoComplete="new-password"
          value={password}
          {...errors.bind('password', setPassword)}
          hint={t('accept.register.passwordHint', { count: PASSWORD_MIN_LENGTH })}
        />
        <SubmitButton pending={pending} label={t('accept.register.submit')} pendingLabel={t('accept.register.submitting')} className="w-full" />
      </form>
      <p className="text-base-content/75 text-center text-sm">
        {t('accept.haveAccount')}{' '}
        <Link href={signInPath(token)} className="link font-semibold">
          {t('accept.signInToAccept')}
        </Link>
      </p>
    </div>
  );
}
