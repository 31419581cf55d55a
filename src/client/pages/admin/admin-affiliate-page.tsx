import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ArrowLeftIcon, GiftIcon } from 'lucide-react';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { AdminTabs } from './admin-shared.tsx';
import { ErrorBlock, LoadingBlock, PageHeader, useDates } from './ui.tsx';

/** /admin/affiliate/{id}: a user's affiliate standing; the programme's figures arrive with a later release. */
export function AdminAffiliatePage({ userId }: { userId: string }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const id = /^\d+$/.test(userId) ? Number(userId) : null;
  const detail = trpc.admin.userDetail.useQuery({ userId: id ?? 0 }, { enabled: id !== null, retry: false });
  const notFound = id === null || detail.error?.data?.code === 'NOT_FOUND';

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <Link href={id === null ? '/admin' : `/admin/user-dashboard/${id}`} className="link link-hover text-base-content/75 inline-flex items-center gap-1.5 text-sm">
        <ArrowLeftIcon />
        {id === null ? t('detail.back') : t('affiliate.back')}
      </Link>
      <PageHeader title={t('affiliate.title')} description={t('affiliate.description')} />
      <AdminTabs />

      {notFound ? (
        <div className="card bg-base-100 border-base-content/10 border">
          <div className="card-body items-center py-12 text-center">
            <h2 className="text-xl font-semibold">{t('detail.notFound.title')}</h2>
            <p className="text-base-content/75">{t('detail.notFound.body')}</p>
          </div>
        </div>
      ) : detail.isPending ? (
        <LoadingBlock label={t('common.loading')} />
      ) : detail.isError ? (
        <ErrorBlock message={t('common.loadFailed', { message: serverMessage(detail.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void detail.refetch()} />
      ) : (
        <>
          <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="affiliate-user">
            <div className="card-body flex-row flex-wrap items-center gap-4 p-4 sm:p-5">
              <span className="bg-primary/15 text-primary grid size-12 shrink-0 place-items-center rounded-full text-lg font-semibold" aria-hidden="true">
                {detail.data.user.username.slice(0, 1).toUpperCase()}
              </span>
              <div className="min-w-0 flex-1">
                <h2 id="affiliate-user" className="font-semibold break-all">
                  {detail.data.user.username}
                </h2>
                <p className="text-base-content/75 text-sm break-all">{detail.data.user.email}</p>
              </div>
              <dl className="grid w-full grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm sm:w-auto">
                <dt className="text-base-content/70">{t('detail.account.joined')}</dt>
                <dd className="font-medium">{dates.date(detail.data.user.createdAt)}</dd>
                <dt className="text-base-content/70">{t('detail.access.plan')}</dt>
                <dd className="font-medium">{detail.data.subscriptions[0]?.plan ?? t('users.noPlan')}</dd>
              </dl>
            </div>
          </section>

          <ul className="grid grid-cols-3 gap-2 sm:gap-3">
            {(['referrals', 'conversions', 'commission'] as const).map((key) => (
              <li key={key} className="bg-base-100 border-base-content/10 rounded-box border p-3 sm:p-4">
                <p className="text-base-content/80 text-xs font-semibold sm:text-sm">{t(`affiliate.kpis.${key}`)}</p>
                <p className="text-base-content/50 mt-2 text-2xl font-semibold">
                  <span aria-hidden="true">—</span>
                  <span className="sr-only">{t('affiliate.noData')}</span>
                </p>
              </li>
            ))}
          </ul>

          <section className="bg-base-100 rounded-box border-base-content/15 border border-dashed px-5 py-12 text-center sm:px-10" data-testid="affiliate-empty">
            <div className="bg-primary/10 text-primary ring-primary/15 mx-auto grid size-16 place-items-center rounded-2xl text-3xl ring-1" aria-hidden="true">
              <GiftIcon />
            </div>
            <h2 className="mt-5 text-lg font-semibold text-balance">{t('affiliate.empty.title')}</h2>
            <p className="text-base-content/75 mx-auto mt-2 max-w-xl text-sm leading-relaxed text-pretty">
              {t('affiliate.empty.body', { username: detail.data.user.username })}
            </p>
            <Link href={`/admin/user-dashboard/${detail.data.user.id}`} className="btn btn-primary mt-6">
              {t('affiliate.empty.action')}
            </Link>
          </section>
        </>
      )}
    </div>
  );
}
