import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Brand } from '../../components/brand.tsx';

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-6 p-6 text-center">
      <Brand />
      <div>
        <p className="text-primary text-sm font-semibold tracking-widest">{t('notFound.code')}</p>
        <h1 className="mt-2 text-3xl font-bold tracking-tight">{t('notFound.title')}</h1>
        <p className="text-base-content/70 mx-auto mt-3 max-w-md">{t('notFound.body')}</p>
      </div>
      <Link href="/" className="btn btn-primary">
        {t('notFound.home')}
      </Link>
    </main>
  );
}
