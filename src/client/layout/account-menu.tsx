import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ChevronDownIcon, CreditCardIcon, GiftIcon, LifeBuoyIcon, LightbulbIcon, LogOutIcon, MailIcon, MonitorIcon, MoonIcon, SettingsIcon, ShieldIcon, SparklesIcon, StoreIcon, SunIcon, UserIcon, UsersIcon } from 'lucide-react';
import { Popover } from '../components/popover.tsx';
import { toast } from '../components/toast.tsx';
import type { Access } from '../lib/access.ts';
import { useCurrency } from '../lib/currency.tsx';
import { LANGUAGES, currentLanguage } from '../lib/i18n.ts';
import type { CurrentUser } from '../lib/session.ts';
import { serverMessage } from '../lib/session.ts';
import { THEME_PREFERENCES, useTheme, type ThemePreference } from '../lib/theme.tsx';
import { CURRENCIES, CURRENCY_CODES } from '../../shared/currencies.ts';

const THEME_ICONS: Record<ThemePreference, typeof SunIcon> = { light: SunIcon, dark: MoonIcon, system: MonitorIcon };

/** Logging out is a navigation: GET /api/logout ends the session and redirects to /auth. */
function LogoutButton() {
  const { t } = useTranslation('shell');
  const [loggingOut, setLoggingOut] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-ghost btn-sm text-error w-full justify-start gap-2 font-medium"
      disabled={loggingOut}
      aria-busy={loggingOut}
      onClick={() => {
        setLoggingOut(true);
        try {
          window.location.assign('/api/logout');
        } catch (error) {
          setLoggingOut(false);
          toast({ title: t('account.logoutFailed'), description: error instanceof Error ? error.message : String(error), variant: 'destructive' });
        }
      }}
    >
      {loggingOut ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <LogOutIcon />}
      {loggingOut ? t('account.loggingOut') : t('account.logout')}
    </button>
  );
}

function ThemePicker() {
  const { t } = useTranslation(['shell', 'common']);
  const { preference, setPreference } = useTheme();
  return (
    <div role="group" aria-labelledby="account-theme-label" className="flex items-center justify-between gap-3">
      <span id="account-theme-label" className="text-sm">
        {t('account.preferences.theme')}
      </span>
      <div className="join">
        {THEME_PREFERENCES.map((option) => {
          const Icon = THEME_ICONS[option];
          const selected = option === preference;
          return (
            <button
              key={option}
              type="button"
              className={`btn btn-sm join-item btn-square ${selected ? 'btn-primary' : 'btn-ghost border-base-content/15'}`}
              aria-pressed={selected}
              aria-label={t(`common:theme.${option}`)}
              title={t(`common:theme.${option}`)}
              onClick={() => setPreference(option)}
            >
              <Icon />
            </button>
          );
        })}
      </div>
    </div>
  );
}

function LanguagePicker() {
  const { t, i18n } = useTranslation(['shell', 'common']);
  return (
    <label className="flex items-center justify-between gap-3">
      <span className="text-sm">{t('account.preferences.language')}</span>
      <select
        className="select select-sm w-40"
        value={currentLanguage()}
        onChange={(event) => void i18n.changeLanguage(event.target.value)}
        data-testid="language-select"
      >
        {LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {t(`common:language.names.${language}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

function CurrencyPicker() {
  const { t } = useTranslation('shell');
  const { currency, setCurrency, saving } = useCurrency();
  return (
    <label className="flex items-center justify-between gap-3">
      <span className="flex items-center gap-2 text-sm">
        {t('account.preferences.currency')}
        {saving && (
          <span className="text-base-content/70 inline-flex items-center gap-1 text-xs" role="status">
            <span className="loading loading-spinner loading-xs" aria-hidden="true" />
            {t('account.preferences.saving')}
          </span>
        )}
      </span>
      <select
        className="select select-sm w-40"
        value={currency}
        disabled={saving}
        aria-busy={saving}
        data-testid="currency-select"
        onChange={(event) => {
          const code = event.target.value;
          setCurrency(code).then(
            () => toast({ title: t('account.preferences.currencySaved', { name: t(`currencies.${code}`) }), variant: 'success' }),
            (error: unknown) =>
              toast({
                title: t('toast.error'),
                description: serverMessage(error) ?? (error instanceof Error ? error.message : String(error)),
                variant: 'destructive',
              }),
          );
        }}
      >
        {CURRENCY_CODES.map((code) => (
          <option key={code} value={code}>
            {t('account.preferences.currencyOption', { code, symbol: CURRENCIES[code].symbol, name: t(`currencies.${code}`) })}
          </option>
        ))}
      </select>
    </label>
  );
}

function MenuLink({ href, icon: Icon, label, onNavigate }: { href: string; icon: typeof SunIcon; label: string; onNavigate: () => void }) {
  return (
    <li>
      <Link href={href} onClick={onNavigate} className="gap-3">
        <Icon className="text-base-content/70 text-base" />
        {label}
      </Link>
    </li>
  );
}

/**
 * The account menu, with the spec's entries word for word: pages of the account, admin tools (Admin
 * Dashboard, Email Templates; the console's Users list is its first tab), preferences, the trial, and
 * logout. Manage Users lives on Guest Users and Store Management.
 */
export function AccountMenu({ user, access }: { user: CurrentUser; access: Access }) {
  const { t, i18n } = useTranslation('shell');
  const initial = user.username.slice(0, 1).toUpperCase();
  const trialEnd = access.trialEndsAt ? new Date(access.trialEndsAt) : null;
  const trialEndText =
    trialEnd && !Number.isNaN(trialEnd.getTime())
      ? new Intl.DateTimeFormat(i18n.resolvedLanguage ?? 'en', { day: 'numeric', month: 'short', year: 'numeric' }).format(trialEnd)
      : null;

  return (
    <Popover
      testId="account-menu"
      triggerClassName="btn btn-ghost h-auto min-h-10 gap-2 px-1.5 py-1 sm:px-2"
      panelClassName="w-80 max-w-[calc(100vw-1rem)] max-h-[calc(100vh-5rem)] overflow-y-auto"
      trigger={
        <>
          <span className="sr-only">{t('account.button')}</span>
          <span className="bg-primary text-primary-content grid size-8 shrink-0 place-items-center rounded-full text-sm font-semibold" aria-hidden="true">
            {initial}
          </span>
          <span className="hidden max-w-32 truncate text-sm font-medium lg:inline" data-testid="header-username">
            {user.username}
          </span>
          {trialEnd && <span className="badge badge-primary badge-sm hidden sm:inline-flex">{t('account.trial.badge')}</span>}
          <ChevronDownIcon className="text-base-content/60 hidden sm:block" />
        </>
      }
    >
      {(close) => (
        <div className="text-sm">
          <div className="border-base-content/10 flex items-center gap-3 border-b p-4">
            <span className="bg-primary text-primary-content grid size-10 shrink-0 place-items-center rounded-full font-semibold" aria-hidden="true">
              {initial}
            </span>
            <div className="min-w-0">
              <p className="truncate font-semibold">{user.username}</p>
              <p className="text-base-content/70 truncate text-xs">{user.email}</p>
            </div>
          </div>

          {trialEnd && (
            <div className="bg-primary/8 border-base-content/10 flex items-center justify-between gap-3 border-b px-4 py-3" data-testid="trial-info">
              <div className="min-w-0">
                <span className="badge badge-primary badge-sm">{t('account.trial.badge')}</span>
                {trialEndText && <p className="text-base-content/80 mt-1 text-xs">{t('account.trial.endsOn', { date: trialEndText })}</p>}
              </div>
              <Link href="/pricing" className="btn btn-primary btn-sm gap-1.5" onClick={close}>
                <SparklesIcon />
                {t('account.trial.upgrade')}
              </Link>
            </div>
          )}

          <ul className="menu w-full p-2">
            <MenuLink href="/profile" icon={UserIcon} label={t('account.links.profile')} onNavigate={close} />
            {!user.isGuest && access.toolsAvailable && (
              <MenuLink href="/guest-users" icon={UsersIcon} label={t('account.links.guestUsers')} onNavigate={close} />
            )}
            <MenuLink href="/affiliate-dashboard" icon={GiftIcon} label={t('account.links.affiliate')} onNavigate={close} />
            <MenuLink href="/pricing" icon={CreditCardIcon} label={t('account.links.pricing')} onNavigate={close} />
            <MenuLink href="/settings" icon={SettingsIcon} label={t('account.links.settings')} onNavigate={close} />
            <MenuLink href="/help-center" icon={LifeBuoyIcon} label={t('account.links.helpCenter')} onNavigate={close} />
            <MenuLink href="/request-feature" icon={LightbulbIcon} label={t('account.links.requestFeature')} onNavigate={close} />
            <MenuLink href="/store-management" icon={StoreIcon} label={t('account.links.storeManagement')} onNavigate={close} />
          </ul>

          {access.isAdmin && (
            <div className="border-base-content/10 border-t">
              <p className="text-base-content/70 px-6 pt-3 text-xs font-semibold tracking-wide uppercase">{t('account.admin.heading')}</p>
              <ul className="menu w-full p-2">
                <MenuLink href="/admin/dashboard" icon={ShieldIcon} label={t('account.admin.dashboard')} onNavigate={close} />
                <MenuLink href="/admin/email-management" icon={MailIcon} label={t('account.admin.emailTemplates')} onNavigate={close} />
              </ul>
            </div>
          )}

          <div className="border-base-content/10 space-y-3 border-t px-4 py-3">
            <p className="text-base-content/70 text-xs font-semibold tracking-wide uppercase">{t('account.preferences.heading')}</p>
            <ThemePicker />
            <LanguagePicker />
            <CurrencyPicker />
          </div>

          <div className="border-base-content/10 border-t p-2">
            <LogoutButton />
          </div>
        </div>
      )}
    </Popover>
  );
}
