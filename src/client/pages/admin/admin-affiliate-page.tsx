import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { ArrowLeftIcon, GiftIcon } from 'lucide-react';
import {
  commissionMonthsOverrideSchema,
  commissionRateOverrideSchema,
  DEFAULT_COMMISSION_MONTHS,
  DEFAULT_COMMISSION_RATE_PERCENT,
  type AffiliateDetail,
  type Payout,
} from '../../../shared/affiliates.ts';
import { formatMoneyExact } from '../../../shared/currencies.ts';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { PAYOUT_STATUS_CLASS } from '../affiliates/affiliate-payouts.tsx';
import { AuditList } from './admin-dashboard-page.tsx';
import { AdminTabs } from './admin-shared.tsx';
import { ErrorBlock, LoadingBlock, PageHeader, Section, useDates } from './ui.tsx';

/** /admin/affiliate/{userId}: one affiliate's referrals, commissions, overrides, payouts, flags and audit trail. */
export function AdminAffiliatePage({ userId }: { userId: string }) {
  const { t } = useTranslation('admin');
  const id = /^\d+$/.test(userId) ? Number(userId) : null;
  const detail = trpc.affiliateAdmin.detail.useQuery({ userId: id ?? 0 }, { enabled: id !== null, retry: false });
  const notFound = id === null || detail.error?.data?.code === 'NOT_FOUND';

  return (
    <div className="mx-auto max-w-7xl space-y-6" data-testid="admin-affiliate" data-state={detail.isPending ? 'loading' : 'ready'}>
      <Link href={id === null ? '/admin' : `/admin/user-dashboard/${id}`} className="link link-hover text-base-content/75 inline-flex items-center gap-1.5 text-sm">
        <ArrowLeftIcon />
        {id === null ? t('detail.back') : t('affiliate.back')}
      </Link>
      <PageHeader title={detail.data ? t('affiliate.titleOf', { username: detail.data.affiliate.username }) : t('affiliate.title')} description={detail.data?.affiliate.email ?? t('affiliate.description')} />
      <AdminTabs />

      {notFound ? (
        <section className="bg-base-100 rounded-box border-base-content/15 border border-dashed px-5 py-12 text-center sm:px-10" data-testid="affiliate-empty">
          <div className="bg-primary/10 text-primary ring-primary/15 mx-auto grid size-16 place-items-center rounded-2xl text-3xl ring-1" aria-hidden="true">
            <GiftIcon />
          </div>
          <h2 className="mt-5 text-lg font-semibold text-balance">{t('affiliate.empty.title')}</h2>
          <p className="text-base-content/75 mx-auto mt-2 max-w-xl text-sm leading-relaxed text-pretty">{t('affiliate.empty.body')}</p>
          {id !== null && (
            <Link href={`/admin/user-dashboard/${id}`} className="btn btn-primary mt-6">
              {t('affiliate.empty.action')}
            </Link>
          )}
        </section>
      ) : detail.isPending ? (
        <LoadingBlock label={t('common.loading')} />
      ) : detail.isError ? (
        <ErrorBlock message={t('common.loadFailed', { message: serverMessage(detail.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void detail.refetch()} />
      ) : (
        <AffiliateDetailView data={detail.data} />
      )}
    </div>
  );
}

function AffiliateDetailView({ data }: { data: AffiliateDetail }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  const money = (minor: number, currency = data.currency) => formatMoneyExact(minor, currency, dates.locale);
  const count = (value: number) => new Intl.NumberFormat(dates.locale).format(value);
  const tiles = [
    ['referrals', count(data.kpis.referrals)],
    ['paying', count(data.kpis.paying)],
    ['earned', money(data.kpis.earnedMinor)],
    ['pending', money(data.kpis.pendingMinor)],
    ['payable', money(data.kpis.payableMinor)],
    ['paid', money(data.kpis.paidMinor)],
  ] as const;

  return (
    <>
      <ul className="grid grid-cols-2 gap-2 sm:grid-cols-3 sm:gap-3 xl:grid-cols-6">
        {tiles.map(([key, value]) => (
          <li key={key} className="bg-base-100 border-base-content/10 rounded-box border p-3 shadow-sm sm:p-4" data-testid={`affiliate-admin-kpi-${key}`}>
            <p className="text-base-content/80 text-xs font-semibold sm:text-sm">{t(`affiliate.kpis.${key}`)}</p>
            <p className="mt-2 text-xl font-semibold tabular-nums sm:text-2xl">{value}</p>
          </li>
        ))}
      </ul>

      <div className="grid gap-4 lg:grid-cols-3">
        <OverridesForm data={data} />
        <PayoutsCard data={data} money={money} className="lg:col-span-2" />
      </div>

      <Section id="affiliate-commissions" title={t('affiliate.commissions.title')}>
        {data.commissions.length === 0 ? (
          <p className="text-base-content/70 px-5 py-6 text-sm">{t('affiliate.commissions.none')}</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="table table-sm" data-testid="affiliate-commissions">
              <thead>
                <tr>
                  <th scope="col">{t('affiliate.commissions.invoice')}</th>
                  <th scope="col">{t('affiliate.commissions.date')}</th>
                  <th scope="col" className="text-right">{t('affiliate.commissions.amount')}</th>
                  <th scope="col">{t('affiliate.commissions.status')}</th>
                  <th scope="col">{t('affiliate.commissions.payableAt')}</th>
                </tr>
              </thead>
              <tbody>
                {data.commissions.map((commission) => (
                  <tr key={commission.id}>
                    <td className="max-w-48 truncate font-mono text-xs" title={commission.invoice}>{commission.invoice}</td>
                    <td className="whitespace-nowrap">{commission.paidAt ? dates.date(commission.paidAt) : '—'}</td>
                    <td className="text-right whitespace-nowrap tabular-nums">
                      {money(commission.amountMinor, commission.currency)} <span className="text-base-content/60 text-xs">({commission.ratePercent} %)</span>
                    </td>
                    <td>
                      <span className={`badge badge-sm whitespace-nowrap ${commission.status === 'earned' ? 'border-success/50 bg-success/10 text-base-content' : commission.status === 'blocked' ? 'border-error/50 bg-error/10 text-base-content' : 'badge-ghost'}`}>
                        {t(`affiliate.commissions.statuses.${commission.status}`)}
                      </span>
                    </td>
                    <td className="whitespace-nowrap">{dates.date(commission.payableAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>

      <div className="grid gap-4 lg:grid-cols-2">
        <Section id="affiliate-referrals" title={t('affiliate.referrals.title')}>
          {data.referrals.length === 0 ? (
            <p className="text-base-content/70 px-5 py-6 text-sm">{t('affiliate.referrals.none')}</p>
          ) : (
            <ul className="divide-base-content/10 divide-y" data-testid="affiliate-referrals">
              {data.referrals.map((referral) => (
                <li key={referral.userId} className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 sm:px-5">
                  <div className="min-w-0">
                    <Link href={`/admin/user-dashboard/${referral.userId}`} className="link link-hover block font-medium break-all">
                      {referral.email}
                    </Link>
                    <p className="text-base-content/70 text-xs">{t('affiliate.referrals.line', { username: referral.username, date: dates.date(referral.signedUpAt) })}</p>
                  </div>
                  <span className="badge badge-sm badge-ghost whitespace-nowrap">
                    {[referral.planName, t(`affiliate.referrals.standing.${referral.standing}`)].filter(Boolean).join(' · ')}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Section>

        <Section id="affiliate-flags" title={t('affiliate.flags.title')}>
          {data.flags.length === 0 ? (
            <p className="text-base-content/70 px-5 py-6 text-sm">{t('affiliate.flags.none')}</p>
          ) : (
            <ul className="divide-base-content/10 divide-y" data-testid="affiliate-flags">
              {data.flags.map((flag) => (
                <li key={flag.id} className="px-4 py-3 sm:px-5">
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="badge badge-sm border-warning/60 bg-warning/15 text-base-content">{t(`affiliate.flags.kinds.${flag.kind}`)}</span>
                    <span className="text-base-content/70 text-xs">{dates.dateTime(flag.createdAt)}</span>
                  </div>
                  <p className="mt-1 text-sm break-words">{flag.detail}</p>
                </li>
              ))}
            </ul>
          )}
        </Section>
      </div>

      <Section id="affiliate-audit" title={t('affiliate.audit')}>
        <AuditList entries={data.audit} empty={t('affiliate.noAudit')} />
      </Section>
    </>
  );
}

/** Rate and duration: an empty field means the programme's default. */
function OverridesForm({ data }: { data: AffiliateDetail }) {
  const { t } = useTranslation('admin');
  const utils = trpc.useUtils();
  const [rate, setRate] = useState(data.affiliate.commissionRatePercent?.toString() ?? '');
  const [months, setMonths] = useState(data.affiliate.commissionMonths?.toString() ?? '');
  const [errors, setErrors] = useState<{ rate?: string; months?: string }>({});
  const save = trpc.affiliateAdmin.setOverrides.useMutation({
    onSuccess: () => {
      toast({ title: t('affiliate.overrides.saved') });
      void utils.affiliateAdmin.detail.invalidate({ userId: data.affiliate.userId });
    },
    onError: (error) => toast({ title: t('affiliate.overrides.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsedRate = rate.trim() === '' ? null : commissionRateOverrideSchema.safeParse(Number(rate));
    const parsedMonths = months.trim() === '' ? null : commissionMonthsOverrideSchema.safeParse(Number(months));
    const next = {
      rate: parsedRate && !parsedRate.success ? t('affiliate.overrides.rateError') : undefined,
      months: parsedMonths && !parsedMonths.success ? t('affiliate.overrides.monthsError') : undefined,
    };
    setErrors(next);
    if (next.rate || next.months) return;
    save.mutate({ userId: data.affiliate.userId, commissionRatePercent: parsedRate?.data ?? null, commissionMonths: parsedMonths?.data ?? null });
  }

  const field = (name: 'rate' | 'months', value: string, onChange: (value: string) => void, min: number, max: number, unit: string, placeholder: string) => (
    <div>
      <label className="label text-sm font-medium" htmlFor={`override-${name}`}>
        {t(`affiliate.overrides.${name}`)}
      </label>
      <label className={`input mt-1 w-full ${errors[name] ? 'input-error' : ''}`}>
        <input
          id={`override-${name}`}
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          step={1}
          className="grow tabular-nums"
          placeholder={placeholder}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={errors[name] ? true : undefined}
          aria-describedby={`override-${name}-hint`}
          data-testid={`override-${name}`}
        />
        <span className="text-base-content/60 text-sm">{unit}</span>
      </label>
      <p id={`override-${name}-hint`} className={`mt-1 text-xs ${errors[name] ? 'text-error' : 'text-base-content/70'}`}>
        {errors[name] ?? t(`affiliate.overrides.${name}Hint`)}
      </p>
    </div>
  );

  return (
    <Section id="affiliate-overrides" title={t('affiliate.overrides.title')}>
      <form className="space-y-4 p-4 sm:p-5" onSubmit={submit} noValidate data-testid="affiliate-overrides">
        {field('rate', rate, setRate, 0, 100, '%', t('affiliate.overrides.default', { value: `${DEFAULT_COMMISSION_RATE_PERCENT} %` }))}
        {field('months', months, setMonths, 1, 120, t('affiliate.overrides.monthsUnit'), t('affiliate.overrides.default', { value: DEFAULT_COMMISSION_MONTHS }))}
        <div className="flex flex-wrap gap-2">
          <button type="submit" className="btn btn-primary btn-sm" disabled={save.isPending} data-testid="override-save">
            {save.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
            {t('affiliate.overrides.save')}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => {
              setRate('');
              setMonths('');
              setErrors({});
            }}
          >
            {t('affiliate.overrides.useDefaults')}
          </button>
        </div>
      </form>
    </Section>
  );
}

function PayoutsCard({ data, money, className }: { data: AffiliateDetail; money: (minor: number, currency?: string) => string; className?: string }) {
  const { t } = useTranslation('admin');
  const dates = useDates();
  return (
    <Section id="affiliate-payouts" title={t('affiliate.payouts.title')} className={className}>
      {data.payouts.length === 0 ? (
        <p className="text-base-content/70 px-5 py-6 text-sm">{t('affiliate.payouts.none')}</p>
      ) : (
        <ul className="divide-base-content/10 divide-y" data-testid="affiliate-admin-payouts">
          {data.payouts.map((payout) => (
            <li key={payout.id} className="space-y-2 px-4 py-3 sm:px-5" data-testid={`payout-${payout.id}`} data-status={payout.status}>
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="text-lg font-semibold tabular-nums">{money(payout.amountMinor, payout.currency)}</span>
                <span className={`badge badge-sm whitespace-nowrap ${PAYOUT_STATUS_CLASS[payout.status]}`}>{t(`affiliate.payouts.statuses.${payout.status}`)}</span>
                <span className="text-base-content/70 text-xs">{t('affiliate.payouts.requested', { date: dates.dateTime(payout.requestedAt) })}</span>
              </div>
              {(payout.reference || payout.note || payout.paidAt) && (
                <p className="text-base-content/75 text-sm break-words">
                  {[payout.paidAt && t('affiliate.payouts.paidOn', { date: dates.date(payout.paidAt) }), payout.reference && t('affiliate.payouts.referenceIs', { reference: payout.reference }), payout.note]
                    .filter(Boolean)
                    .join(' · ')}
                </p>
              )}
              {(payout.status === 'requested' || payout.status === 'approved') && <PayoutActions payout={payout} userId={data.affiliate.userId} />}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

/** Approve / Reject a requested payout; Mark paid (with the reference) / Reject an approved one. */
function PayoutActions({ payout, userId }: { payout: Payout; userId: number }) {
  const { t } = useTranslation('admin');
  const utils = trpc.useUtils();
  const [reference, setReference] = useState('');
  const [referenceError, setReferenceError] = useState<string | null>(null);
  const handlers = {
    onSuccess: () => void utils.affiliateAdmin.detail.invalidate({ userId }),
    onError: (error: unknown) => toast({ title: t('affiliate.payouts.failed'), description: serverMessage(error) ?? t('common.networkError'), variant: 'destructive' }),
  };
  const approve = trpc.affiliateAdmin.approvePayout.useMutation(handlers);
  const reject = trpc.affiliateAdmin.rejectPayout.useMutation(handlers);
  const markPaid = trpc.affiliateAdmin.markPayoutPaid.useMutation(handlers);
  const busy = approve.isPending || reject.isPending || markPaid.isPending;

  function submitPaid(event: FormEvent) {
    event.preventDefault();
    if (reference.trim() === '') {
      setReferenceError(t('affiliate.payouts.referenceRequired'));
      return;
    }
    setReferenceError(null);
    markPaid.mutate({ payoutId: payout.id, reference: reference.trim() });
  }

  const rejectButton = (
    <button type="button" className="btn btn-ghost btn-sm text-error" disabled={busy} onClick={() => reject.mutate({ payoutId: payout.id })} data-testid="payout-reject">
      {t('affiliate.payouts.reject')}
    </button>
  );
  if (payout.status === 'requested') {
    return (
      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={() => approve.mutate({ payoutId: payout.id })} data-testid="payout-approve">
          {approve.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          {t('affiliate.payouts.approve')}
        </button>
        {rejectButton}
      </div>
    );
  }
  return (
    <form className="flex flex-wrap items-start gap-2" onSubmit={submitPaid} noValidate>
      <div className="min-w-0 flex-1 basis-56">
        <label className="sr-only" htmlFor={`payout-reference-${payout.id}`}>
          {t('affiliate.payouts.reference')}
        </label>
        <input
          id={`payout-reference-${payout.id}`}
          className={`input input-sm w-full ${referenceError ? 'input-error' : ''}`}
          placeholder={t('affiliate.payouts.referencePlaceholder')}
          value={reference}
          maxLength={200}
          onChange={(event) => setReference(event.target.value)}
          aria-invalid={referenceError ? true : undefined}
          aria-describedby={referenceError ? `payout-reference-error-${payout.id}` : undefined}
          data-testid="payout-reference"
        />
        {referenceError && (
          <p id={`payout-reference-error-${payout.id}`} className="text-error mt-1 text-xs">
            {referenceError}
          </p>
        )}
      </div>
      <button type="submit" className="btn btn-primary btn-sm" disabled={busy} data-testid="payout-mark-paid">
        {markPaid.isPending && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
        {t('affiliate.payouts.markPaid')}
      </button>
      {rejectButton}
    </form>
  );
}
