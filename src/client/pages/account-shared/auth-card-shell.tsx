import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Brand } from '../../components/brand.tsx';
import { LanguageMenu } from '../../components/language-menu.tsx';
import { ThemeMenu } from '../../components/theme-menu.tsx';

/** The frame of the signed-out account pages (forgot / reset password), matching the sign-in page. */
export function AuthCardShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation('account');
  return (
    <div className="flex min-h-screen flex-col">
      <div className="flex justify-end gap-1 p-3 sm:p-4">
        <LanguageMenu />
        <ThemeMenu />
      </div>
      <main className="flex flex-1 flex-col items-center px-4 pt-2 pb-16 sm:justify-center sm:pt-0">
        <Link href="/auth" className="mb-8 rounded-lg" aria-label={t('shell.signInPage')}>
          <Brand size="lg" />
        </Link>
        <div className="card bg-base-100 border-base-content/10 w-full max-w-md border shadow-xl">
          <div className="card-body gap-5 p-6 sm:p-8">{children}</div>
        </div>
      </main>
    </div>
  );
}

interface AuthOutcomeProps {
  tone: 'warning' | 'success';
  icon: ReactNode;
  title: string;
  body: string;
  /** `alert` for a failure, `status` for a success. */
  role: 'alert' | 'status';
  testId?: string;
  bodyTestId?: string;
  /** Under the text: what to do next. */
  children: ReactNode;
}

/** How a signed-out account page ended (e-mail sent, password changed, link invalid): icon, title, text, next step. */
export function AuthOutcome({ tone, icon, title, body, role, testId, bodyTestId, children }: AuthOutcomeProps) {
  return (
    <div className="flex flex-col items-center gap-3 text-center" data-testid={testId}>
      <span className={`grid size-12 place-items-center rounded-full text-2xl ${tone === 'warning' ? 'bg-warning/15 text-warning' : 'bg-success/15 text-success'}`} aria-hidden="true">
        {icon}
      </span>
      <h1 className="text-xl font-semibold">{title}</h1>
      <p role={role} className="text-base-content/80 text-sm" data-testid={bodyTestId}>
        {body}
      </p>
      {children}
    </div>
  );
}

export function BackToSignIn() {
  const { t } = useTranslation('account');
  return (
    <p className="text-center text-sm">
      <Link href="/auth" className="link link-hover font-medium">
        {t('forgot.backToSignIn')}
      </Link>
    </p>
  );
}
