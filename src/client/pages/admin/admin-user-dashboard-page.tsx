import { ACCOUNT_DELETION_GRACE_DAYS, ACCOUNT_DELETION_REASON_MAX } from '../../../shared/privacy.ts';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ArrowLeftIcon, EyeIcon, GiftIcon } from 'lucide-react';
import { PLAN_CATALOGUE, PLAN_TIERS, type PlanTier } from '../../../shared/plans.ts';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf, serverMessage, useSession } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AuditList } from './admin-dashboard-page.tsx';
import { AdminTabs, PlanStateBadge, useViewAsUser, type PlanState } from './admin-shared.tsx';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from './ui.tsx';

/** /admin/user-dashboard/{id}: one account in full, with "View as user" and "Grant plan". */
export function AdminUserDashboardPage({ userId }: { userId: string }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const id = /^\d+$/.test(userId) ? Number(userId) : null;
  const detail = trpc.admin.userDetail.useQuery({ userId: id ?? 0 }, { enabled: id !== null, retry: false });
  const viewAs = useViewAsUser();
  const session = useSession();
  const isSelf = session.status === 'signedIn' && session.user.id === id;

  if (id === null || detail.error?.data?.code === 'NOT_FOUND') {
    return (
      <div className="mx-auto max-w-5xl space-y-6">
        <BackLink />
        <div className="card bg-base-100 border-base-content/10 border" data-testid="user-not-found">
          <div className="card-body items-center py-12 text-center">
            <h1 className="text-xl font-semibold">{t('detail.notFound.title')}</h1>
            <p className="text-base-content/75">{t('detail.notFound.body')}</p>
            <Link href="/admin" className="btn btn-primary mt-3">
              {t('detail.notFound.action')}
            </Link>
          </div>
        </div>
      </div>
    );
  }
  if (detail.isPending) return <LoadingBlock label={t('common.loading')} />;
  if (detail.isError) {
    return (
      <div className="mx-auto max-w-5xl">
        <ErrorBlock message={t('common.loadFailed', { message: serverMessage(detail.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void detail.refetch()} />
      </div>
    );
  }

  const { user, access, stores, sharedStores, subscriptions, audit } = detail.data;
  const latest = subscriptions[0] ?? null;
  const state: PlanState = !latest ? 'none' : latest.status === 'canceled' ? 'canceled' : latest.live ? latest.status : 'expired';

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <BackLink />
      <PageHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            {user.username}
            {user.isAdmin && <span className="badge badge-primary">{t('badges.admin')}</span>}
            {user.isGuest && <span className="badge border-info/50 bg-info/10 text-base-content">{t('badges.guest')}</span>}
          </span>
        }
        description={user.email}
        actions={
          <>
            <button
              type="button"
              className="btn btn-primary btn-sm gap-1.5"
              onClick={() => viewAs.mutate({ userId: user.id })}
              disabled={isSelf || viewAs.isPending}
              aria-busy={viewAs.isPending}
            >
              {viewAs.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <EyeIcon />}
              {t('users.viewAs')}
            </button>
            {user.affiliateCode && (
              <Link href={`/admin/affiliate/${user.id}`} className="btn btn-ghost btn-sm" data-testid="user-affiliate-link">
                {t('detail.affiliate')}
              </Link>
            )}
          </>
        }
      />
      <AdminTabs />

      <div className="grid gap-4 lg:grid-cols-3">
        <Section id="account-heading" title={t('detail.account.title')}>
          <Facts
            rows={[
              [t('detail.account.id'), `#${user.id}`],
              [t('detail.account.joined'), dates.dateTime(user.createdAt)],
              [t('detail.account.type'), user.isAdmin ? t('badges.admin') : user.isGuest ? t('detail.account.guestAccount') : t('detail.account.owner')],
              [t('detail.account.marketing'), user.marketingEmails ? t('detail.yes') : t('detail.no')],
              [t('detail.account.trialUsed'), user.trialStartedAt ? dates.date(user.trialStartedAt) : t('detail.no')],
            ]}
          />
        </Section>

        <Section id="access-heading" title={t('detail.access.title')} aside={<PlanStateBadge state={state} />}>
          <Facts
            rows={[
              [t('detail.access.plan'), latest ? latest.plan : t('users.noPlan')],
              [t('detail.access.until'), latest ? dates.date(latest.currentPeriodEnd) : '—'],
              [t('detail.access.source'), t(`detail.access.sources.${access.source}`)],
              [t('detail.access.dashboards'), user.isAdmin ? t('detail.access.unlimited') : t('detail.access.dashboardsValue', { used: stores.length, max: access.maxDashboards })],
            ]}
          />
        </Section>

        <GrantPlanCard userId={user.id} username={user.username} />
        <DeleteUserCard userId={user.id} username={user.username} deletionScheduledFor={user.deletionScheduledFor} />
      </div>

      <div className="grid gap-4 lg:grid-cols-2">
        <Section id="stores-heading" title={t('detail.stores.title')} aside={<span className="badge badge-ghost">{stores.length}</span>}>
          {stores.length === 0 ? (
            <p className="text-base-content/70 px-5 py-6 text-sm">{t('detail.stores.empty')}</p>
          ) : (
            <div className="overflow-x-auto">
              <table className="table table-sm" data-testid="user-stores">
                <thead>
                  <tr>
                    <th scope="col">{t('detail.stores.name')}</th>
                    <th scope="col">{t('detail.stores.currency')}</th>
                    <th scope="col" className="text-right">
                      {t('detail.stores.guests')}
                    </th>
                    <th scope="col">{t('detail.stores.created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {stores.map((store) => (
                    <tr key={store.id}>
                      <td className="font-medium">{store.name}</td>
                      <td>{store.currency}</td>
                      <td className="text-right tabular-nums">{store.guests}</td>
                      <td className="whitespace-nowrap">{dates.date(store.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {sharedStores.length > 0 && (
            <div className="border-base-content/10 border-t px-4 py-3 sm:px-5">
              <h3 className="text-base-content/80 text-xs font-semibold tracking-wide uppercase">{t('detail.stores.sharedTitle')}</h3>
              <ul className="mt-2 space-y-1 text-sm">
                {sharedStores.map((store) => (
                  <li key={store.id}>{t('detail.stores.sharedRow', { store: store.name, owner: store.ownerUsername, date: dates.date(store.since) })}</li>
                ))}
              </ul>
            </div>
          )}
        </Section>

        <Section id="subscriptions-heading" title={t('detail.subscriptions.title')} aside={<span className="badge badge-ghost">{subscriptions.length}</span>}>
          {subscriptions.length === 0 ? (
            <p className="text-base-content/70 px-5 py-6 text-sm">{t('detail.subscriptions.empty')}</p>
          ) : (
            <div className="overflow-x-auto">
              <table className="table table-sm" data-testid="user-subscriptions">
                <thead>
                  <tr>
                    <th scope="col">{t('detail.subscriptions.plan')}</th>
                    <th scope="col">{t('detail.subscriptions.status')}</th>
                    <th scope="col">{t('detail.subscriptions.source')}</th>
                    <th scope="col">{t('detail.subscriptions.period')}</th>
                  </tr>
                </thead>
                <tbody>
                  {subscriptions.map((subscription) => (
                    <tr key={subscription.id}>
                      <td className="font-medium">{subscription.plan}</td>
                      <td>
                        <PlanStateBadge state={subscription.status === 'canceled' ? 'canceled' : subscription.live ? subscription.status : 'expired'} />
                      </td>
                      <td>{t(`detail.subscriptions.providers.${subscription.provider}`, { defaultValue: subscription.provider })}</td>
                      <td className="whitespace-nowrap">
                        {dates.date(subscription.currentPeriodStart)} – {dates.date(subscription.currentPeriodEnd)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Section>
      </div>

      <Section id="activity-heading" title={t('detail.activity')}>
        <AuditList entries={audit} empty={t('detail.noActivity')} />
      </Section>
    </div>
  );
}

function BackLink() {
  const { t } = useTranslation('admin');
  return (
    <Link href="/admin" className="link link-hover text-base-content/75 inline-flex items-center gap-1.5 text-sm">
      <ArrowLeftIcon />
      {t('detail.back')}
    </Link>
  );
}

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 p-4 text-sm sm:px-5">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-base-content/70">{label}</dt>
          <dd className="min-w-0 text-right font-medium break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function GrantPlanCard({ userId, username }: { userId: number; username: string }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const utils = trpc.useUtils();
  const [tier, setTier] = useState<PlanTier>('professional');
  const [days, setDays] = useState('30');
  const [daysError, setDaysError] = useState<string | null>(null);
  const grant = trpc.admin.grantPlanToUser.useMutation({
    onSuccess: async (granted) => {
      toast({ title: t('grant.done.title'), description: t('grant.done.description', { plan: granted.plan, username, date: dates.date(granted.currentPeriodEnd) }), variant: 'success' });
      await Promise.all([utils.admin.userDetail.invalidate({ userId }), utils.admin.listUsers.invalidate(), utils.admin.stats.invalidate(), utils.admin.auditLog.invalidate()]);
    },
    onError: (error) => {
      setDaysError(fieldErrorsOf(error).days ?? null);
      toast({ title: t('grant.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = Number(days);
    if (!Number.isInteger(value) || value < 1 || value > 3650) {
      setDaysError(t('grant.daysInvalid'));
      return;
    }
    setDaysError(null);
    grant.mutate({ userId, tier, days: value });
  }

  return (
    <Section id="grant-heading" title={t('grant.title')} aside={<GiftIcon className="text-primary" />}>
      <form className="flex flex-col gap-3 p-4 sm:px-5" onSubmit={submit} noValidate>
        <p className="text-base-content/75 text-sm">{t('grant.intro')}</p>
        <div className="grid grid-cols-[1fr_6rem] gap-3">
          <div className="fieldset py-0">
            <label htmlFor="grant-tier" className="fieldset-legend pt-0 pb-1 text-sm">
              {t('grant.plan')}
            </label>
            <select id="grant-tier" className="select w-full" value={tier} onChange={(event) => setTier(event.target.value as PlanTier)}>
              {PLAN_TIERS.map((option) => (
                <option key={option} value={option}>
                  {PLAN_CATALOGUE.find((plan) => plan.tier === option)?.name ?? option}
                </option>
              ))}
            </select>
          </div>
          <div className="fieldset py-0">
            <label htmlFor="grant-days" className="fieldset-legend pt-0 pb-1 text-sm">
              {t('grant.days')}
            </label>
            <input
              id="grant-days"
              type="number"
              inputMode="numeric"
              min={1}
              max={3650}
              className={`input w-full ${daysError ? 'input-error' : ''}`}
              value={days}
              onChange={(event) => {
                setDays(event.target.value);
                setDaysError(null);
              }}
              aria-invalid={daysError ? true : undefined}
              aria-describedby={daysError ? 'grant-days-error' : undefined}
            />
          </div>
        </div>
        {daysError && (
          <p id="grant-days-error" className="text-error text-xs">
            {daysError}
          </p>
        )}
        <button type="submit" className="btn btn-primary btn-sm self-start" disabled={grant.isPending} aria-busy={grant.isPending}>
          {grant.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          {t('grant.submit')}
        </button>
      </form>
    </Section>
  );
}

/** Deleting the user's account, with the reason (audited): scheduled after the grace period, cancellable until then. */
function DeleteUserCard({ userId, username, deletionScheduledFor }: { userId: number; username: string; deletionScheduledFor: string | null }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const utils = trpc.useUtils();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const refresh = () => Promise.all([utils.admin.userDetail.invalidate({ userId }), utils.admin.auditLog.invalidate()]);
  const failed = (error: unknown) => toast({ title: t('deleteUser.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' });
  const schedule = trpc.admin.scheduleUserDeletion.useMutation({
    onSuccess: async (scheduled) => {
      setReason('');
      toast({ title: t('deleteUser.scheduled', { username, date: dates.date(scheduled.deletionScheduledFor) }), variant: 'success' });
      await refresh();
    },
    onError: failed,
  });
  const cancel = trpc.admin.cancelUserDeletion.useMutation({ onSuccess: refresh, onError: failed });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!reason.trim()) {
      setReasonError(t('deleteUser.reasonRequired'));
      return;
    }
    schedule.mutate({ userId, reason: reason.trim() });
  }

  return (
    <Section id="delete-user-heading" title={t('deleteUser.title')}>
      {deletionScheduledFor ? (
        <div className="flex flex-col gap-3 p-4 sm:px-5" data-testid="user-deletion-scheduled">
          <p className="text-sm">{t('deleteUser.pending', { date: dates.date(deletionScheduledFor) })}</p>
          <button type="button" className="btn btn-sm self-start" disabled={cancel.isPending} onClick={() => cancel.mutate({ userId })}>
            {t('deleteUser.cancel')}
          </button>
        </div>
      ) : (
        <form className="flex flex-col gap-3 p-4 sm:px-5" onSubmit={submit} noValidate>
          <p className="text-base-content/75 text-sm">{t('deleteUser.intro', { days: ACCOUNT_DELETION_GRACE_DAYS })}</p>
          <label htmlFor="delete-user-reason" className="text-sm font-medium">
            {t('deleteUser.reason')}
          </label>
          <textarea
            id="delete-user-reason"
            className={`textarea w-full ${reasonError ? 'textarea-error' : ''}`}
            maxLength={ACCOUNT_DELETION_REASON_MAX}
            value={reason}
            onChange={(event) => {
              setReason(event.target.value);
              setReasonError(null);
            }}
            aria-invalid={reasonError ? true : undefined}
          />
          {reasonError && <p className="text-error text-xs">{reasonError}</p>}
          <button type="submit" className="btn btn-error btn-sm self-start" disabled={schedule.isPending} aria-busy={schedule.isPending}>
            {t('deleteUser.submit')}
          </button>
        </form>
      )}
    </Section>
  );
}
