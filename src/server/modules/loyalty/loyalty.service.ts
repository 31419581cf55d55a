import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql } from '../../../shared/commerce.ts';
import { csvDocument } from '../../../shared/csv.ts';
import {
  ACTIVE_CUSTOMER_DAYS, AT_RISK_CHURN, LOYALTY_CSV_HEADER, LOYALTY_SCORE_EXPLANATION, LOYALTY_SEGMENTS,
  type LoyaltyCustomerRow, type LoyaltyCustomersInput, type LoyaltyModelInfo, type LoyaltySegment, type LoyaltySummaryOutput,
  loyaltyCustomersInput,
} from '../../../shared/loyalty.ts';
import { formatMinorUnits } from '../../../shared/metrics.ts';
import { AppError } from '../../errors.ts';
import { customerSearch, customerSearchSql, openContact } from '../commerce/customer-contacts.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';

// What the loyalty job stored for the active store (README, "Customer loyalty"): the tiles and
// segment grid, the customers table (filter, search, sort, pages on the server), one customer with
// their orders, and the CSV export. Every statement is scoped by the store's id.

export interface LoyaltyStore {
  id: number;
  currency: string;
}

const COUNTING = countingOrderSql('o');

export async function loyaltyModelOf(em: EntityManager, storeId: number): Promise<LoyaltyModelInfo | null> {
  const [row] = await sqlRunner(em).rows<{
    model: 'bgnbd' | 'rfm'; fallback_reason: LoyaltyModelInfo['fallbackReason']; parameters: Record<string, number> | null; customers: number; history_days: number;
    holdout_mae: number | null; baseline_mae: number | null; holdout_customers: number | null; fitted_at: Date;
  }>(`select model, fallback_reason, parameters, customers, history_days, holdout_mae, baseline_mae, holdout_customers, fitted_at from loyalty_models where store_id = $1`, [storeId]);
  if (!row) return null;
  return {
    model: row.model,
    fallbackReason: row.fallback_reason,
    customers: row.customers,
    historyDays: row.history_days,
    parameters: row.parameters,
    holdoutMae: row.holdout_mae,
    baselineMae: row.baseline_mae,
    holdoutCustomers: row.holdout_customers,
    fittedAt: new Date(row.fitted_at).toISOString(),
  };
}

/** The at-risk condition in SQL over `l` (customer_loyalty): churn risk ≥ 0.5, or in the RFM fallback the segments At risk and Can't lose them. */
export const AT_RISK_SQL = `(case when l.churn_risk is null then l.segment in ('at_risk', 'cant_lose_them') else l.churn_risk >= ${AT_RISK_CHURN} end)`;

export async function loyaltySummary(em: EntityManager, store: LoyaltyStore): Promise<LoyaltySummaryOutput> {
  // One pass over the store's scores (the dashboard asks for it on every load): per segment, with
  // the tiles' counts beside the segment grid's sums; the store's totals are the segments' sums.
  const [model, segments] = await Promise.all([
    loyaltyModelOf(em, store.id),
    sqlRunner(em).rows<{
      segment: LoyaltySegment; customers: number; active: number; repeaters: number; at_risk: number;
      spent: string; predicted: string | null; at_risk_value: string | null; computed_at: Date | null;
    }>(
      `select l.segment, count(*)::int as customers,
              (count(*) filter (where l.last_order_at >= l.computed_at - make_interval(days => $2)))::int as active,
              (count(*) filter (where l.orders >= 2))::int as repeaters,
              (count(*) filter (where ${AT_RISK_SQL}))::int as at_risk,
              sum(l.spent_minor)::text as spent, sum(l.predicted_value_12m_minor)::text as predicted,
              (sum(l.predicted_value_12m_minor) filter (where l.churn_risk >= ${AT_RISK_CHURN}))::text as at_risk_value,
              max(l.computed_at) as computed_at
         from customer_loyalty l where l.store_id = $1 group by l.segment`,
      [store.id, ACTIVE_CUSTOMER_DAYS],
    ),
  ]);
  const total = (pick: (row: (typeof segments)[number]) => number) => segments.reduce((sum, row) => sum + pick(row), 0);
  const customers = total((row) => row.customers);
  const computedAt = segments.reduce<number | null>((latest, row) => (row.computed_at ? Math.max(latest ?? 0, new Date(row.computed_at).getTime()) : latest), null);
  const bySegment = new Map(segments.map((row) => [row.segment, row]));
  const isModel = model?.model === 'bgnbd';
  return {
    currency: store.currency,
    model,
    scoreExplanation: LOYALTY_SCORE_EXPLANATION[model?.model ?? 'rfm'],
    activeCustomers: total((row) => row.active),
    customers,
    repeatRate: customers === 0 ? null : total((row) => row.repeaters) / customers,
    atRiskRevenueMinor: isModel ? total((row) => num(row.at_risk_value ?? '0')) : null,
    atRiskCustomers: total((row) => row.at_risk),
    segments: LOYALTY_SEGMENTS.map((segment) => {
      const row = bySegment.get(segment);
      return {
        segment,
        customers: row?.customers ?? 0,
        spentMinor: row ? num(row.spent) : 0,
        predictedValue12mMinor: isModel ? (row?.predicted ? num(row.predicted) : 0) : null,
      };
    }),
    computedAt: computedAt === null ? null : new Date(computedAt).toISOString(),
  };
}

const SORT_SQL: Record<NonNullable<LoyaltyCustomersInput['sort']>, string> = {
  predicted_value: 'l.predicted_value_12m_minor',
  spent: 'l.spent_minor',
  churn_risk: 'l.churn_risk',
  loyalty_score: 'l.loyalty_score',
  last_order: 'l.last_order_at',
  orders: 'l.orders',
};

interface LoyaltySqlRow {
  customer_id: string; platform: string; external_id: string; contact_sealed: string | null; orders: number; spent: string; first_order_at: Date; last_order_at: Date;
  r: number; f: number; m: number; segment: LoyaltySegment; p_alive: number | null; churn_risk: number | null; expected: number | null;
  predicted: string | null; value_percentile: number | null; loyalty_score: number; repeat_orders: number; recency_days: number; age_days: number;
  computed_at: Date;
}

const ROW_COLUMNS = `l.customer_id::text as customer_id, c.platform, c.external_id, c.contact_sealed, l.orders, l.spent_minor::text as spent, l.first_order_at, l.last_order_at,
  l.r, l.f, l.m, l.segment, l.p_alive, l.churn_risk, l.expected_orders_90d as expected, l.predicted_value_12m_minor::text as predicted,
  l.value_percentile, l.loyalty_score, l.repeat_orders, l.recency_days, l.age_days, l.computed_at`;

function toRow(storeId: number, row: LoyaltySqlRow): LoyaltyCustomerRow {
  const contact = openContact(storeId, row);
  return {
    id: num(row.customer_id),
    platform: row.platform,
    externalId: row.external_id,
    name: contact.name,
    email: contact.email,
    orders: row.orders,
    spentMinor: num(row.spent),
    firstOrderAt: new Date(row.first_order_at).toISOString(),
    lastOrderAt: new Date(row.last_order_at).toISOString(),
    r: row.r, f: row.f, m: row.m,
    segment: row.segment,
    pAlive: row.p_alive,
    churnRisk: row.churn_risk,
    expectedOrders90d: row.expected,
    predictedValue12mMinor: row.predicted === null ? null : num(row.predicted),
    loyaltyScore: row.loyalty_score,
  };
}

/** The where clause and parameters of a customers filter ($1 is the store). */
function filterOf(storeId: number, input: ReturnType<typeof loyaltyCustomersInput.parse>): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const conditions = ['l.store_id = $1'];
  const parameter = (value: unknown) => { params.push(value); return `$${params.length + 1}`; };
  if (input.segment) conditions.push(`l.segment = ${parameter(input.segment)}`);
  if (input.atRisk) conditions.push(AT_RISK_SQL);
  const search = input.search?.trim();
  if (search) {
    // A full e-mail address matches its stored hash; words match the starts of the name's words
    // (customer-contacts.ts); the platform's customer id matches in part.
    const byContact = customerSearch(storeId, search);
    const idMatch = `c.external_id ilike ${parameter(`%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`)}`;
    if (byContact) {
      const condition = customerSearchSql(byContact, params.length + 2);
      params.push(condition.parameter);
      conditions.push(`(${condition.sql} or ${idMatch})`);
    } else {
      conditions.push(idMatch);
    }
  }
  return { where: conditions.join(' and '), params };
}

export async function loyaltyCustomers(em: EntityManager, store: LoyaltyStore, rawInput: LoyaltyCustomersInput) {
  const input = loyaltyCustomersInput.parse(rawInput);
  const q = sqlRunner(em);
  const { where, params } = filterOf(store.id, input);
  const offset = (input.page - 1) * input.pageSize;
  const direction = input.direction === 'asc' ? 'asc nulls first' : 'desc nulls last';
  const [model, rows, [count]] = await Promise.all([
    loyaltyModelOf(em, store.id),
    q.rows<LoyaltySqlRow>(
      `select ${ROW_COLUMNS} from customer_loyalty l join customers c on c.store_id = l.store_id and c.id = l.customer_id
        where ${where} order by ${SORT_SQL[input.sort]} ${direction}, l.customer_id limit ${input.pageSize} offset ${offset}`,
      [store.id, ...params],
    ),
    q.rows<{ total: number }>(`select count(*)::int as total from customer_loyalty l join customers c on c.store_id = l.store_id and c.id = l.customer_id where ${where}`, [store.id, ...params]),
  ]);
  return { currency: store.currency, model, customers: rows.map((row) => toRow(store.id, row)), total: count!.total, page: input.page, pageSize: input.pageSize };
}

export const LOYALTY_CUSTOMER_NOT_FOUND = 'This customer has no loyalty scores in this store yet.';

export async function loyaltyCustomer(em: EntityManager, store: LoyaltyStore, customerId: number) {
  const q = sqlRunner(em);
  const [rows, model, orders] = await Promise.all([
    q.rows<LoyaltySqlRow>(
      `select ${ROW_COLUMNS} from customer_loyalty l join customers c on c.store_id = l.store_id and c.id = l.customer_id where l.store_id = $1 and l.customer_id = $2`,
      [store.id, customerId],
    ),
    loyaltyModelOf(em, store.id),
    q.rows<{ id: string; order_number: string | null; placed_at: Date; placed_day: string; status: string; counts: boolean; currency: string; net: string }>(
      `select o.id::text as id, o.order_number, o.placed_at, to_char(o.placed_day, 'YYYY-MM-DD') as placed_day, o.status, ${COUNTING} as counts, o.currency,
              o.net_sales_minor::text as net
         from orders o where o.store_id = $1 and o.customer_id = $2 order by o.placed_at desc, o.id desc limit 500`,
      [store.id, customerId],
    ),
  ]);
  const row = rows[0];
  if (!row) throw new AppError('NOT_FOUND', LOYALTY_CUSTOMER_NOT_FOUND);
  return {
    currency: store.currency,
    model,
    customer: { ...toRow(store.id, row), valuePercentile: row.value_percentile },
    inputs: {
      repeatOrders: row.repeat_orders,
      recencyDays: row.recency_days,
      ageDays: row.age_days,
      daysSinceLastOrder: row.age_days - row.recency_days,
    },
    scoreExplanation: LOYALTY_SCORE_EXPLANATION[model?.model ?? 'rfm'],
    orders: orders.map((order) => ({
      id: num(order.id), orderNumber: order.order_number, placedAt: new Date(order.placed_at).toISOString(), placedDay: order.placed_day,
      status: order.status, counts: order.counts, currency: order.currency, netSalesMinor: num(order.net),
    })),
  };
}

/** Every customer of the filter (all pages) as CSV, in the table's order. */
export async function loyaltyCsv(em: EntityManager, store: LoyaltyStore, rawInput: LoyaltyCustomersInput): Promise<string> {
  const input = loyaltyCustomersInput.parse({ ...rawInput, page: 1 });
  const { where, params } = filterOf(store.id, input);
  const direction = input.direction === 'asc' ? 'asc nulls first' : 'desc nulls last';
  const rows = await sqlRunner(em).rows<LoyaltySqlRow>(
    `select ${ROW_COLUMNS} from customer_loyalty l join customers c on c.store_id = l.store_id and c.id = l.customer_id
      where ${where} order by ${SORT_SQL[input.sort]} ${direction}, l.customer_id`,
    [store.id, ...params],
  );
  const money = (minor: number | null) => (minor === null ? '' : formatMinorUnits(minor));
  const share = (value: number | null) => (value === null ? '' : value.toFixed(4));
  return csvDocument(LOYALTY_CSV_HEADER, rows.map((row) => toRow(store.id, row)).map((row) => [
    row.id, row.platform, row.externalId, row.name ?? '', row.email ?? '', row.orders, money(row.spentMinor), row.firstOrderAt, row.lastOrderAt, row.r, row.f, row.m, row.segment,
    share(row.pAlive), share(row.churnRisk), share(row.expectedOrders90d), money(row.predictedValue12mMinor), row.loyaltyScore, store.currency,
  ]));
}
