import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ArrowRightIcon, CalendarIcon, CreditCardIcon, MailIcon, SettingsIcon, StoreIcon } from 'lucide-react';
import { useAuth } from '../../lib/auth.tsx';
import { currentLanguage } from '../../lib/i18n.ts';
import { STORES_QUERY, SUBSCRIPTION_QUERY } from '../../lib/query-settings.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../account-shared/format.ts';
import { InlineLoading, PageHeader } from '../account-shared/page-header.tsx';

const STATUS_BADGE: Record<string, string> = {
  trial: 'badge-primary',
  active: 'badge-success',
  past_due: 'badge-warning',
  canceled: 'badge-ghost',
};

function QuickLink({ href, icon, title, body }: { href: string; icon: ReactNode; title: string; body: string }) {
  return (
    <Link
      href={href}
      className="card bg-base-100 border-base-content/10 hover:border-primary/60 focus-visible:outline-primary group border shadow-sm transition-colors"
    >
      <div className="card-body flex-row items-center gap-4 p-5">
        <span className="bg-primary/10 text-primary grid size-10 shrink-0 place-items-center rounded-xl text-lg" aria-hidden="true">
          {icon}
        </span>
        <span className="min-w-0 flex-1">
          <span className="block font-semibold">{title}</span>
          <span className="text-base-content/70 block text-sm">{body}</span>
        </span>
        <ArrowRightIcon className="text-base-content/40 group-hover:text-primary shrink-0 transition-colors" />
      </div>
    </Link>
  );
}

/** /profile: who the user is, their plan and their stores at a glance, with the ways to change them. */
export function ProfilePage() {
  const { t } = useTranslation('account');
  const { session } = useAuth();
  const current = trpc.subscription.current.useQuery(undefined, SUBSCRIPTION_QUERY);
  const stores = trpc.stores.list.useQuery(undefined, STORES_QUERY);
  const language = currentLanguage();

  if (session.status !== 'signedIn') return <InlineLoading label={t('profile.loading')} />;
  const user = session.user;
  const subscription = current.data?.access === 'own' ? current.data.subscription : null;
  const ownStores = stores.data?.filter((store) => store.role === 'owner').length ?? 0;
  const sharedStores = (stores.data?.length ?? 0) - ownStores;

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <PageHeader title={t('profile.title')} description={t('profile.description')} />

      <div className="grid gap-4 lg:grid-cols-3">
        <section className="card bg-base-100 border-base-content/10 border shadow-sm lg:col-span-2" aria-labelledby="profile-identity">
          <div className="card-body flex-row items-center gap-4 sm:gap-5">
            <div className="avatar avatar-placeholder">
              <div className="bg-primary text-primary-content size-14 rounded-full sm:size-20">
                <span className="text-2xl font-semibold sm:text-3xl" aria-hidden="true">
                  {user.username.slice(0, 1).toUpperCase()}
                </span>
              </div>
            </div>
            <div className="min-w-0 flex-1 space-y-2">
              <div className="flex flex-wrap items-center gap-2">
                <h2 id="profile-identity" className="text-xl font-bold break-all sm:text-2xl">
                  {user.username}
                </h2>
                {user.isAdmin && <span className="badge badge-primary badge-sm">{t('profile.admin')}</span>}
                {user.isGuest && <span className="badge badge-ghost badge-sm">{t('profile.guest')}</span>}
              </div>
              <dl className="text-base-content/80 grid gap-1.5 text-sm">
                <div className="flex items-center gap-2">
                  <dt className="sr-only">{t('profile.email')}</dt>
                  <MailIcon className="text-base-content/50 shrink-0" />
                  <dd className="min-w-0 break-all">{user.email}</dd>
                </div>
                <div className="flex items-center gap-2">
                  <dt className="sr-only">{t('profile.memberSinceLabel')}</dt>
                  <CalendarIcon className="text-base-content/50 shrink-0" />
                  <dd>{t('profile.memberSince', { date: formatDate(user.createdAt, language) })}</dd>
                </div>
              </dl>
            </div>
          </div>
        </section>

        <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="profile-plan" data-testid="profile-plan">
          <div className="card-body gap-2">
            <h2 id="profile-plan" className="text-base-content/70 text-sm font-semibold tracking-wide uppercase">
              {t('profile.plan')}
            </h2>
            {current.isPending ? (
              <div className="skeleton h-14 w-full" aria-hidden="true" />
            ) : subscription ? (
              <>
                <div className="flex flex-wrap items-center gap-2">
                  <span className="text-2xl font-bold">{subscription.plan.name}</span>
                  <span className={`badge badge-sm ${STATUS_BADGE[subscription.status] ?? 'badge-ghost'}`}>
                    {t(`profile.status.${subscription.status}`)}
                  </span>
                </div>
                <p className="text-base-content/70 text-sm">
                  {t(
                    !current.data?.hasActiveSubscription
                      ? 'profile.periodEnded'
                      : subscription.status === 'trial'
                        ? 'profile.trialEnds'
                        : subscription.status === 'canceled'
                          ? 'profile.periodEnds'
                          : 'profile.renews',
                    { date: formatDate(subscription.currentPeriodEnd, language) },
                  )}
                </p>
              </>
            ) : current.data?.access === 'guest' ? (
              <p className="text-sm">{t('profile.guestAccess')}</p>
            ) : (
              <p className="text-sm">{user.isAdmin ? t('profile.adminAccess') : t('profile.noPlan')}</p>
            )}
            <Link href="/pricing" className="btn btn-outline btn-sm mt-auto self-start">
              {subscription?.status === 'trial' || !subscription ? t('profile.choosePlan') : t('profile.changePlan')}
            </Link>
          </div>
        </section>
      </div>

      <section className="card bg-base-100 border-base-content/10 border shadow-sm" aria-labelledby="profile-stores">
        <div className="card-body flex-row flex-wrap items-center gap-4">
          <span className="bg-base-200 grid size-12 shrink-0 place-items-center rounded-xl text-xl" aria-hidden="true">
            <StoreIcon />
          </span>
          <div className="min-w-0 flex-1">
            <h2 id="profile-stores" className="font-semibold">
              {t('profile.stores')}
            </h2>
            {stores.isPending ? (
              <div className="skeleton mt-1 h-4 w-32" aria-hidden="true" />
            ) : (
              <p className="text-base-content/70 text-sm" data-testid="profile-store-count">
                {t('profile.storeCount', { count: ownStores })}
                {sharedStores > 0 && ` · ${t('profile.sharedCount', { count: sharedStores })}`}
              </p>
            )}
          </div>
          <Link href="/store-management" className="btn btn-outline btn-sm">
            {t('profile.manageStores')}
          </Link>
        </div>
      </section>

      <nav aria-label={t('profile.linksLabel')} className="grid gap-4 md:grid-cols-3">
        <QuickLink href="/settings" icon={<SettingsIcon />} title={t('profile.links.settings.title')} body={t('profile.links.settings.body')} />
        <QuickLink
          href="/store-management"
          icon={<StoreIcon />}
          title={t('profile.links.stores.title')}
          body={t('profile.links.stores.body')}
        />
        <QuickLink href="/pricing" icon={<CreditCardIcon />} title={t('profile.links.pricing.title')} body={t('profile.links.pricing.body')} />
      </nav>
    </div>
  );
}
