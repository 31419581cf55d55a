import { GlobeIcon } from 'lucide-react';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { FeedIssue, PageCheckState } from '../../../shared/shopping-optimizer.ts';
import { toast } from '../../components/toast.tsx';
import { formatCurrency } from '../../lib/format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

export function isPageCheckActive(check: PageCheckState | null | undefined): boolean {
  return check?.status === 'queued' || check?.status === 'running';
}

function useDateTime() {
  const { i18n } = useTranslation();
  const format = new Intl.DateTimeFormat(i18n.resolvedLanguage, { dateStyle: 'medium', timeStyle: 'short' });
  return (iso: string | null) => (iso ? format.format(new Date(iso)) : '');
}

/** "Check product pages": the button, the run's progress, and when the last run finished. */
export function PageCheckPanel({ check }: { check: PageCheckState | null }) {
  const { t } = useTranslation('shopping-optimizer');
  const utils = trpc.useUtils();
  const when = useDateTime();
  const start = trpc.shoppingOptimizer.checkPages.useMutation({
    onSuccess: async () => {
      await utils.shoppingOptimizer.audit.invalidate();
      toast({ title: t('pageCheck.started'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('pageCheck.startFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  const active = isPageCheckActive(check);
  const finishedAt = check?.finishedAt ?? null;
  // A finished run changes the issues of the products the drawer may have cached.
  useEffect(() => {
    if (finishedAt) void utils.shoppingOptimizer.suggestions.invalidate();
  }, [finishedAt, utils]);
  const status = check === null ? t('pageCheck.never')
    : check.status === 'queued' ? t('pageCheck.queued')
    : check.status === 'running' ? t('pageCheck.running', { checked: check.checked, total: check.total })
    : check.status === 'done' ? t('pageCheck.done', { when: when(check.finishedAt), total: check.total })
    : t('pageCheck.failed', { when: when(check.finishedAt), error: check.error ?? '' });

  return (
    <section className="bg-base-100 border-base-content/10 rounded-box flex flex-col gap-3 border p-4 shadow-xs sm:flex-row sm:items-center" data-testid="page-check" data-state={check?.status ?? 'never'}>
      <div className="min-w-0 flex-1 space-y-1">
        <h2 className="flex items-center gap-2 font-semibold">
          <GlobeIcon className="text-base-content/70 size-4" aria-hidden="true" />
          {t('pageCheck.title')}
        </h2>
        <p className="text-base-content/70 text-sm">{t('pageCheck.body')}</p>
        <p className={`text-sm ${check?.status === 'failed' ? 'text-error' : 'font-medium'}`} role="status" data-testid="page-check-status">
          {status}
        </p>
        {active && check && (
          <progress className="progress progress-primary w-full max-w-md" value={check.checked} max={Math.max(check.total, 1)} aria-label={t('pageCheck.progressLabel')} />
        )}
      </div>
      <button type="button" className="btn btn-sm btn-primary gap-1 self-start sm:self-center" disabled={active || start.isPending} onClick={() => start.mutate(undefined)} data-testid="check-pages">
        {(active || start.isPending) && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
        {t('pageCheck.button')}
      </button>
    </section>
  );
}

/** Page against feed for one page check issue, in the drawer. */
export function PageCheckEvidence({ issue }: { issue: FeedIssue }) {
  const { t, i18n } = useTranslation('shopping-optimizer');
  const page = issue.page;
  if (!page) return null;
  const money = (minor: number, currency: string) => {
    try {
      return formatCurrency(minor / 100, currency, i18n.resolvedLanguage);
    } catch {
      return `${(minor / 100).toFixed(2)} ${currency}`;
    }
  };
  const stock = (value: string | null) => t(value === 'in_stock' ? 'pageCheck.inStock' : value === 'out_of_stock' ? 'pageCheck.outOfStock' : 'pageCheck.unknown');
  let detail: string;
  if (issue.type === 'page_error') detail = t(`pageCheck.errors.${page.error ?? 'network'}`, { status: page.httpStatus ?? '' });
  else if (issue.type === 'page_price_mismatch') detail = `${t('pageCheck.page')}: ${money(page.pagePriceMinor ?? 0, page.pageCurrency ?? page.feedCurrency)} · ${t('pageCheck.feed')}: ${money(page.feedPriceMinor, page.feedCurrency)}`;
  else detail = `${t('pageCheck.page')}: ${stock(page.pageAvailability)} · ${t('pageCheck.feed')}: ${stock(page.feedAvailability)}`;
  return (
    <span className="mt-1 block text-xs" data-testid="page-evidence">
      <span className="font-medium">{detail}</span>
      <a className="link text-base-content/60 block truncate" href={page.url} target="_blank" rel="noreferrer noopener">
        {page.url}
      </a>
    </span>
  );
}
