import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { TrashIcon, UserPlusIcon, UsersIcon } from 'lucide-react';
import type { StoreGuestDto } from '../../../shared/guests.ts';
import { serverMessage, useSession } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from '../admin/ui.tsx';
import { useGuestInviteAccess } from '../guest-users/guest-access.ts';
import { useRemoveGuest } from '../guest-users/guest-users-page.tsx';

const STORES_OPTIONS = { staleTime: 120_000 } as const;

interface PersonRow {
  key: string;
  username: string;
  email: string | null;
  storeName: string;
  role: 'owner' | 'guest';
  since: string;
  guest: StoreGuestDto | null;
}

/** /manage-users: everyone who can see each of your stores (you as owner, then its guests). */
export function ManageUsersPage() {
  const { t } = useTranslation('guests');
  const dates = useDates();
  const session = useSession();
  const me = session.status === 'signedIn' ? session.user : null;
  const access = useGuestInviteAccess();
  const stores = trpc.stores.list.useQuery(undefined, STORES_OPTIONS);
  const guests = trpc.guests.list.useQuery();
  const remover = useRemoveGuest();

  const ownStores = useMemo(() => (stores.data ?? []).filter((store) => store.role === 'owner'), [stores.data]);
  const sharedWithMe = useMemo(() => (stores.data ?? []).filter((store) => store.role === 'guest'), [stores.data]);
  const rows = useMemo<PersonRow[]>(() => {
    const list: PersonRow[] = [];
    for (const store of ownStores) {
      list.push({
        key: `owner-${store.id}`,
        username: store.ownerUsername,
        // In an admin's guest mode the owner is the viewed user, whose address the session does not hold.
        email: me && me.username === store.ownerUsername ? me.email : null,
        storeName: store.name,
        role: 'owner',
        since: store.createdAt,
        guest: null,
      });
      for (const guest of guests.data?.guests.filter((candidate) => candidate.storeId === store.id) ?? []) {
        list.push({ key: `guest-${store.id}-${guest.userId}`, username: guest.username, email: guest.email, storeName: store.name, role: 'guest', since: guest.since, guest });
      }
    }
    return list;
  }, [ownStores, guests.data, me]);

  const loading = stores.isPending || guests.isPending;
  const error = stores.error ?? guests.error;
  const isMe = (row: PersonRow) => me !== null && row.role === 'owner' && row.username === me.username;

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader
        title={t('manage.title')}
        description={t('manage.description')}
        actions={
          access.canInvite && (
            <Link href="/guest-users" className="btn btn-primary btn-sm gap-2">
              <UserPlusIcon />
              {t('manage.invite')}
            </Link>
          )
        }
      />

      {error && <ErrorBlock message={t('common.loadFailed', { message: serverMessage(error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void Promise.all([stores.refetch(), guests.refetch()])} />}

      <Section id="people-heading" title={t('manage.people')} aside={!loading && <span className="badge badge-ghost">{t('manage.count', { count: rows.length })}</span>}>
        {loading ? (
          <LoadingBlock label={t('common.loading')} />
        ) : ownStores.length === 0 ? (
          <div className="flex flex-col items-center px-6 py-12 text-center">
            <span className="bg-primary/10 text-primary grid size-12 place-items-center rounded-2xl text-2xl" aria-hidden="true">
              <UsersIcon />
            </span>
            <h3 className="mt-4 font-semibold">{t('manage.noStores.title')}</h3>
            <p className="text-base-content/70 mt-1 max-w-sm text-sm">{t('manage.noStores.body')}</p>
            <Link href="/store-management" className="btn btn-primary btn-sm mt-4">
              {t('manage.noStores.action')}
            </Link>
          </div>
        ) : (
          <>
            <div className="hidden overflow-x-auto md:block">
              <table className="table" data-testid="people-table">
                <thead>
                  <tr>
                    <th scope="col">{t('manage.columns.user')}</th>
                    <th scope="col">{t('manage.columns.email')}</th>
                    <th scope="col">{t('manage.columns.store')}</th>
                    <th scope="col">{t('manage.columns.role')}</th>
                    <th scope="col">{t('manage.columns.since')}</th>
                    <th scope="col" className="text-right">
                      <span className="sr-only">{t('manage.columns.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={row.key}>
                      <td className="whitespace-nowrap">
                        <span className="font-medium">{row.username}</span>
                        {isMe(row) && <span className="badge border-primary/50 bg-primary/10 text-base-content badge-sm ml-2">{t('manage.you')}</span>}
                      </td>
                      <td className="text-base-content/80">{row.email ?? '—'}</td>
                      <td>{row.storeName}</td>
                      <td>
                        <RoleBadge role={row.role} />
                      </td>
                      <td className="text-base-content/80 whitespace-nowrap">{dates.date(row.since)}</td>
                      <td className="text-right">
                        {row.guest && (
                          <button
                            type="button"
                            className="btn btn-ghost btn-xs text-error gap-1"
                            onClick={() => row.guest && remover.ask(row.guest)}
                            disabled={access.inGuestMode}
                            aria-label={t('remove.label', { username: row.username, store: row.storeName })}
                          >
                            <TrashIcon />
                            {t('remove.button')}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ul className="divide-base-content/10 divide-y md:hidden">
              {rows.map((row) => (
                <li key={row.key} className="flex items-start gap-3 px-4 py-3">
                  <div className="min-w-0 flex-1">
                    <p className="flex flex-wrap items-center gap-2">
                      <span className="font-medium break-all">{row.username}</span>
                      <RoleBadge role={row.role} />
                      {isMe(row) && <span className="badge border-primary/50 bg-primary/10 text-base-content badge-sm">{t('manage.you')}</span>}
                    </p>
                    {row.email && <p className="text-base-content/75 text-sm break-all">{row.email}</p>}
                    <p className="text-base-content/70 text-sm">
                      {row.storeName} · {t('current.since', { date: dates.date(row.since) })}
                    </p>
                  </div>
                  {row.guest && (
                    <button
                      type="button"
                      className="btn btn-ghost btn-sm btn-square text-error"
                      onClick={() => row.guest && remover.ask(row.guest)}
                      disabled={access.inGuestMode}
                      aria-label={t('remove.label', { username: row.username, store: row.storeName })}
                    >
                      <TrashIcon />
                    </button>
                  )}
                </li>
              ))}
            </ul>
            {(guests.data?.invitations.length ?? 0) > 0 && (
              <p className="border-base-content/10 text-base-content/75 border-t px-4 py-3 text-sm sm:px-5">
                {t('manage.pendingNote', { count: guests.data?.invitations.length ?? 0 })}{' '}
                <Link href="/guest-users" className="link font-semibold">
                  {t('manage.pendingLink')}
                </Link>
              </p>
            )}
          </>
        )}
      </Section>

      {sharedWithMe.length > 0 && (
        <Section id="shared-heading" title={t('manage.sharedWithYou')}>
          <ul className="divide-base-content/10 divide-y">
            {sharedWithMe.map((store) => (
              <li key={store.id} className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 sm:px-5">
                <span className="font-medium">{store.name}</span>
                <span className="text-base-content/75 text-sm">{t('manage.sharedBy', { owner: store.ownerUsername })}</span>
              </li>
            ))}
          </ul>
        </Section>
      )}
      {remover.dialog}
    </div>
  );
}

function RoleBadge({ role }: { role: 'owner' | 'guest' }) {
  const { t } = useTranslation('guests');
  return <span className={`badge badge-sm whitespace-nowrap ${role === 'owner' ? 'badge-neutral' : 'border-info/50 bg-info/10 text-base-content'}`}>{t(`manage.roles.${role}`)}</span>;
}
