import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Brand } from '../../components/brand.tsx';
import { LanguageMenu } from '../../components/language-menu.tsx';
import { ThemeMenu } from '../../components/theme-menu.tsx';

/** The frame of a page shown outside the signed-in layout: brand, language and theme, the content. */
export function PublicShell({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const { t } = useTranslation('account');
  return (
    <div className="flex min-h-screen flex-col">
      <header className="bg-base-100/80 border-base-content/10 sticky top-0 z-10 border-b backdrop-blur">
        <div className="mx-auto flex h-16 w-full max-w-6xl items-center gap-2 px-4 sm:px-6">
          <Link href="/" className="shrink-0 rounded-lg" aria-label={t('shell.home')}>
            <Brand />
          </Link>
          <div className="ml-auto flex items-center gap-1">
            <LanguageMenu />
            <ThemeMenu />
            {actions}
          </div>
        </div>
      </header>
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 sm:px-6 sm:py-10">{children}</main>
    </div>
  );
}
