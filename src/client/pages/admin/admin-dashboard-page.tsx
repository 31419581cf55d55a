import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Link } from 'wouter';
import { ClockIcon, GiftIcon, UserPlusIcon, UsersIcon } from 'lucide-react';
import type { AuditEntry } from '../../../shared/admin.ts';
import { formatMoneyExact } from '../../../shared/currencies.ts';
import { formatMoney } from '../../lib/format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AdminAffiliatesSection } from './admin-affiliates-section.tsx';
import { AdminTabs, useAuditText } from './admin-shared.tsx';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from './ui.tsx';

const AUDIT_LIMIT = 15;

/** /admin/dashboard: key figures, recent sign-ups and the recent audit log. */
export function AdminDashboardPage() {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const stats = trpc.admin.stats.useQuery();
  const audit = trpc.admin.auditLog.useQuery({ limit: AUDIT_LIMIT });

  const kpis: { key: string; label: string; value: ReactNode; hint: string; icon: ReactNode }[] = stats.data
    ? [
        { key: 'users', label: t('overview.kpis.users'), value: stats.data.users, hint: t('overview.kpis.usersHint', { count: stats.data.admins }), icon: <UsersIcon /> },
        { key: 'active', label: t('overview.kpis.active'), value: stats.data.activeSubscriptions, hint: t('overview.kpis.activeHint'), icon: <ShieldCheck /> },
        { key: 'trials', label: t('overview.kpis.trials'), value: stats.data.trials, hint: t('overview.kpis.trialsHint'), icon: <ClockIcon /> },
        {
          key: 'mrr',
          label: t('overview.kpis.mrr'),
          value: formatMoney(stats.data.mrrMinor, stats.data.currency, dates.locale),
          hint: t('overview.kpis.mrrHint'),
          icon: <GiftIcon />,
        },
        { key: 'new7', label: t('overview.kpis.new7'), value: stats.data.newUsers7d, hint: t('overview.kpis.new7Hint'), icon: <UserPlusIcon /> },
        { key: 'new30', label: t('overview.kpis.new30'), value: stats.data.newUsers30d, hint: t('overview.kpis.new30Hint'), icon: <UserPlusIcon /> },
      ]
    : [];

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <PageHeader title={t('overview.title')} description={t('overview.description')} />
      <AdminTabs />

      {stats.isPending && <LoadingBlock label={t('common.loading')} />}
      {stats.isError && (
        <ErrorBlock message={t('common.loadFailed', { message: serverMessage(stats.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void stats.refetch()} />
      )}
      {stats.data && (
        <section aria-label={t('overview.kpiLabel')}>
          <ul className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-3 xl:grid-cols-6">
            {kpis.map((kpi) => (
              <li key={kpi.key} className="bg-base-100 border-base-content/10 rounded-box border p-4 shadow-sm" data-testid={`kpi-${kpi.key}`}>
                <div className="flex items-start justify-between gap-2">
                  <p className="text-base-content/80 text-sm font-semibold">{kpi.label}</p>
                  <span className="text-primary text-lg" aria-hidden="true">
                    {kpi.icon}
                  </span>
                </div>
                <p className="mt-2 text-2xl font-bold tabular-nums sm:text-3xl">{kpi.value}</p>
                <p className="text-base-content/70 mt-1 text-xs">{kpi.hint}</p>
              </li>
            ))}
          </ul>
        </section>
      )}

      <div className="grid gap-4 lg:grid-cols-5">
        <Section id="signups-heading" title={t('overview.signups')} className="lg:col-span-2">
          {stats.data &&
            (stats.data.recentSignups.length === 0 ? (
              <p className="text-base-content/70 px-5 py-6 text-sm">{t('overview.noSignups')}</p>
            ) : (
              <ul className="divide-base-content/10 divide-y" data-testid="recent-signups">
                {stats.data.recentSignups.map((signup) => (
                  <li key={signup.id} className="flex items-center gap-3 px-4 py-3 sm:px-5">
                    <span className="bg-primary/15 text-primary grid size-9 shrink-0 place-items-center rounded-full text-sm font-semibold" aria-hidden="true">
                      {signup.username.slice(0, 1).toUpperCase()}
                    </span>
                    <div className="min-w-0 flex-1">
                      <Link href={`/admin/user-dashboard/${signup.id}`} className="link link-hover block truncate font-medium">
                        {signup.username}
                      </Link>
                      <p className="text-base-content/70 truncate text-sm">{signup.email}</p>
                    </div>
                    <div className="shrink-0 text-right">
                      <p className="text-sm">{signup.plan ?? <span className="text-base-content/60">{t('users.noPlan')}</span>}</p>
                      <p className="text-base-content/70 text-xs whitespace-nowrap">{dates.date(signup.createdAt)}</p>
                    </div>
                  </li>
                ))}
              </ul>
            ))}
          {stats.isPending && <LoadingBlock label={t('common.loading')} />}
        </Section>

        <Section id="audit-heading" title={t('overview.audit')} className="lg:col-span-3">
          {audit.isPending && <LoadingBlock label={t('common.loading')} />}
          {audit.isError && (
            <div className="p-4">
              <ErrorBlock message={t('common.loadFailed', { message: serverMessage(audit.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void audit.refetch()} />
            </div>
          )}
          {audit.data && <AuditList entries={audit.data} empty={t('overview.noAudit')} />}
        </Section>
      </div>

      <AdminAffiliatesSection />
    </div>
  );
}

/** Who did what to whom, and when; the newest first. */
export function AuditList({ entries, empty }: { entries: AuditEntry[]; empty: string }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const actionText = useAuditText();
  if (entries.length === 0) return <p className="text-base-content/70 px-5 py-6 text-sm">{empty}</p>;
  const person = (id: number | null, username: string | null) => {
    if (id === null) return <span className="text-base-content/70">{t('audit.system')}</span>;
    if (username === null) return <span className="text-base-content/70">{t('audit.deleted', { id })}</span>;
    return (
      <Link href={`/admin/user-dashboard/${id}`} className="link link-hover font-medium">
        {username}
      </Link>
    );
  };
  return (
    <ul className="divide-base-content/10 divide-y" data-testid="audit-list">
      {entries.map((entry) => (
        <li key={entry.id} className="flex flex-col gap-0.5 px-4 py-3 sm:flex-row sm:items-center sm:gap-3 sm:px-5">
          <div className="min-w-0 flex-1 text-sm">
            <span>{person(entry.actorUserId, entry.actorUsername)}</span> <span className="text-base-content/80">{actionText(entry.action)}</span>
            {entry.targetUserId !== null && entry.targetUserId !== entry.actorUserId && (
              <>
                {' '}
                <span className="text-base-content/60">→</span> <span>{person(entry.targetUserId, entry.targetUsername)}</span>
              </>
            )}
            {auditDetail(entry, t, dates.locale) && <span className="text-base-content/70"> · {auditDetail(entry, t, dates.locale)}</span>}
          </div>
          <time className="text-base-content/70 shrink-0 text-xs whitespace-nowrap" dateTime={entry.createdAt}>
            {dates.dateTime(entry.createdAt)}
          </time>
        </li>
      ))}
    </ul>
  );
}

/** The one detail worth a glance: the plan granted, the store shared, the template changed, the e-mail sent again. */
function auditDetail(entry: AuditEntry, t: TFunction<'admin'>, locale: string): string | null {
  const details = entry.details ?? {};
  const pick = (key: string) => (typeof details[key] === 'string' || typeof details[key] === 'number' ? String(details[key]) : null);
  if (entry.action === 'subscription.grant') {
    const plan = pick('plan');
    const days = pick('days');
    return plan ? (days ? t('audit.planForDays', { plan, count: Number(days) }) : plan) : null;
  }
  if (entry.action === 'guest.invited') return [pick('storeName'), pick('email')].filter(Boolean).join(', ') || null;
  if (entry.action === 'guest.removed') return pick('storeName');
  if (entry.action === 'email.retry_delivery') {
    const id = pick('emailId');
    return id ? t('audit.emailNumber', { id }) : null;
  }
  if (entry.action === 'affiliate.override_changed') {
    const after = (details.after ?? {}) as { commissionRatePercent?: number | null; commissionMonths?: number | null };
    return t('audit.overrides', {
      rate: after.commissionRatePercent == null ? t('audit.defaultValue') : `${after.commissionRatePercent} %`,
      months: after.commissionMonths == null ? t('audit.defaultValue') : String(after.commissionMonths),
    });
  }
  if (entry.action.startsWith('affiliate.payout_')) {
    const amount = pick('amountMinor');
    const currency = pick('currency');
    return [amount && currency ? formatMoneyExact(Number(amount), currency, locale) : null, pick('reference')].filter(Boolean).join(', ') || null;
  }
  if (entry.action === 'email_template.updated') {
    const key = pick('key');
    return key ? t(`email.templates.${key}.name`, { defaultValue: key }) : null;
  }
  return null;
}

function ShieldCheck() {
  return (
    <svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />
      <path d="m9 12 2 2 4-4" />
    </svg>
  );
}
