import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ClockIcon, MailIcon, ShieldIcon, TrashIcon, UserPlusIcon } from 'lucide-react';
import { GUEST_INVITATION_VALID_DAYS, type PendingInvitation, type StoreGuestDto } from '../../../shared/guests.ts';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf, serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from '../admin/ui.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useGuestInviteAccess } from './guest-access.ts';
import { ManageUsersLink } from '../manage-users/manage-users-link.tsx';

const STORES_OPTIONS = { staleTime: 120_000 } as const;

/** /guest-users: invite people to view one of your stores read-only, see who is invited, withdraw or remove. */
export function GuestUsersPage() {
  const { t } = useTranslation('guests');
  const access = useGuestInviteAccess();
  const guests = trpc.guests.list.useQuery(undefined, { enabled: access.user !== null });

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader
        title={t('guestUsers.title')}
        description={t('guestUsers.description')}
        actions={<ManageUsersLink />}
      />

      <div className="grid gap-4 md:grid-cols-5">
        <div className="md:col-span-3">
          {!access.ready ? (
            <div className="card bg-base-100 border-base-content/10 border">
              <LoadingBlock label={t('common.loading')} />
            </div>
          ) : access.canInvite ? (
            <InviteCard />
          ) : (
            <InviteUnavailable reason={access.inGuestMode ? 'guestMode' : access.user?.isGuest ? 'guestAccount' : 'plan'} />
          )}
        </div>
        <aside className="bg-base-200/60 border-base-content/10 rounded-box border p-5 md:col-span-2" aria-labelledby="how-guests-work">
          <div className="flex items-center gap-2">
            <ShieldIcon className="text-primary text-lg" />
            <h2 id="how-guests-work" className="font-semibold">
              {t('guestUsers.how.title')}
            </h2>
          </div>
          <ul className="text-base-content/80 mt-3 list-disc space-y-2 pl-5 text-sm">
            <li>{t('guestUsers.how.readOnly')}</li>
            <li>{t('guestUsers.how.oneStore')}</li>
            <li>{t('guestUsers.how.expiry', { days: GUEST_INVITATION_VALID_DAYS })}</li>
            <li>{t('guestUsers.how.remove')}</li>
          </ul>
        </aside>
      </div>

      {guests.isPending && access.user !== null && (
        <div className="card bg-base-100 border-base-content/10 border">
          <LoadingBlock label={t('common.loading')} />
        </div>
      )}
      {guests.isError && (
        <ErrorBlock message={t('common.loadFailed', { message: serverMessage(guests.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void guests.refetch()} />
      )}
      {guests.data && (
        <>
          <PendingInvitations invitations={guests.data.invitations} readOnly={access.inGuestMode} />
          <CurrentGuests guests={guests.data.guests} readOnly={access.inGuestMode} />
        </>
      )}
    </div>
  );
}

function InviteCard() {
  const { t } = useTranslation('guests');
  const utils = trpc.useUtils();
  const stores = trpc.stores.list.useQuery(undefined, STORES_OPTIONS);
  const ownStores = useMemo(() => (stores.data ?? []).filter((store) => store.role === 'owner'), [stores.data]);
  const [storeId, setStoreId] = useState<string>('');
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const selectedStoreId = storeId || (ownStores[0] ? String(ownStores[0].id) : '');

  const invite = trpc.guests.invite.useMutation({
    onSuccess: async (invitation) => {
      toast({ title: t('invite.sent.title'), description: t('invite.sent.description', { email: invitation.email, store: invitation.storeName }), variant: 'success' });
      setEmail('');
      setEmailError(null);
      await utils.guests.list.invalidate();
    },
    onError: (error) => {
      const fields = fieldErrorsOf(error);
      setEmailError(fields.email ?? null);
      toast({ title: t('invite.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed)) {
      setEmailError(t('invite.invalidEmail'));
      return;
    }
    setEmailError(null);
    invite.mutate({ storeId: Number(selectedStoreId), email: trimmed });
  }

  return (
    <Section id="invite-heading" title={t('invite.title')} className="h-full">
      <div className="p-4 sm:p-5">
        {stores.isPending ? (
          <LoadingBlock label={t('common.loading')} />
        ) : ownStores.length === 0 ? (
          <div className="flex flex-col items-start gap-3">
            <p className="text-base-content/80 text-sm">{t('invite.noStores')}</p>
            <Link href="/store-management" className="btn btn-primary btn-sm">
              {t('invite.createStore')}
            </Link>
          </div>
        ) : (
          <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
            <p className="text-base-content/75 text-sm">{t('invite.intro')}</p>
            <div className="fieldset py-0">
              <label htmlFor="invite-store" className="fieldset-legend pt-0 pb-1 text-sm">
                {t('invite.store')}
              </label>
              <select id="invite-store" className="select w-full" value={selectedStoreId} onChange={(event) => setStoreId(event.target.value)}>
                {ownStores.map((store) => (
                  <option key={store.id} value={store.id}>
                    {store.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="fieldset py-0">
              <label htmlFor="invite-email" className="fieldset-legend pt-0 pb-1 text-sm">
                {t('invite.email')}
              </label>
              <label className={`input w-full ${emailError ? 'input-error' : ''}`}>
                <MailIcon className="text-base-content/60" />
                <input
                  id="invite-email"
                  type="email"
                  inputMode="email"
                  autoComplete="off"
                  placeholder={t('invite.emailPlaceholder')}
                  value={email}
                  onChange={(event) => {
                    setEmail(event.target.value);
                    setEmailError(null);
                  }}
                  aria-invalid={emailError ? true : undefined}
                  aria-describedby={emailError ? 'invite-email-error' : undefined}
                  className="grow"
                />
              </label>
              {emailError && (
                <p id="invite-email-error" className="text-error text-xs">
                  {emailError}
                </p>
              )}
            </div>
            <button type="submit" className="btn btn-primary gap-2 self-start" disabled={invite.isPending} aria-busy={invite.isPending}>
              {invite.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : <UserPlusIcon />}
              {invite.isPending ? t('invite.sending') : t('invite.submit')}
            </button>
          </form>
        )}
      </div>
    </Section>
  );
}

function InviteUnavailable({ reason }: { reason: 'guestMode' | 'guestAccount' | 'plan' }) {
  const { t } = useTranslation('guests');
  return (
    <Section id="invite-heading" title={t('invite.title')} className="h-full">
      <div className="flex flex-col items-start gap-3 p-4 sm:p-5">
        <span className="bg-primary/10 text-primary grid size-10 place-items-center rounded-xl text-xl" aria-hidden="true">
          <UserPlusIcon />
        </span>
        <h3 className="font-semibold">{t(`invite.unavailable.${reason}.title`)}</h3>
        <p className="text-base-content/80 text-sm">{t(`invite.unavailable.${reason}.body`)}</p>
        {reason !== 'guestMode' && (
          <Link href="/pricing" className="btn btn-primary btn-sm">
            {t('invite.unavailable.upgrade')}
          </Link>
        )}
      </div>
    </Section>
  );
}

function PendingInvitations({ invitations, readOnly }: { invitations: PendingInvitation[]; readOnly: boolean }) {
  const { t } = useTranslation('guests');
  const dates = useDates();
  const utils = trpc.useUtils();
  const revoke = trpc.guests.revokeInvitation.useMutation({
    onSuccess: async (_result, { id }) => {
      const invitation = invitations.find((candidate) => candidate.id === id);
      toast({ title: t('pending.revoked.title'), description: t('pending.revoked.description', { email: invitation?.email ?? '' }), variant: 'success' });
      await utils.guests.list.invalidate();
    },
    onError: (error) => toast({ title: t('pending.revokeFailed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  });

  return (
    <Section id="pending-heading" title={t('pending.title')} aside={<span className="badge badge-ghost">{invitations.length}</span>}>
      {invitations.length === 0 ? (
        <p className="text-base-content/70 px-4 py-6 text-sm sm:px-5">{t('pending.empty')}</p>
      ) : (
        <ul className="divide-base-content/10 divide-y" data-testid="pending-invitations">
          {invitations.map((invitation) => {
            const days = dates.daysUntil(invitation.expiresAt);
            return (
              <li key={invitation.id} className="flex flex-wrap items-center gap-3 px-4 py-3 sm:px-5">
                <span className="bg-base-200 text-base-content/70 grid size-9 shrink-0 place-items-center rounded-full" aria-hidden="true">
                  <MailIcon />
                </span>
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{invitation.email}</p>
                  <p className="text-base-content/70 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
                    <span>{t('pending.forStore', { store: invitation.storeName })}</span>
                    <span className="inline-flex items-center gap-1" title={dates.dateTime(invitation.expiresAt)}>
                      <ClockIcon aria-hidden="true" />
                      {days === 0 ? t('pending.expiresToday') : t('pending.expiresIn', { count: days })}
                    </span>
                  </p>
                </div>
                <button
                  type="button"
                  className="btn btn-ghost btn-sm text-error"
                  onClick={() => revoke.mutate({ id: invitation.id })}
                  disabled={readOnly || (revoke.isPending && revoke.variables?.id === invitation.id)}
                  aria-label={t('pending.revokeLabel', { email: invitation.email })}
                >
                  {t('pending.revoke')}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </Section>
  );
}

/** Removing a guest, with its confirmation dialog; shared with /manage-users. */
export function useRemoveGuest() {
  const { t } = useTranslation('guests');
  const utils = trpc.useUtils();
  const [target, setTarget] = useState<StoreGuestDto | null>(null);
  const remove = trpc.guests.removeGuest.useMutation({
    onSuccess: async () => {
      toast({ title: t('remove.done.title'), description: t('remove.done.description', { username: target?.username ?? '', store: target?.storeName ?? '' }), variant: 'success' });
      setTarget(null);
      await utils.guests.list.invalidate();
    },
    onError: (error) => {
      setTarget(null);
      toast({ title: t('remove.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' });
    },
  });
  const dialog = (
    <ConfirmDialog
      open={target !== null}
      title={t('remove.title')}
      body={target ? t('remove.confirm', { username: target.username, store: target.storeName }) : null}
      confirmLabel={t('remove.submit')}
      cancelLabel={t('common.cancel')}
      pending={remove.isPending}
      onConfirm={() => target && remove.mutate({ storeId: target.storeId, userId: target.userId })}
      onClose={() => setTarget(null)}
    />
  );
  return { ask: setTarget, dialog };
}

function CurrentGuests({ guests, readOnly }: { guests: StoreGuestDto[]; readOnly: boolean }) {
  const { t } = useTranslation('guests');
  const dates = useDates();
  const remover = useRemoveGuest();
  const byStore = useMemo(() => {
    const groups = new Map<number, { storeName: string; guests: StoreGuestDto[] }>();
    for (const guest of guests) {
      const group = groups.get(guest.storeId) ?? { storeName: guest.storeName, guests: [] };
      group.guests.push(guest);
      groups.set(guest.storeId, group);
    }
    return [...groups.entries()];
  }, [guests]);

  return (
    <Section id="guests-heading" title={t('current.title')} aside={<span className="badge badge-ghost">{guests.length}</span>}>
      {guests.length === 0 ? (
        <p className="text-base-content/70 px-4 py-6 text-sm sm:px-5">{t('current.empty')}</p>
      ) : (
        <div className="divide-base-content/10 divide-y" data-testid="current-guests">
          {byStore.map(([storeId, group]) => (
            <div key={storeId}>
              <h3 className="bg-base-200/50 text-base-content/80 px-4 py-2 text-xs font-semibold tracking-wide uppercase sm:px-5">{group.storeName}</h3>
              <ul className="divide-base-content/10 divide-y">
                {group.guests.map((guest) => (
                  <li key={`${guest.storeId}-${guest.userId}`} className="flex flex-wrap items-center gap-3 px-4 py-3 sm:px-5">
                    <span className="bg-primary/15 text-primary grid size-9 shrink-0 place-items-center rounded-full text-sm font-semibold" aria-hidden="true">
                      {guest.username.slice(0, 1).toUpperCase()}
                    </span>
                    <div className="min-w-0 flex-1">
                      <p className="truncate font-medium">{guest.username}</p>
                      <p className="text-base-content/70 truncate text-sm">
                        {guest.email} · {t('current.since', { date: dates.date(guest.since) })}
                      </p>
                    </div>
                    <button
                      type="button"
                      className="btn btn-ghost btn-sm text-error gap-1"
                      onClick={() => remover.ask(guest)}
                      disabled={readOnly}
                      aria-label={t('remove.label', { username: guest.username, store: guest.storeName })}
                    >
                      <TrashIcon />
                      {t('remove.button')}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
      {remover.dialog}
    </Section>
  );
}
