import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Brand } from '../components/brand.tsx';
import { LanguageMenu } from '../components/language-menu.tsx';
import { ThemeMenu } from '../components/theme-menu.tsx';
import { LogoutButton } from './logout-button.tsx';

interface LayoutUser {
  username: string;
}

/** The signed-in shell: a header with the brand, the account and the pickers, then the page. */
export function AppLayout({ user, children }: { user: LayoutUser; children: ReactNode }) {
  const { t } = useTranslation();
  const initial = user.username.slice(0, 1).toUpperCase();
  return (
    <div className="flex min-h-screen flex-col">
      <header className="bg-base-100 border-base-content/10 sticky top-0 z-10 border-b">
        <div className="mx-auto flex h-16 w-full max-w-6xl items-center gap-2 px-4 sm:px-6">
          <Link href="/dashboard" className="shrink-0 rounded-lg" aria-label={t('layout.home')}>
            <Brand />
          </Link>
          <div className="ml-auto flex min-w-0 items-center gap-1 sm:gap-2">
            <LanguageMenu />
            <ThemeMenu />
            <div className="bg-base-300 mx-1 hidden h-6 w-px sm:block" aria-hidden="true" />
            <div className="hidden min-w-0 items-center gap-2 sm:flex" title={t('layout.signedInAs', { username: user.username })}>
              <span className="bg-primary/15 text-primary grid size-8 shrink-0 place-items-center rounded-full text-sm font-semibold" aria-hidden="true">
                {initial}
              </span>
              <span className="max-w-40 truncate text-sm font-medium" data-testid="header-username">
                {user.username}
              </span>
            </div>
            <LogoutButton />
          </div>
        </div>
      </header>
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 sm:px-6 sm:py-8">{children}</main>
    </div>
  );
}
