import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

/** What a user's plan state is called in the console. */
export type PlanState = 'trial' | 'active' | 'past_due' | 'canceled' | 'expired' | 'none';

export function planStateOf(user: { subscriptionStatus: string | null; hasActiveSubscription: boolean }): PlanState {
  if (!user.subscriptionStatus) return 'none';
  if (user.subscriptionStatus === 'canceled') return 'canceled';
  if (!user.hasActiveSubscription) return 'expired';
  return user.subscriptionStatus as PlanState;
}

const STATE_CLASS: Record<PlanState, string> = {
  trial: 'border-info/50 bg-info/10 text-base-content',
  active: 'border-success/50 bg-success/10 text-base-content',
  past_due: 'border-warning/60 bg-warning/15 text-base-content',
  canceled: 'badge-ghost',
  expired: 'badge-ghost',
  none: 'badge-ghost',
};

export function PlanStateBadge({ state }: { state: PlanState }) {
  const { t } = useTranslation('admin');
  return <span className={`badge badge-sm whitespace-nowrap ${STATE_CLASS[state]}`}>{t(`planState.${state}`)}</span>;
}

/** "View as user": enters guest mode, then loads the dashboard as that user (a full page load). */
export function useViewAsUser() {
  const { t } = useTranslation('admin');
  const enter = trpc.admin.enterGuestMode.useMutation({
    onSuccess: () => {
      window.location.href = '/dashboard';
    },
    onError: (error) => toast({ title: t('viewAs.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  });
  return enter;
}

/** The console's own navigation: users, overview, e-mail templates. */
export function AdminTabs() {
  const { t } = useTranslation('admin');
  const [location] = useLocation();
  const links = [
    { href: '/admin', label: t('nav.users'), active: location === '/admin' || location.startsWith('/admin/user-dashboard') || location.startsWith('/admin/affiliate') },
    { href: '/admin/dashboard', label: t('nav.overview'), active: location === '/admin/dashboard' },
    { href: '/admin/email-management', label: t('nav.email'), active: location === '/admin/email-management' },
  ];
  return (
    <nav aria-label={t('nav.label')} className="tabs tabs-border -mb-2 overflow-x-auto whitespace-nowrap">
      {links.map((link) => (
        <Link key={link.href} href={link.href} className={`tab ${link.active ? 'tab-active font-medium' : 'text-base-content/80!'}`} aria-current={link.active ? 'page' : undefined}>
          {link.label}
        </Link>
      ))}
    </nav>
  );
}

/** Human words for audit actions. */
export function useAuditText() {
  const { t } = useTranslation('admin');
  return (action: string) => (t(`audit.actions.${action}`, { defaultValue: action }) as string);
}
