import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql } from '../../../shared/commerce.ts';
import { monthsBefore, monthsBetween } from '../../../shared/cohorts.ts';
import { dayInZone } from '../../../shared/date-ranges.ts';
import { RETENTION_DEFAULT_MONTHS, type LoyaltyRetentionInput, type LoyaltyRetentionOutput, type RetentionCohort } from '../../../shared/loyalty-retention.ts';
import { loadFxRates, roundMinor } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';

// Cohort retention (README, "Customer loyalty: cohort retention"). A customer's cohort is the month,
// in the store's time zone, of their first counted order: customers.first_order_at, which ingest
// keeps equal to the earliest counted order (not cancelled, not test: the rollups' rule). One
// grouped statement walks the cohort customers by the (store_id, first_order_at) index and their
// counted orders by (store_id, customer_id), and counts per (cohort month, months since) the
// distinct customers who ordered and, per currency, their net sales (after discounts and refunds);
// grouping sets give both in the same pass. Foreign-currency sales are converted at the rate of
// the first day of the month they were placed in.

const COUNTING = countingOrderSql('o');

// $1 store, $2 first month's first day, $3 the first day after the last month, $4 the store's time
// zone. Months are the store's: placed_day is the order's day in its time zone (recomputed when the
// zone changes), and first_order_at is read in it too.
export const RETENTION_SQL = `
  with cohort_orders as (
    select c.id as customer_id,
           date_trunc('month', c.first_order_at at time zone $4::text)::date as cohort,
           date_trunc('month', o.placed_day)::date as order_month,
           o.currency, o.net_sales_minor
      from customers c
      join orders o on o.store_id = $1 and o.customer_id = c.id and ${COUNTING}
     where c.store_id = $1
       and c.first_order_at >= ($2::timestamp at time zone $4::text)
       and c.first_order_at < ($3::timestamp at time zone $4::text)
  )
  select to_char(cohort, 'YYYY-MM') as cohort,
         ((extract(year from order_month) - extract(year from cohort)) * 12 + extract(month from order_month) - extract(month from cohort))::int as since,
         to_char(order_month, 'YYYY-MM-DD') as order_month,
         currency,
         count(distinct customer_id)::int as customers,
         sum(net_sales_minor)::text as net
    from cohort_orders
   group by grouping sets ((cohort, order_month), (cohort, order_month, currency))`;

interface RetentionSqlRow {
  cohort: string;
  since: number;
  order_month: string;
  /** null on the (cohort, month) rows that count distinct customers over every currency. */
  currency: string | null;
  customers: number;
  net: string;
}

export interface RetentionStore {
  id: number;
  currency: string;
  timezone: string;
}

export async function loyaltyRetention(
  em: EntityManager,
  store: RetentionStore,
  input: LoyaltyRetentionInput = {},
  options: { today?: string } = {},
): Promise<LoyaltyRetentionOutput> {
  const today = options.today ?? dayInZone(new Date(), store.timezone);
  const currentMonth = today.slice(0, 7);
  const to = input.to ?? (input.from !== undefined && input.from > currentMonth ? input.from : currentMonth);
  const from = input.from ?? monthsBefore(to, RETENTION_DEFAULT_MONTHS - 1);
  const rows = await sqlRunner(em).rows<RetentionSqlRow>(RETENTION_SQL, [store.id, `${from}-01`, `${monthsBefore(to, -1)}-01`, store.timezone]);

  const foreign = rows.filter((row) => row.currency !== null && row.currency !== store.currency);
  const fx = foreign.length > 0
    ? await loadFxRates(em, [store.currency, ...foreign.map((row) => row.currency!)], foreign.reduce((min, row) => (row.order_month < min ? row.order_month : min), foreign[0]!.order_month), today)
    : null;
  const active = new Map<string, number>();
  const revenue = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.cohort}/${row.since}`;
    if (row.currency === null) active.set(key, row.customers);
    else {
      const amount = row.currency === store.currency ? num(row.net) : fx!.convertExact(num(row.net), row.currency, store.currency, row.order_month);
      revenue.set(key, (revenue.get(key) ?? 0) + amount);
    }
  }

  const cohorts: RetentionCohort[] = [];
  for (let index = 0; index < monthsBetween(from, to); index += 1) {
    const month = monthsBefore(from, -index);
    const customers = active.get(`${month}/0`) ?? 0;
    const span = month > currentMonth ? 0 : monthsBetween(month, currentMonth);
    const cells = customers === 0 ? [] : Array.from({ length: span }, (_, monthsSince) => {
      const key = `${month}/${monthsSince}`;
      const activeCustomers = active.get(key) ?? 0;
      return {
        monthsSince,
        activeCustomers,
        retention: Math.round((activeCustomers / customers) * 10_000) / 10_000,
        revenuePerCustomerMinor: roundMinor((revenue.get(key) ?? 0) / customers),
        partial: monthsSince === span - 1,
      };
    });
    cohorts.push({ month, customers, cells });
  }
  return { currency: store.currency, timezone: store.timezone, from, to, currentMonth, cohorts };
}
