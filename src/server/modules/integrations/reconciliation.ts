import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql, isCountingOrder } from '../../../shared/commerce.ts';
import type { ReconciliationExplanation, ReconciliationView } from '../../../shared/integrations.ts';
import type { Connector, ConnectorContext, SourceDayTotal, SyncWindow } from '../../connectors/connector.ts';
import { DAY_ORDERS_LIMIT, canListDayOrders, storeDaysOf, type DayOrdersLookup, type SourceDayOrder } from '../../connectors/store-common.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { ReconciliationResult, type ReconciliationDay, type ReconciliationResultEntity } from './integration.entities.ts';

// "Why don't the numbers match?": after a sync, our per-day figures for the window are compared with
// the platform's own (connector.sourceTotals): order counts and net sales of store platforms (by the
// store's day, orders placed within the window, test and cancelled orders left out on both sides),
// spend of ad platforms. The latest result is kept per connection, with the orders that explain
// differences on the days that differ; store connectors that can list a day's orders
// (DayOrdersLookup) are asked for those days only, which finds the orders missing here and the ones
// edited at the source after our copy.

const MAX_EXPLANATIONS = 50;
/** At most this many differing days are looked up order by order (each is one or a few requests). */
const MAX_LOOKUP_DAYS = 10;

interface OurStoreDay {
  orders: number;
  netSalesMinor: number;
}

/**
 * Our counting orders placed in [since, until), per store day, and their net sales as the platforms'
 * own reports count a day's (and as our rollups do): the orders' gross less discounts on the day they
 * were placed, less the refunds made in the window on the day each was made, whatever the order's day.
 */
async function ourStoreDays(em: EntityManager, storeId: number, platform: string, window: SyncWindow, currency: string): Promise<Map<string, OurStoreDay>> {
  const rows = await sqlRunner(em).rows<{ day: string; orders: string; net_sales: string }>(
    `with placed as (
       select placed_day as day, count(*) as orders, coalesce(sum(gross_minor - discounts_minor) filter (where currency = $5), 0) as net
         from orders
        where store_id = $1 and platform = $2 and placed_at >= $3 and placed_at < $4 and ${countingOrderSql()}
        group by placed_day
     ),
     refunded as (
       select r.refunded_day as day, sum(r.amount_minor) as amount
         from refunds r join orders o on o.store_id = r.store_id and o.id = r.order_id
        where r.store_id = $1 and o.platform = $2 and r.refunded_at >= $3 and r.refunded_at < $4 and r.currency = $5 and ${countingOrderSql('o')}
        group by r.refunded_day
     )
     select to_char(coalesce(p.day, r.day), 'YYYY-MM-DD') as day, coalesce(p.orders, 0)::text as orders,
            (coalesce(p.net, 0) - coalesce(r.amount, 0))::text as net_sales
       from placed p full join refunded r on r.day = p.day`,
    [storeId, platform, window.since, window.until, currency],
  );
  return new Map(rows.map((row) => [row.day, { orders: num(row.orders), netSalesMinor: num(row.net_sales) }]));
}

/** Our spend per (day, account, currency); spendKey(day, null, currency) sums the accounts of a currency. */
async function ourSpendDays(em: EntityManager, storeId: number, platform: string, from: string, to: string): Promise<Map<string, number>> {
  const rows = await sqlRunner(em).rows<{ day: string; account_id: string; currency: string; spend: string }>(
    `select to_char(day, 'YYYY-MM-DD') as day, account_id, currency, sum(spend_minor)::text as spend
       from ad_metrics_daily
      where store_id = $1 and platform = $2 and day between $3::date and $4::date
      group by day, account_id, currency`,
    [storeId, platform, from, to],
  );
  const spend = new Map<string, number>();
  for (const row of rows) {
    for (const key of [spendKey(row.day, row.account_id, row.currency), spendKey(row.day, null, row.currency)]) spend.set(key, (spend.get(key) ?? 0) + num(row.spend));
  }
  return spend;
}

function spendKey(day: string, accountId: string | null | undefined, currency: string): string {
  return `${day}|${accountId ?? '*'}|${currency}`;
}

interface OurOrderRow {
  external_id: string;
  order_number: string | null;
  is_test: boolean;
  status: string;
  currency: string;
  day: string;
  updated_ms: number;
}

/** Our copies of the orders placed on the given days within the window, or of the given external ids. */
async function ourOrders(em: EntityManager, storeId: number, platform: string, window: SyncWindow, days: string[], externalIds: string[]): Promise<OurOrderRow[]> {
  return sqlRunner(em).rows<OurOrderRow>(
    `select o.external_id, o.order_number, o.is_test, o.status, o.currency, to_char(o.placed_day, 'YYYY-MM-DD') as day, (extract(epoch from o.updated_at) * 1000)::float8 as updated_ms
       from orders o
      where o.store_id = $1 and o.platform = $2
        and ((o.placed_day = any($3::date[]) and o.placed_at >= $4 and o.placed_at < $5) or o.external_id = any($6::text[]))
      order by o.placed_day, o.external_id`,
    [storeId, platform, days, window.since, window.until, externalIds],
  );
}

/**
 * Why one of our orders may be counted differently from the platform's totals (null: no reason
 * seen). Another currency only changes net sales: it explains a day only when its net sales differ
 * (`netSalesDiffer`), not a difference in counts. (A refund made later is no reason: both sides put a
 * refund on the day it was made.)
 */
function reasonOf(row: OurOrderRow, currency: string, netSalesDiffer: boolean): ReconciliationExplanation | null {
  const base = { orderExternalId: row.external_id, orderNumber: row.order_number };
  if (row.is_test) return { ...base, reason: 'test_order', detail: `A test order on ${row.day}: counted nowhere.` };
  if (row.status === 'cancelled') return { ...base, reason: 'cancelled', detail: `Cancelled; placed on ${row.day}.` };
  if (row.status === 'unpaid') return { ...base, reason: 'unpaid', detail: `Never paid; placed on ${row.day}.` };
  if (!netSalesDiffer) return null;
  if (row.currency !== currency) return { ...base, reason: 'other_currency', detail: `Paid in ${row.currency}, not ${currency}: its sales are left out of the ${currency} totals.` };
  return null;
}

/**
 * Orders of the differing days that explain a difference: the ones either side may count differently
 * (test, cancelled, another currency than the platform's totals, refunded on a later day).
 */
function explanationsFromOurs(rows: OurOrderRow[], currency: string, netSalesDays: Set<string>): ReconciliationExplanation[] {
  return rows.map((row) => reasonOf(row, currency, netSalesDays.has(row.day))).filter((explanation) => explanation !== null);
}

/**
 * With the platform's own list of each differing day's orders: the ones it counts that we do not
 * have (missing here), that it changed after our copy (edited after sync), that our copy does not
 * count (test, cancelled), and ours it does not list (missing at the source, when its list is whole).
 */
async function explanationsFromLookup(
  em: EntityManager,
  input: ReconcileInput & { lookup: DayOrdersLookup },
  days: string[],
  currency: string,
  netSalesDays: Set<string>,
): Promise<ReconciliationExplanation[]> {
  const { store, connection } = input;
  const slices = storeDaysOf(input.window, store.timezone).filter((slice) => days.includes(slice.day)).slice(0, MAX_LOOKUP_DAYS);
  const listed = [] as { day: string; orders: SourceDayOrder[]; complete: boolean }[];
  for (const slice of slices) listed.push({ day: slice.day, ...(await input.lookup.dayOrders(input.ctx, slice, DAY_ORDERS_LIMIT)) });
  const sourceIds = listed.flatMap((day) => day.orders.map((order) => order.externalId));
  const ours = await ourOrders(em, store.id, connection.platform, input.window, slices.map((slice) => slice.day), sourceIds);
  const ourById = new Map(ours.map((row) => [row.external_id, row]));

  const explanations: ReconciliationExplanation[] = [];
  for (const day of listed) {
    const listedIds = new Set(day.orders.map((order) => order.externalId));
    for (const order of day.orders) {
      const base = { orderExternalId: order.externalId, orderNumber: order.orderNumber };
      const copy = ourById.get(order.externalId);
      if (!copy) {
        explanations.push({ ...base, reason: 'missing_here', detail: `Counted by the platform on ${day.day} but not synced here yet; the next sync brings it in.` });
      } else if (Date.parse(order.updatedAt) > Number(copy.updated_ms)) {
        explanations.push({ ...base, reason: 'edited_after_sync', detail: `Changed at the platform on ${order.updatedAt.slice(0, 10)}, after our copy; the next sync updates it.` });
      } else {
        const reason = reasonOf(copy, currency, netSalesDays.has(day.day));
        if (reason) explanations.push(reason);
      }
    }
    if (!day.complete) continue;
    for (const row of ours) {
      if (row.day !== day.day || listedIds.has(row.external_id) || !isCountingOrder(row.status, row.is_test)) continue;
      explanations.push({
        orderExternalId: row.external_id,
        orderNumber: row.order_number,
        reason: 'missing_at_source',
        detail: `Counted here on ${row.day}, but the platform no longer counts it (deleted, cancelled or marked as a test there).`,
      });
    }
  }
  return explanations;
}

export interface ReconcileInput {
  connection: PlatformConnectionEntity;
  store: StoreEntity;
  connector: Connector;
  ctx: ConnectorContext;
  window: SyncWindow;
  checkedAt: Date;
}

/** Compares the synced window with the platform's totals and stores the result; skipped when the platform has none. */
export async function reconcileAfterSync(em: EntityManager, input: ReconcileInput): Promise<ReconciliationResultEntity | null> {
  const { connection, store, connector } = input;
  if (!connector.sourceTotals || connector.kind === 'email') return null;
  const source = (await connector.sourceTotals(input.ctx, input.window)).sort((a, b) => a.day.localeCompare(b.day));
  if (source.length === 0) return null;
  const from = source[0]!.day;
  const to = source.at(-1)!.day;
  // Totals are summed in one currency: the store's when the platform reports in it, else the first it reports.
  const currency = source.some((total) => total.currency === store.currency) ? store.currency : (source.find((total) => total.currency)?.currency ?? store.currency);
  const platform = connection.platform;
  const isStore = connector.kind === 'store';
  const ourDays = isStore ? await ourStoreDays(em, store.id, platform, input.window, currency) : new Map<string, OurStoreDay>();
  const ourSpend = isStore ? new Map<string, number>() : await ourSpendDays(em, store.id, platform, from, to);

  const differing: ReconciliationDay[] = [];
  const totals = { ourOrders: 0, sourceOrders: null as number | null, ourNet: 0, ourNetOfSourceDays: 0, sourceNet: null as number | null, ourSpend: 0, sourceSpend: null as number | null };
  const add = (current: number | null, value: number | undefined) => (value === undefined ? current : (current ?? 0) + value);
  for (const day of source as SourceDayTotal[]) {
    const ours = ourDays.get(day.day) ?? { orders: 0, netSalesMinor: 0 };
    // An ad platform's day of one account (or of all its accounts in that currency), in its currency.
    const spend = ourSpend.get(spendKey(day.day, day.accountId, day.currency)) ?? 0;
    const inTotals = isStore || day.currency === currency;
    totals.ourOrders += ours.orders;
    totals.ourNet += ours.netSalesMinor;
    // Where the platform reports net sales for some days only (whole days), the period's totals compare those days.
    if (day.netSalesMinor !== undefined) totals.ourNetOfSourceDays += ours.netSalesMinor;
    if (inTotals) {
      totals.ourSpend += spend;
      totals.sourceSpend = add(totals.sourceSpend, day.spendMinor);
    }
    totals.sourceOrders = add(totals.sourceOrders, day.orders);
    totals.sourceNet = add(totals.sourceNet, day.netSalesMinor);
    const differs =
      (day.orders !== undefined && day.orders !== ours.orders) ||
      (day.netSalesMinor !== undefined && day.netSalesMinor !== ours.netSalesMinor) ||
      (day.spendMinor !== undefined && day.spendMinor !== spend);
    if (!differs) continue;
    differing.push({
      day: day.day,
      ourOrders: ours.orders,
      sourceOrders: day.orders ?? null,
      ourNetSales: ours.netSalesMinor,
      sourceNetSales: day.netSalesMinor ?? null,
      ...(isStore ? {} : { ourSpend: spend, sourceSpend: day.spendMinor ?? null, currency: day.currency, ...(day.accountId ? { accountId: day.accountId } : {}) }),
    });
  }
  const differingDays = differing.map((day) => day.day);
  let explanations: ReconciliationExplanation[] = [];
  if (isStore && differingDays.length > 0) {
    const netSalesDays = new Set(differing.filter((day) => day.sourceNetSales !== null && day.sourceNetSales !== day.ourNetSales).map((day) => day.day));
    explanations = canListDayOrders(connector)
      ? await explanationsFromLookup(em, { ...input, lookup: connector }, differingDays, currency, netSalesDays)
      : explanationsFromOurs(await ourOrders(em, store.id, platform, input.window, differingDays, []), currency, netSalesDays);
  }
  explanations = explanations.slice(0, MAX_EXPLANATIONS);

  const values = {
    store: store.id,
    connection: connection.id,
    checkedAt: input.checkedAt,
    fromDay: from,
    toDay: to,
    matches: differing.length === 0,
    currency,
    ourOrders: totals.ourOrders,
    sourceOrders: totals.sourceOrders,
    ourNetSalesMinor: totals.sourceNet === null ? totals.ourNet : totals.ourNetOfSourceDays,
    sourceNetSalesMinor: totals.sourceNet,
    ourSpendMinor: isStore ? null : totals.ourSpend,
    sourceSpendMinor: isStore ? null : totals.sourceSpend,
    days: differing,
    explanations,
  };
  const existing = await em.findOne(ReconciliationResult, { store: store.id, connection: connection.id });
  const result = existing ? em.assign(existing, values) : em.create(ReconciliationResult, values);
  await em.flush();
  return result;
}

function dayText(value: unknown): string {
  return value instanceof Date ? value.toISOString().slice(0, 10) : String(value);
}

export function reconciliationView(result: ReconciliationResultEntity): ReconciliationView {
  const isAds = result.ourSpendMinor !== null && result.ourSpendMinor !== undefined;
  return {
    checkedAt: result.checkedAt.toISOString(),
    from: dayText(result.fromDay),
    to: dayText(result.toDay),
    matches: result.matches,
    currency: result.currency,
    ourOrders: result.ourOrders,
    sourceOrders: result.sourceOrders ?? null,
    ourNetSales: result.ourNetSalesMinor,
    sourceNetSales: result.sourceNetSalesMinor ?? null,
    ...(isAds ? { ourSpend: result.ourSpendMinor!, sourceSpend: result.sourceSpendMinor ?? null } : {}),
    days: result.days,
    explanations: result.explanations,
  };
}
