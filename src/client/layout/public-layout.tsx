import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Brand } from '../components/brand.tsx';
import { LanguageMenu } from '../components/language-menu.tsx';
import { ThemeMenu } from '../components/theme-menu.tsx';

/** Public pages for signed-out visitors (pricing): the brand, the pickers and a way to sign in; no sidebar. */
export function PublicLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation(['shell', 'common']);
  return (
    <div className="flex min-h-screen flex-col">
      <header className="bg-base-100/95 border-base-content/10 sticky top-0 z-30 border-b backdrop-blur">
        <div className="mx-auto flex h-16 w-full max-w-7xl items-center gap-2 px-4 sm:px-6">
          <Link href="/" className="rounded-box shrink-0" aria-label={t('common:layout.home')}>
            <Brand />
          </Link>
          <div className="ml-auto flex items-center gap-1">
            <LanguageMenu />
            <ThemeMenu />
            <Link href="/auth" className="btn btn-primary btn-sm ml-1">
              {t('public.signIn')}
            </Link>
          </div>
        </div>
      </header>
      <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 sm:py-10">{children}</main>
    </div>
  );
}
