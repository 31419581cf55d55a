import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { FlagIcon, SearchIcon } from 'lucide-react';
import { AFFILIATE_LIST_PAGE_SIZE, AFFILIATE_LIST_SORTS, type AffiliateListSort } from '../../../shared/affiliates.ts';
import { formatMoneyExact } from '../../../shared/currencies.ts';
import { PageButtons } from '../../components/page-buttons.tsx';
import { SortableHeader } from '../../components/sortable-header.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { readSearchParam, useUpdateSearch } from '../../lib/use-search-param.ts';
import { ErrorBlock, LoadingBlock, Section } from './ui.tsx';

const NUMERIC_SORTS: readonly AffiliateListSort[] = ['referrals', 'paying', 'earned', 'payable', 'paid'];

/** The console's list of affiliates with their totals; sort, direction, page and search live in the URL (aff*). */
export function AdminAffiliatesSection() {
  const { t, i18n } = useTranslation('admin');
  const locale = i18n.resolvedLanguage ?? 'en';
  const search = useSearch();
  const update = useUpdateSearch();
  const sort = readSearchParam(search, 'affSort', AFFILIATE_LIST_SORTS, 'earned');
  const direction = readSearchParam(search, 'affDir', ['asc', 'desc'] as const, 'desc');
  const page = Math.max(1, Number(new URLSearchParams(search).get('affPage')) || 1);
  const query = new URLSearchParams(search).get('affQ') ?? '';
  const list = trpc.affiliateAdmin.list.useQuery(
    { sort, direction, page, pageSize: AFFILIATE_LIST_PAGE_SIZE, q: query || undefined },
    { placeholderData: keepPreviousData },
  );
  const money = (minor: number) => formatMoneyExact(minor, list.data?.currency ?? 'GBP', locale);
  const count = (value: number) => new Intl.NumberFormat(locale).format(value);
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.pageSize)) : 1;

  function onSort(next: AffiliateListSort) {
    const nextDirection = next === sort ? (direction === 'asc' ? 'desc' : 'asc') : NUMERIC_SORTS.includes(next) ? 'desc' : 'asc';
    update({ affSort: next, affDir: nextDirection, affPage: null });
  }
  const header = (key: AffiliateListSort, align: 'left' | 'right' = 'left') => (
    <SortableHeader key={key} label={t(`affiliates.columns.${key}`)} sort={key} current={{ sort, direction }} onSort={onSort} title={t('affiliates.sortBy', { column: t(`affiliates.columns.${key}`) })} align={align} />
  );
  const openPayout = (row: NonNullable<typeof list.data>['rows'][number]) =>
    row.openPayout ? <span className="badge badge-sm border-info/50 bg-info/10 text-base-content whitespace-nowrap">{t(`affiliates.open.${row.openPayout.status}`, { amount: money(row.openPayout.amountMinor) })}</span> : <span className="text-base-content/60">—</span>;
  const flags = (value: number) =>
    value > 0 ? (
      <span className="badge badge-sm border-warning/60 bg-warning/15 text-base-content gap-1 whitespace-nowrap">
        <FlagIcon className="size-3" aria-hidden="true" />
        {t('affiliates.flagCount', { count: value })}
      </span>
    ) : (
      <span className="text-base-content/60">—</span>
    );

  return (
    <Section
      id="affiliates-heading"
      title={t('affiliates.title')}
      aside={list.data && <span className="text-base-content/70 text-sm">{t('affiliates.total', { count: list.data.total })}</span>}
    >
      <div className="border-base-content/10 flex flex-wrap gap-2 border-b p-4 sm:px-5">
        <label className="input min-w-0 flex-1 basis-64 md:max-w-md md:flex-none">
          <SearchIcon className="text-base-content/60" aria-hidden="true" />
          <input
            type="search"
            className="grow"
            aria-label={t('affiliates.searchLabel')}
            placeholder={t('affiliates.searchPlaceholder')}
            value={query}
            onChange={(event) => update({ affQ: event.target.value, affPage: null })}
          />
        </label>
        {/* Below lg the table becomes a list without column headings: the sort is chosen here. */}
        <select
          className="select w-auto lg:hidden"
          aria-label={t('affiliates.sortLabel')}
          value={`${sort}:${direction}`}
          onChange={(event) => {
            const [nextSort, nextDirection] = event.target.value.split(':');
            update({ affSort: nextSort ?? null, affDir: nextDirection ?? null, affPage: null });
          }}
        >
          {AFFILIATE_LIST_SORTS.flatMap((key) =>
            (['desc', 'asc'] as const).map((order) => (
              <option key={`${key}:${order}`} value={`${key}:${order}`}>
                {t(`affiliates.sortOption.${order}`, { column: t(`affiliates.columns.${key}`) })}
              </option>
            )),
          )}
        </select>
      </div>
      {list.isPending && <LoadingBlock label={t('common.loading')} />}
      {list.isError && (
        <div className="p-4">
          <ErrorBlock message={t('common.loadFailed', { message: serverMessage(list.error) ?? t('common.networkError') })} retryLabel={t('common.retry')} onRetry={() => void list.refetch()} />
        </div>
      )}
      {list.data && list.data.rows.length === 0 && <p className="text-base-content/70 px-5 py-10 text-center text-sm">{t('affiliates.none')}</p>}
      {list.data && list.data.rows.length > 0 && (
        <div data-testid="affiliates-list" data-state={list.isFetching ? 'loading' : 'ready'}>
          <div className="hidden overflow-x-auto lg:block">
            <table className="table table-sm">
              <thead>
                <tr>
                  {header('email')}
                  {header('code')}
                  {header('referrals', 'right')}
                  {header('paying', 'right')}
                  {header('earned', 'right')}
                  {header('payable', 'right')}
                  {header('paid', 'right')}
                  <th scope="col">{t('affiliates.columns.openPayout')}</th>
                  <th scope="col">{t('affiliates.columns.flags')}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.rows.map((row) => (
                  <tr key={row.affiliateId} className="hover:bg-base-200/50">
                    <td className="max-w-64 truncate">
                      <Link href={`/admin/affiliate/${row.userId}`} className="link link-hover font-medium" title={row.email}>
                        {row.email}
                      </Link>
                    </td>
                    <td className="font-mono text-xs">{row.code}</td>
                    <td className="text-right tabular-nums">{count(row.referrals)}</td>
                    <td className="text-right tabular-nums">{count(row.paying)}</td>
                    <td className="text-right tabular-nums">{money(row.earnedMinor)}</td>
                    <td className="text-right tabular-nums">{money(row.payableMinor)}</td>
                    <td className="text-right tabular-nums">{money(row.paidMinor)}</td>
                    <td>{openPayout(row)}</td>
                    <td>{flags(row.flags)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ul className="divide-base-content/10 divide-y lg:hidden">
            {list.data.rows.map((row) => (
              <li key={row.affiliateId} className="space-y-1 px-4 py-3">
                <div className="flex flex-wrap items-center gap-2">
                  <Link href={`/admin/affiliate/${row.userId}`} className="link link-hover font-medium break-all">
                    {row.email}
                  </Link>
                  {row.openPayout && openPayout(row)}
                  {row.flags > 0 && flags(row.flags)}
                </div>
                <p className="text-base-content/70 text-xs">
                  {[row.code, t('affiliates.referralsCount', { count: row.referrals }), t('affiliates.payingCount', { count: row.paying })].join(' · ')}
                </p>
                <p className="text-base-content/80 text-xs tabular-nums">
                  {t('affiliates.moneyLine', { earned: money(row.earnedMinor), payable: money(row.payableMinor), paid: money(row.paidMinor) })}
                </p>
              </li>
            ))}
          </ul>
          <div className="border-base-content/10 flex justify-end border-t px-4 py-3">
            <PageButtons
              page={page}
              pages={pages}
              onPage={(next) => update({ affPage: next === 1 ? null : String(next) })}
              pageText={t('affiliates.page', { page: count(page), pages: count(pages) })}
              previousLabel={t('affiliates.previous')}
              nextLabel={t('affiliates.next')}
            />
          </div>
        </div>
      )}
    </Section>
  );
}
