import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReconciliationExplanation, ReconciliationView } from '../../../shared/integrations.ts';
import type { Connector, ConnectorContext, SourceDayTotal, SyncWindow } from '../../connectors/connector.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { ReconciliationResult, type ReconciliationDay, type ReconciliationResultEntity } from './integration.entities.ts';

// "Why don't the numbers match?": after a sync, our per-day figures for the window are compared with
// the platform's own (connector.sourceTotals): order counts and net sales of store platforms (by the
// store's day, test and cancelled orders left out on both sides), spend of ad platforms. The latest
// result is kept per connection, with the orders that explain differences on the days that differ.

const MAX_EXPLANATIONS = 50;

interface OurStoreDay {
  orders: number;
  netSalesMinor: number;
}

async function ourStoreDays(em: EntityManager, storeId: number, platform: string, from: string, to: string, currency: string): Promise<Map<string, OurStoreDay>> {
  const rows = await sqlRunner(em).rows<{ day: string; orders: string; net_sales: string }>(
    `select to_char(placed_day, 'YYYY-MM-DD') as day,
            count(*) filter (where not is_test and status <> 'cancelled')::text as orders,
            coalesce(sum(net_sales_minor) filter (where not is_test and status <> 'cancelled' and currency = $5), 0)::text as net_sales
       from orders
      where store_id = $1 and platform = $2 and placed_day between $3::date and $4::date
      group by placed_day`,
    [storeId, platform, from, to, currency],
  );
  return new Map(rows.map((row) => [row.day, { orders: num(row.orders), netSalesMinor: num(row.net_sales) }]));
}

async function ourSpendDays(em: EntityManager, storeId: number, platform: string, from: string, to: string): Promise<Map<string, number>> {
  const rows = await sqlRunner(em).rows<{ day: string; spend: string }>(
    `select to_char(day, 'YYYY-MM-DD') as day, sum(spend_minor)::text as spend
       from ad_metrics_daily
      where store_id = $1 and platform = $2 and day between $3::date and $4::date
      group by day`,
    [storeId, platform, from, to],
  );
  return new Map(rows.map((row) => [row.day, num(row.spend)]));
}

/**
 * Orders of the differing days that explain a difference: the ones either side may count differently
 * (test, cancelled, another currency than the platform's totals, refunded on a later day).
 */
async function explanationsFor(em: EntityManager, storeId: number, platform: string, timezone: string, days: string[], currency: string): Promise<ReconciliationExplanation[]> {
  if (days.length === 0) return [];
  const rows = await sqlRunner(em).rows<{ external_id: string; order_number: string | null; is_test: boolean; status: string; currency: string; day: string; refund_day: string | null; refunds_minor: string }>(
    `select o.external_id, o.order_number, o.is_test, o.status, o.currency, to_char(o.placed_day, 'YYYY-MM-DD') as day, o.refunds_minor::text as refunds_minor,
            (select to_char(max((r.refunded_at at time zone $4)::date), 'YYYY-MM-DD') from refunds r where r.store_id = o.store_id and r.order_id = o.id) as refund_day
       from orders o
      where o.store_id = $1 and o.platform = $2 and o.placed_day = any($3::date[])
        and (o.is_test or o.status = 'cancelled' or o.currency <> $5 or o.refunds_minor > 0)
      order by o.placed_day, o.external_id
      limit ${MAX_EXPLANATIONS * 2}`,
    [storeId, platform, days, timezone, currency],
  );
  const explanations: ReconciliationExplanation[] = [];
  for (const row of rows) {
    const base = { orderExternalId: row.external_id, orderNumber: row.order_number };
    if (row.is_test) explanations.push({ ...base, reason: 'test_order', detail: `A test order on ${row.day}: counted nowhere.` });
    else if (row.status === 'cancelled') explanations.push({ ...base, reason: 'cancelled', detail: `Cancelled; placed on ${row.day}.` });
    else if (row.currency !== currency) explanations.push({ ...base, reason: 'other_currency', detail: `Paid in ${row.currency}, not ${currency}: its sales are left out of the ${currency} totals.` });
    else if (row.refund_day && row.refund_day > row.day) {
      explanations.push({ ...base, reason: 'refunded_later', detail: `Placed on ${row.day}, refunded on ${row.refund_day}: the refund lowers net sales of its own day.` });
    }
    if (explanations.length >= MAX_EXPLANATIONS) break;
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
  const currency = source.find((total) => total.currency)?.currency ?? store.currency;
  const platform = connection.platform;
  const isStore = connector.kind === 'store';
  const ourOrders = isStore ? await ourStoreDays(em, store.id, platform, from, to, currency) : new Map<string, OurStoreDay>();
  const ourSpend = isStore ? new Map<string, number>() : await ourSpendDays(em, store.id, platform, from, to);

  const differing: ReconciliationDay[] = [];
  const totals = { ourOrders: 0, sourceOrders: null as number | null, ourNet: 0, sourceNet: null as number | null, ourSpend: 0, sourceSpend: null as number | null };
  const add = (current: number | null, value: number | undefined) => (value === undefined ? current : (current ?? 0) + value);
  for (const day of source as SourceDayTotal[]) {
    const ours = ourOrders.get(day.day) ?? { orders: 0, netSalesMinor: 0 };
    const spend = ourSpend.get(day.day) ?? 0;
    totals.ourOrders += ours.orders;
    totals.ourNet += ours.netSalesMinor;
    totals.ourSpend += spend;
    totals.sourceOrders = add(totals.sourceOrders, day.orders);
    totals.sourceNet = add(totals.sourceNet, day.netSalesMinor);
    totals.sourceSpend = add(totals.sourceSpend, day.spendMinor);
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
      ...(isStore ? {} : { ourSpend: spend, sourceSpend: day.spendMinor ?? null }),
    });
  }
  const explanations = isStore ? await explanationsFor(em, store.id, platform, store.timezone, differing.map((day) => day.day), currency) : [];

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
    ourNetSalesMinor: totals.ourNet,
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
