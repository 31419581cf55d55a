import { useTranslation } from 'react-i18next';

/** Full-page spinner with a line of text, for route and sign-in checks. */
export function PageLoading({ message }: { message: string }) {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center gap-4 p-6" role="status" aria-live="polite">
      <span className="loading loading-spinner loading-lg text-primary" aria-hidden="true" />
      <p className="text-base-content/70 text-sm">{message}</p>
    </div>
  );
}

/** Full-page failure with a retry button (the server could not be reached, for instance). */
export function PageError({ title, message, onRetry }: { title: string; message?: string | null; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="flex min-h-screen items-center justify-center p-6">
      <div role="alert" className="card bg-base-100 border-base-content/10 w-full max-w-md border shadow-sm">
        <div className="card-body items-center text-center">
          <h1 className="card-title">{title}</h1>
          <p className="text-base-content/70 text-sm">{message ?? t('status.connectionHint')}</p>
          <div className="card-actions mt-2">
            <button type="button" className="btn btn-primary" onClick={onRetry}>
              {t('status.retry')}
            </button>
          </div>
        </div>
      </div>
    </div>
  );
}
