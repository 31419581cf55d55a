import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { EyeIcon, SearchIcon } from 'lucide-react';
import { serverMessage, useSession } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AdminTabs, PlanStateBadge, planStateOf, useViewAsUser } from './admin-shared.tsx';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from './ui.tsx';

/** /admin: every account, searchable by name or e-mail, with "View as user" and "Details". */
export function AdminUsersPage() {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const search = useSearch();
  const [location, navigate] = useLocation();
  const session = useSession();
  const meId = session.status === 'signedIn' ? session.user.id : null;
  const query = new URLSearchParams(search).get('q') ?? '';
  const users = trpc.admin.listUsers.useQuery();
  const viewAs = useViewAsUser();

  const filtered = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const all = users.data ?? [];
    if (!needle) return all;
    return all.filter((user) => user.username.toLowerCase().includes(needle) || user.email.toLowerCase().includes(needle));
  }, [users.data, query]);

  function setQuery(value: string) {
    // The search survives a reload: it lives in the URL.
    const params = new URLSearchParams(search);
    if (value) params.set('q', value);
    else params.delete('q');
    const next = params.toString();
    navigate(next ? `${location}?${next}` : location, { replace: true });
  }

  const viewButton = (user: { id: number; username: string }) => (
    <button
      type="button"
      className="btn btn-outline btn-sm gap-1.5"
      onClick={() => viewAs.mutate({ userId: user.id })}
      disabled={user.id === meId || viewAs.isPending}
      title={user.id === meId ? t('users.viewSelf') : undefined}
    >
      {viewAs.isPending && viewAs.variables?.userId === user.id ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <EyeIcon />}
      {t('users.viewAs')}
      <span className="sr-only"> {t('users.viewAsWho', { username: user.username })}</span>
    </button>
  );

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <PageHeader title={t('users.title')} description={t('users.description')} />
      <AdminTabs />

      <Section
        id="users-heading"
        title={t('users.listTitle')}
        aside={users.data && <span className="text-base-content/70 text-sm">{t('users.showing', { shown: filtered.length, total: users.data.length })}</span>}
      >
        <div className="border-base-content/10 border-b p-4 sm:px-5">
          <label htmlFor="user-search" className="sr-only">
            {t('users.searchLabel')}
          </label>
          <label className="input w-full md:max-w-md">
            <SearchIcon className="text-base-content/60" />
            <input id="user-search" type="search" className="grow" placeholder={t('users.searchPlaceholder')} value={query} onChange={(event) => setQuery(event.target.value)} />
          </label>
        </div>

        {users.isPending && <LoadingBlock label={t('common.loading')} />}
        {users.isError && (
          <div className="p-4">
            <ErrorBlock message={t('common.loadFailed', { message: serverMessage(users.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void users.refetch()} />
          </div>
        )}
        {users.data && filtered.length === 0 && <p className="text-base-content/70 px-5 py-10 text-center text-sm">{t('users.noMatch', { query })}</p>}

        {filtered.length > 0 && (
          <>
            <div className="hidden overflow-x-auto lg:block">
              <table className="table" data-testid="users-table">
                <thead>
                  <tr>
                    <th scope="col">{t('users.columns.username')}</th>
                    <th scope="col">{t('users.columns.email')}</th>
                    <th scope="col">{t('users.columns.plan')}</th>
                    <th scope="col">{t('users.columns.status')}</th>
                    <th scope="col" className="text-right">
                      {t('users.columns.stores')}
                    </th>
                    <th scope="col">{t('users.columns.created')}</th>
                    <th scope="col" className="text-right">
                      <span className="sr-only">{t('users.columns.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {filtered.map((user) => (
                    <tr key={user.id} className="hover:bg-base-200/50">
                      <td>
                        <div className="flex items-center gap-2">
                          <Link href={`/admin/user-dashboard/${user.id}`} className="link link-hover font-medium">
                            {user.username}
                          </Link>
                          {user.isAdmin && <span className="badge badge-primary badge-sm">{t('badges.admin')}</span>}
                        </div>
                      </td>
                      <td className="text-base-content/80 max-w-64 truncate" title={user.email}>
                        {user.email}
                      </td>
                      <td>{user.plan ?? <span className="text-base-content/60">—</span>}</td>
                      <td>
                        <PlanStateBadge state={planStateOf(user)} />
                      </td>
                      <td className="text-right tabular-nums">{user.stores}</td>
                      <td className="text-base-content/80 whitespace-nowrap">{dates.date(user.createdAt)}</td>
                      <td>
                        <div className="flex justify-end gap-2">
                          {viewButton(user)}
                          <Link href={`/admin/user-dashboard/${user.id}`} className="btn btn-ghost btn-sm" aria-label={t('users.detailsLabel', { username: user.username })}>
                            {t('users.details')}
                          </Link>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>

            <ul className="divide-base-content/10 divide-y lg:hidden" data-testid="users-list">
              {filtered.map((user) => (
                <li key={user.id} className="px-4 py-3">
                  <div className="flex flex-wrap items-center gap-2">
                    <Link href={`/admin/user-dashboard/${user.id}`} className="link link-hover font-medium break-all">
                      {user.username}
                    </Link>
                    {user.isAdmin && <span className="badge badge-primary badge-sm">{t('badges.admin')}</span>}
                    <PlanStateBadge state={planStateOf(user)} />
                  </div>
                  <p className="text-base-content/75 mt-0.5 text-sm break-all">{user.email}</p>
                  <p className="text-base-content/70 mt-0.5 text-xs">
                    {[user.plan, t('users.storesCount', { count: user.stores }), t('users.joined', { date: dates.date(user.createdAt) })].filter(Boolean).join(' · ')}
                  </p>
                  <div className="mt-2 flex gap-2">
                    {viewButton(user)}
                    <Link href={`/admin/user-dashboard/${user.id}`} className="btn btn-ghost btn-sm" aria-label={t('users.detailsLabel', { username: user.username })}>
                      {t('users.details')}
                    </Link>
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
      </Section>
    </div>
  );
}
