import type { EntityManager } from '@mikro-orm/postgresql';
import {
  COHORT_HORIZONS, type AcquisitionCohortsOutput, type CohortGrouping, type CohortHorizon,
} from '../../../shared/cohorts.ts';
import { countingOrderSql } from '../../../shared/commerce.ts';
import { dayInZone } from '../../../shared/date-ranges.ts';
import { AppError } from '../../errors.ts';
import { loadFxRates, roundMinor } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import { readState } from './credits.ts';

// Acquisition cohorts (README, "Attribution: acquisition cohorts"). A customer's cohort is the
// month of their first counted order (the rollups' rule: countingOrderSql, first by placed_at then
// id) and its source: the first touchpoint of that order's journey as the attribution job stored it
// for the window (first click), or, for an order with no touchpoint in the window, its own landing
// source (orders.channel / utm_campaign), never dropped. One set-based statement aggregates per
// (source, month, currency); the months are then converted and added up here.

const COUNTING = countingOrderSql('o');
const COUNTING_E = countingOrderSql('e');

export interface CohortStore {
  id: number;
  currency: string;
  timezone: string;
}

interface CohortSqlRow {
  channel: string;
  campaign: string;
  month: string;
  currency: string;
  customers: string;
  first_revenue: string;
  ltv_30: string; ltv_90: string; ltv_180: string; ltv_365: string;
  gp_30: string; gp_90: string; gp_180: string; gp_365: string;
  repeat_90: string; repeat_365: string;
}

// $1 store, $2 first month's first day, $3 last month's first day, $4 window, $5 channel filter or null, $6 campaign grouping,
// $7 whether the store has product costs (else the lines are not read). One pass over the store's
// counted orders of known customers, numbered per customer by a window (no per-customer probes):
// row 1 is the first order, row 2 makes the customer a repeat customer. Refunds, costs and the first
// orders' journeys are hash-joined. Customers are counted on the first order's row, amounts per
// order in its own currency (converted per month afterwards).
export const COHORTS_SQL = `
  with numbered as (
    select o.id, o.placed_day, o.currency, o.gross_minor - o.discounts_minor as net,
           row_number() over w as n,
           first_value(o.id) over w as first_id,
           first_value(o.placed_day) over w as first_day,
           first_value(o.channel) over w as first_channel,
           first_value(coalesce(o.utm_campaign, '')) over w as first_campaign
      from orders o
     where o.store_id = $1 and o.customer_id is not null and ${COUNTING}
    window w as (partition by o.customer_id order by o.placed_at, o.id)
  ),
  scoped as (
    select s.*, s.placed_day - s.first_day as age,
           s.net - coalesce(r.total, 0) as value, coalesce(l.cost, 0) as cost,
           case when ao.touchpoint_count > 0 then ao.touchpoints -> 0 ->> 'channel' else s.first_channel end as channel,
           case when not $6::boolean then '' when ao.touchpoint_count > 0 then coalesce(ao.touchpoints -> 0 ->> 'campaign', '') else s.first_campaign end as campaign
      from numbered s
      left join (select r.order_id, sum(r.amount_minor) as total from refunds r where r.store_id = $1 group by r.order_id) r on r.order_id = s.id
      left join (select l.order_id, sum(l.quantity::bigint * l.unit_cost_minor) as cost from order_lines l
                  where $7::boolean and l.store_id = $1 and l.unit_cost_minor is not null group by l.order_id) l on l.order_id = s.id
      left join attribution_orders ao on ao.store_id = $1 and ao.window_days = $4 and ao.order_id = s.first_id
     where s.first_day >= $2::date and s.first_day < ($3::date + interval '1 month')::date and s.placed_day < s.first_day + 365
  )
  select channel, campaign, to_char(first_day, 'YYYY-MM') as month, currency,
         count(*) filter (where n = 1)::text as customers, coalesce(sum(value) filter (where n = 1), 0)::text as first_revenue,
         ${COHORT_HORIZONS.map((h) => `coalesce(sum(value) filter (where age < ${h}), 0)::text as ltv_${h}, coalesce(sum(value - cost) filter (where age < ${h}), 0)::text as gp_${h}`).join(', ')},
         count(*) filter (where n = 2 and age < 90)::text as repeat_90, count(*) filter (where n = 2 and age < 365)::text as repeat_365
    from scoped
   where $5::text is null or channel = $5
   group by 1, 2, 3, 4`;

/** The last day of a 'YYYY-MM' month, 'YYYY-MM-DD'. */
function lastDayOf(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Whether every customer of a month's cohort has had `days` full days after their first order by `today`. */
export function horizonReached(month: string, days: number, today: string): boolean {
  return addDays(lastDayOf(month), days) <= today;
}

interface Sums {
  customers: number;
  firstRevenue: number;
  ltv: Record<CohortHorizon, number>;
  gp: Record<CohortHorizon, number>;
  repeat90: number;
  repeat365: number;
  spend: number | null;
}

const emptySums = (): Sums => ({
  customers: 0, firstRevenue: 0, ltv: { 30: 0, 90: 0, 180: 0, 365: 0 }, gp: { 30: 0, 90: 0, 180: 0, 365: 0 }, repeat90: 0, repeat365: 0, spend: null,
});

type Figures = Omit<AcquisitionCohortsOutput['total'], never>;

/**
 * The figures of a group of month cohorts: a horizon's value per customer counts the customers of
 * the months that reached it (null when none did), so a young month never pulls an average down.
 */
function figuresOf(months: readonly { month: string; sums: Sums }[], today: string, hasCosts: boolean): Figures {
  const customers = months.reduce((sum, m) => sum + m.sums.customers, 0);
  const perCustomer = (pick: (sums: Sums) => number, days: number): number | null => {
    const reached = months.filter((m) => horizonReached(m.month, days, today));
    const n = reached.reduce((sum, m) => sum + m.sums.customers, 0);
    return n === 0 ? null : roundMinor(reached.reduce((sum, m) => sum + pick(m.sums), 0) / n);
  };
  const ltvMinor = Object.fromEntries(COHORT_HORIZONS.map((h) => [h, perCustomer((s) => s.ltv[h], h)])) as Figures['ltvMinor'];
  const grossProfitMinor = Object.fromEntries(COHORT_HORIZONS.map((h) => [h, hasCosts ? perCustomer((s) => s.gp[h], h) : null])) as Figures['grossProfitMinor'];
  const share = (pick: (sums: Sums) => number, days: number): number | null => {
    const reached = months.filter((m) => horizonReached(m.month, days, today));
    const n = reached.reduce((sum, m) => sum + m.sums.customers, 0);
    return n === 0 ? null : Math.round((reached.reduce((sum, m) => sum + pick(m.sums), 0) / n) * 10_000) / 10_000;
  };
  const spends = months.map((m) => m.sums.spend).filter((s): s is number => s !== null);
  const spendMinor = spends.length === 0 ? null : roundMinor(spends.reduce((a, b) => a + b, 0));
  const cacMinor = spendMinor !== null && spendMinor > 0 && customers > 0 ? roundMinor(spendMinor / customers) : null;
  const basis = hasCosts ? grossProfitMinor : ltvMinor;
  const paybackDays = cacMinor === null ? null : (COHORT_HORIZONS.find((h) => basis[h] !== null && basis[h]! >= cacMinor) ?? null);
  return {
    customers,
    firstOrderRevenueMinor: roundMinor(months.reduce((sum, m) => sum + m.sums.firstRevenue, 0)),
    ltvMinor,
    grossProfitMinor,
    repeatRate: { 90: share((s) => s.repeat90, 90), 365: share((s) => s.repeat365, 365) },
    spendMinor,
    cacMinor,
    paybackDays,
    paybackBeyondYear: cacMinor !== null && paybackDays === null && basis[365] !== null,
  };
}

/** Spend per (channel, campaign key, month) from the ad and e-mail platforms, converted; campaign keys: id and name, lower case. */
async function spendOf(em: EntityManager, store: CohortStore, fromDay: string, toDay: string) {
  const rows = await sqlRunner(em).rows<{ channel: string; campaign_id: string; campaign_name: string; month: string; currency: string; day: string; spend: string }>(
    `select platform as channel, campaign_id, max(campaign_name) as campaign_name, to_char(day, 'YYYY-MM') as month, currency, to_char(min(day), 'YYYY-MM-DD') as day, sum(spend_minor)::text as spend
       from ad_metrics_daily where store_id = $1 and day between $2::date and $3::date group by 1, 2, 4, 5
     union all
     select platform, campaign_id, max(campaign_name), to_char(day, 'YYYY-MM'), currency, to_char(min(day), 'YYYY-MM-DD'), sum(spend_minor)::text
       from email_metrics_daily where store_id = $1 and day between $2::date and $3::date group by 1, 2, 4, 5`,
    [store.id, fromDay, toDay],
  );
  const foreign = rows.filter((row) => row.currency !== store.currency);
  const fx = foreign.length > 0 ? await loadFxRates(em, [store.currency, ...foreign.map((row) => row.currency)], fromDay, toDay) : null;
  return rows.map((row) => ({
    channel: row.channel, month: row.month, names: [row.campaign_id.toLowerCase(), row.campaign_name.toLowerCase()],
    spend: row.currency === store.currency ? num(row.spend) : fx!.convertExact(num(row.spend), row.currency, store.currency, row.day),
  }));
}

export async function acquisitionCohorts(
  em: EntityManager,
  store: CohortStore,
  input: { from: string; to: string; group: CohortGrouping; window?: number; channel?: string },
  options: { today?: string } = {},
): Promise<AcquisitionCohortsOutput> {
  const q = sqlRunner(em);
  const state = await readState(q, store.id);
  // Cohorts read the journeys the attribution job keeps, which exist for the store's window only.
  const windowDays = input.window ?? state.windowDays;
  if (windowDays !== state.windowDays) {
    throw new AppError('BAD_REQUEST', `Cohorts use the store's attribution window (${state.windowDays} days); change the window in the attribution settings to see another`);
  }
  const today = options.today ?? dayInZone(new Date(), store.timezone);
  const fromDay = `${input.from}-01`;
  const toDay = lastDayOf(input.to);
  const [costs] = await q.rows<{ has: boolean }>(`select exists (select 1 from order_lines where store_id = $1 and unit_cost_minor is not null) as has`, [store.id]);
  const rows = await q.rows<CohortSqlRow>(COHORTS_SQL, [store.id, fromDay, `${input.to}-01`, windowDays, input.channel ?? null, input.group === 'campaign', costs?.has === true]);
  const spend = await spendOf(em, store, fromDay, toDay);
  const hasCosts = costs?.has === true;
  const foreign = rows.filter((row) => row.currency !== store.currency);
  const fx = foreign.length > 0 ? await loadFxRates(em, [store.currency, ...foreign.map((row) => row.currency)], fromDay, toDay) : null;

  // Month cohorts per source, converted to the store's currency (a foreign currency at the rate of
  // the month's first day: its customers' orders spread over the following year).
  const sources = new Map<string, { channel: string; campaign: string; months: Map<string, Sums> }>();
  for (const row of rows) {
    const key = `${row.channel}\u0000${row.campaign}`;
    let source = sources.get(key);
    if (!source) sources.set(key, (source = { channel: row.channel, campaign: row.campaign, months: new Map() }));
    let sums = source.months.get(row.month);
    if (!sums) source.months.set(row.month, (sums = emptySums()));
    const factor = row.currency === store.currency ? 1 : fx!.factor(row.currency, store.currency, `${row.month}-01`);
    sums.customers += Number(row.customers);
    sums.firstRevenue += num(row.first_revenue) * factor;
    for (const h of COHORT_HORIZONS) {
      sums.ltv[h] += num(row[`ltv_${h}`]) * factor;
      sums.gp[h] += num(row[`gp_${h}`]) * factor;
    }
    sums.repeat90 += Number(row.repeat_90);
    sums.repeat365 += Number(row.repeat_365);
  }
  // Spend: a channel's whole spend in the month; a campaign's the spend of the platform campaign
  // whose id or name is the utm_campaign (case-insensitive), as the attribution report matches them.
  for (const source of sources.values()) {
    for (const [month, sums] of source.months) {
      const matching = spend.filter((s) => s.channel === source.channel && s.month === month && (input.group === 'channel' || (source.campaign !== '' && s.names.includes(source.campaign.toLowerCase()))));
      if (matching.length > 0) sums.spend = matching.reduce((sum, s) => sum + s.spend, 0);
    }
  }
  const all = [...sources.values()].map((source) => {
    const months = [...source.months.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([month, sums]) => ({ month, sums }));
    return { source, months, figures: figuresOf(months, today, hasCosts) };
  });
  const everyMonth = all.flatMap((entry) => entry.months);
  // The total's spend: all of the months' spend (of the channel asked for), with or without new customers.
  const spent = spend.filter((s) => input.channel === undefined || s.channel === input.channel);
  const totalSpend = spent.length > 0 ? spent.reduce((sum, s) => sum + s.spend, 0) : null;
  // The total: the months of every source added up month by month (the horizons are a month's).
  const byMonth = new Map<string, Sums>();
  for (const { month, sums } of everyMonth) {
    const into = byMonth.get(month) ?? emptySums();
    into.customers += sums.customers;
    into.firstRevenue += sums.firstRevenue;
    for (const h of COHORT_HORIZONS) {
      into.ltv[h] += sums.ltv[h];
      into.gp[h] += sums.gp[h];
    }
    into.repeat90 += sums.repeat90;
    into.repeat365 += sums.repeat365;
    byMonth.set(month, into);
  }
  const monthsOfTotal = [...byMonth.entries()].map(([month, sums]) => ({ month, sums }));
  if (monthsOfTotal.length > 0) monthsOfTotal[0]!.sums.spend = totalSpend;
  return {
    currency: store.currency,
    group: input.group,
    window: windowDays,
    from: input.from,
    to: input.to,
    today,
    paybackBasis: hasCosts ? 'gross_profit' : 'revenue',
    attributionComplete: state.recomputeWindowDays !== windowDays,
    total: figuresOf(monthsOfTotal, today, hasCosts),
    sources: all
      .map(({ source, months, figures }) => ({
        channel: source.channel, campaign: source.campaign, ...figures,
        months: months.map(({ month, sums }) => ({ month, ...figuresOf([{ month, sums }], today, hasCosts) })),
      }))
      .sort((a, b) => b.customers - a.customers || a.channel.localeCompare(b.channel) || a.campaign.localeCompare(b.campaign)),
  };
}
