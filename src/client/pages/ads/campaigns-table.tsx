import { ArrowDownIcon, ArrowUpIcon, ChevronsUpDownIcon, InfoIcon, SearchIcon } from 'lucide-react';
import { useId, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { CampaignRow, CampaignsOutput, CampaignTotals } from '../../../shared/marketing.ts';
import { NO_VALUE } from '../../../shared/metrics.ts';
import { useFigureFormat, type FigureFormat } from '../../lib/figure-format.ts';
import { useSearchParam, useSearchText, useUpdateSearch } from '../../lib/use-search-param.ts';

const SORT_KEYS = ['name', 'spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm', 'conversions', 'conversionValue', 'platformRoas', 'orders', 'netSales', 'roas'] as const;
type SortKey = (typeof SORT_KEYS)[number];
type NumberKey = Exclude<SortKey, 'name'>;
const DIRECTIONS = ['desc', 'asc'] as const;
type Direction = (typeof DIRECTIONS)[number];

/** Columns fed by our orders: without campaign-level matching they exist only in the totals. */
const OUR_KEYS: ReadonlySet<SortKey> = new Set(['orders', 'netSales', 'roas']);

/** What a figure cell shows. */
function cellValue(key: NumberKey, row: CampaignRow | CampaignTotals, currency: string, format: FigureFormat): string {
  switch (key) {
    case 'spend':
    case 'cpc':
    case 'cpm':
    case 'conversionValue':
    case 'netSales':
      return format.money(row[key], currency);
    case 'ctr':
      return format.percent(row.ctr, 2);
    case 'platformRoas':
    case 'roas':
      return format.multiple(row[key]);
    case 'conversions':
      return format.decimal(row.conversions);
    default:
      return format.integer(row[key]);
  }
}

/** Nulls ("—") sort last whichever the direction. */
function compareRows(a: CampaignRow, b: CampaignRow, key: SortKey, direction: Direction): number {
  if (key === 'name') return direction === 'asc' ? a.name.localeCompare(b.name) : b.name.localeCompare(a.name);
  const left = a[key];
  const right = b[key];
  if (left === null && right === null) return 0;
  if (left === null) return 1;
  if (right === null) return -1;
  return direction === 'asc' ? left - right : right - left;
}

/** The platform's campaigns: sortable, searchable, with a totals row; cards on a phone. */
export function CampaignsTable({ data }: { data: CampaignsOutput }) {
  const { t } = useTranslation('marketing');
  const format = useFigureFormat();
  const searchId = useId();
  const [sort] = useSearchParam<SortKey>('sort', SORT_KEYS, 'spend');
  const [direction] = useSearchParam<Direction>('dir', DIRECTIONS, 'desc');
  const updateSearch = useUpdateSearch();
  const setOrder = (key: SortKey, dir: Direction) => updateSearch({ sort: key === 'spend' ? null : key, dir: dir === 'desc' ? null : dir });
  const [search, setSearch] = useSearchText('q');
  const campaignLevel = data.attribution === 'campaign';
  const platformName = t(`platforms.${data.platform}`);

  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const matching = needle ? data.campaigns.filter((row) => row.name.toLowerCase().includes(needle) || row.campaignId.toLowerCase().includes(needle)) : data.campaigns;
    return [...matching].sort((a, b) => compareRows(a, b, sort, direction));
  }, [data.campaigns, search, sort, direction]);

  const sortBy = (key: SortKey) => {
    if (key === sort) setOrder(key, direction === 'desc' ? 'asc' : 'desc');
    else setOrder(key, key === 'name' ? 'asc' : 'desc');
  };

  const rowCell = (key: NumberKey, row: CampaignRow) => (OUR_KEYS.has(key) && !campaignLevel ? NO_VALUE : cellValue(key, row, data.currency, format));

  return (
    <section className="bg-base-100 border-base-content/10 rounded-box border shadow-xs" aria-labelledby="campaigns-title">
      <div className="flex flex-wrap items-end justify-between gap-3 p-4 sm:p-6">
        <div className="min-w-0">
          <h2 id="campaigns-title" className="text-base font-semibold">
            {t('table.title')}
          </h2>
          <p className="text-base-content/70 text-sm">{t('table.count', { count: data.campaigns.length })}</p>
        </div>
        <div className="flex w-full flex-wrap gap-2 sm:w-auto">
          <label htmlFor={searchId} className="input input-sm w-full sm:w-64">
            <SearchIcon className="size-4 opacity-60" aria-hidden="true" />
            <input id={searchId} type="search" placeholder={t('table.search')} aria-label={t('table.search')} value={search} onChange={(event) => setSearch(event.target.value)} />
          </label>
          <select className="select select-sm w-full md:hidden" aria-label={t('table.sortLabel')} value={`${sort}:${direction}`} onChange={(event) => {
            const [key, dir] = event.target.value.split(':') as [SortKey, Direction];
            setOrder(key, dir);
          }}>
            {SORT_KEYS.flatMap((key) =>
              DIRECTIONS.map((dir) => (
                <option key={`${key}:${dir}`} value={`${key}:${dir}`}>
                  {t('table.sortOption', { column: t(`columns.${key}`), direction: t(`table.directions.${key === 'name' ? `text_${dir}` : dir}`) })}
                </option>
              )),
            )}
          </select>
        </div>
      </div>

      <AttributionNote data={data} />

      {/* Desktop and tablet: a table that scrolls sideways with the campaign name kept in view. */}
      <div className="hidden overflow-x-auto md:block">
        <table className="table table-sm [&_td]:px-1.5 [&_th]:px-1.5 [&_tr>*:first-child]:pl-4 [&_tr>*:last-child]:pr-4 sm:[&_tr>*:first-child]:pl-5 sm:[&_tr>*:last-child]:pr-5" data-testid="campaigns-table">
          <thead>
            <tr>
              {SORT_KEYS.map((key) => (
                <th
                  key={key}
                  scope="col"
                  aria-sort={sort === key ? (direction === 'asc' ? 'ascending' : 'descending') : 'none'}
                  className={`${key === 'name' ? 'bg-base-100 sticky left-0 z-10 min-w-40' : 'text-right whitespace-normal'} align-bottom`}
                >
                  <button
                    type="button"
                    className={`inline-flex items-end gap-0.5 text-left leading-tight font-semibold hover:text-base-content ${key === 'name' ? '' : 'justify-end text-right'} ${sort === key ? 'text-base-content' : ''}`}
                    onClick={() => sortBy(key)}
                  >
                    {t(`columns.${key}`)}
                    {sort === key ? (
                      direction === 'asc' ? <ArrowUpIcon className="size-3.5 shrink-0" aria-hidden="true" /> : <ArrowDownIcon className="size-3.5 shrink-0" aria-hidden="true" />
                    ) : (
                      <ChevronsUpDownIcon className="size-3 shrink-0 opacity-40" aria-hidden="true" />
                    )}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.accountId}:${row.campaignId}`} className="hover:bg-base-200/50" data-testid="campaign-row">
                <th scope="row" className="bg-base-100 sticky left-0 z-10 max-w-48 font-normal">
                  <span className="block truncate font-medium" title={row.name}>
                    {row.name}
                  </span>
                  <span className="text-base-content/60 block truncate text-xs" title={t('table.account', { account: row.accountId, campaign: row.campaignId })}>
                    {t('table.account', { account: row.accountId, campaign: row.campaignId })}
                  </span>
                </th>
                {SORT_KEYS.filter((key): key is NumberKey => key !== 'name').map((key) => (
                  <td key={key} className="text-right whitespace-nowrap tabular-nums">
                    {rowCell(key, row)}
                  </td>
                ))}
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={SORT_KEYS.length} className="text-base-content/70 py-8 text-center">
                  {t('table.noMatch')}
                </td>
              </tr>
            )}
          </tbody>
          <tfoot>
            <tr className="text-base-content border-base-content/20 border-t-2" data-testid="campaigns-totals">
              <th scope="row" className="bg-base-100 sticky left-0 z-10">
                {t('table.totals')}
                <span className="text-base-content/60 block text-xs font-normal">{t('table.totalsHint', { platform: platformName })}</span>
              </th>
              {SORT_KEYS.filter((key): key is NumberKey => key !== 'name').map((key) => (
                <td key={key} className="text-right font-semibold whitespace-nowrap tabular-nums">
                  {cellValue(key, data.totals, data.currency, format)}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>

      {/* Phone: one card per campaign, then the totals. */}
      <ul className="divide-base-content/10 divide-y md:hidden" data-testid="campaigns-cards">
        {rows.map((row) => (
          <li key={`${row.accountId}:${row.campaignId}`} className="px-4 py-3">
            <CampaignCard title={row.name} subtitle={t('table.account', { account: row.accountId, campaign: row.campaignId })} figure={(key) => rowCell(key, row)} />
          </li>
        ))}
        {rows.length === 0 && <li className="text-base-content/70 px-4 py-6 text-center text-sm">{t('table.noMatch')}</li>}
        <li className="bg-base-200/40 rounded-b-box px-4 py-3">
          <CampaignCard title={t('table.totals')} subtitle={t('table.totalsHint', { platform: platformName })} figure={(key) => cellValue(key, data.totals, data.currency, format)} />
        </li>
      </ul>
    </section>
  );
}

const CARD_KEYS: NumberKey[] = ['spend', 'clicks', 'ctr', 'cpc', 'conversions', 'platformRoas', 'netSales', 'roas'];

function CampaignCard({ title, subtitle, figure }: { title: string; subtitle: string; figure: (key: NumberKey) => string }) {
  const { t } = useTranslation('marketing');
  return (
    <article>
      <h3 className="truncate font-medium" title={title}>
        {title}
      </h3>
      <p className="text-base-content/60 truncate text-xs">{subtitle}</p>
      <dl className="mt-2 grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
        {CARD_KEYS.map((key) => (
          <div key={key} className="flex items-baseline justify-between gap-2">
            <dt className="text-base-content/70 min-w-0 wrap-break-word">{t(`columns.${key}`)}</dt>
            <dd className="shrink-0 text-right font-medium tabular-nums">{figure(key)}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}

/** How our orders were matched to campaigns, in plain words. */
function AttributionNote({ data }: { data: CampaignsOutput }) {
  const { t } = useTranslation('marketing');
  const format = useFigureFormat();
  const platformName = t(`platforms.${data.platform}`);
  let text: string;
  if (data.attribution === 'platform') text = t('attribution.platformOnly', { platform: platformName });
  else if (data.unmatched.orders > 0)
    text = t('attribution.partial', { platform: platformName, count: data.unmatched.orders, amount: format.money(data.unmatched.netSales, data.currency) });
  else text = t('attribution.campaign');
  return (
    <div className="text-base-content/75 border-base-content/10 flex gap-2 border-t px-4 py-3 text-sm sm:px-6" data-testid="attribution-note" data-attribution={data.attribution}>
      <InfoIcon className="text-info mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <p>{text}</p>
    </div>
  );
}
