import type { EntityManager } from '@mikro-orm/postgresql';
import type { Comparison } from '../../../shared/commerce.ts';
import { aov, delta, netSales, ratio } from '../../../shared/metrics.ts';
import { TOP_PRODUCTS, type RevenueBreakdownOutput } from '../../../shared/revenue.ts';
import { comparisonRange, daysOf, isDayInRange, type DayRange } from '../../../shared/date-ranges.ts';
import { conversionDaySql, roundMinor, withFxRates } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import { COUNTING_ORDER, LINE_TITLE_OF_ROLLUP, PRODUCT_OF_ROLLUP } from '../commerce/rollups.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

// Revenue breakdown. Totals, the daily series, channels, products and new vs returning come from the
// rollup tables (their cost grows with days); refunds by reason have no rollup and are read from the
// raw rows of the range. Every (day, currency) group is converted at that day's rate and money is
// rounded to minor units once, at the end. Cancelled and test orders, and their refunds, count nowhere.


interface Converted {
  day: string;
  currency: string;
}

interface DailyTotals {
  gross: number;
  discounts: number;
  refunds: number;
  orders: number;
}

function emptyDaily(): DailyTotals {
  return { gross: 0, discounts: 0, refunds: 0, orders: 0 };
}

type Rows = Record<string, string | number | boolean | null>[];

/** Product rows in the display currency ($4) need no day's rate: one row per product for them. */
const PRODUCT_CONVERSION_DAY = conversionDaySql('r.currency', 'r.day', '$4', '$2');

async function readRows(em: EntityManager, storeId: number, range: DayRange, previous: DayRange | null, currency: string) {
  const q = sqlRunner(em);
  const [daily, channels, products, refunds] = await Promise.all([
    q.rows(
      `select to_char(day, 'YYYY-MM-DD') as day, currency, orders_count, gross_minor::text as gross,
              discounts_minor::text as discounts, refunds_minor::text as refunds,
              new_customer_orders, new_customer_net_minor::text as new_net,
              returning_customer_orders, returning_customer_net_minor::text as returning_net
         from daily_rollups
        where store_id = $1 and ((day between $2::date and $3::date) or (day between $4::date and $5::date))`,
      [storeId, range.from, range.to, (previous ?? range).from, (previous ?? range).to],
    ) as Promise<Rows>,
    q.rows(
      `select to_char(day, 'YYYY-MM-DD') as day, channel, currency, orders_count, net_sales_minor::text as net_sales
         from channel_daily_rollups
        where store_id = $1 and day between $2::date and $3::date and (orders_count <> 0 or net_sales_minor <> 0)`,
      [storeId, range.from, range.to],
    ) as Promise<Rows>,
    q.rows(
      `select p.id::text as product_id, ${LINE_TITLE_OF_ROLLUP} as line_title,
              to_char(${PRODUCT_CONVERSION_DAY}, 'YYYY-MM-DD') as day, r.currency,
              sum(r.units)::text as units, sum(r.net_sales_minor)::text as net,
              case when sum(r.costed_lines) > 0 then sum(r.cogs_minor)::text end as cogs, sum(r.costed_net_minor)::text as costed_net
         from product_daily_rollups r
         ${PRODUCT_OF_ROLLUP}
        where r.store_id = $1 and r.day between $2::date and $3::date
        group by r.product_key, p.id, r.currency, ${PRODUCT_CONVERSION_DAY}`,
      [storeId, range.from, range.to, currency],
    ) as Promise<Rows>,
    q.rows(
      `select nullif(btrim(r.reason), '') as reason, to_char(r.refunded_day, 'YYYY-MM-DD') as day, r.currency,
              count(*)::int as refunds, sum(r.amount_minor)::text as amount
         from refunds r
         join lateral (select 1 from orders o where o.store_id = r.store_id and o.id = r.order_id and ${COUNTING_ORDER} limit 1) o on true
        where r.store_id = $1 and r.refunded_day between $2::date and $3::date
        group by 1, 2, 3`,
      [storeId, range.from, range.to],
    ) as Promise<Rows>,
  ]);
  return { daily, channels, products, refunds };
}

interface ProductSums {
  productId: number | null;
  lineTitle: string | null;
  units: number;
  net: number;
  cogs: number;
  costedNet: number;
  costed: boolean;
}

function productFigures(sums: Pick<ProductSums, 'units' | 'net' | 'cogs' | 'costedNet' | 'costed'>) {
  return {
    units: sums.units,
    netSales: roundMinor(sums.net),
    cogs: sums.costed ? roundMinor(sums.cogs) : null,
    margin: sums.costed ? ratio(sums.costedNet - sums.cogs, sums.costedNet) : null,
  };
}

export async function revenueBreakdown(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency'>,
  input: { from: string; to: string; compare: Comparison; currency?: string },
): Promise<RevenueBreakdownOutput> {
  const currency = input.currency ?? store.currency;
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare);
  const span = previousRange
    ? { from: previousRange.from < range.from ? previousRange.from : range.from, to: previousRange.to > range.to ? previousRange.to : range.to }
    : range;
  const [rows, fx] = await withFxRates(em, [currency, store.currency], span, readRows(em, store.id, range, previousRange, currency), (rows) =>
    [rows.daily, rows.channels, rows.products, rows.refunds].flatMap((list) => list.map((row) => String(row.currency))),
  );
  const factor = (row: Converted) => fx.factor(row.currency, currency, row.day);
  const text = (value: unknown) => String(value);

  // Totals and the daily series (rollups).
  const current = emptyDaily();
  const previous = emptyDaily();
  const byDay = new Map<string, DailyTotals>();
  for (const day of daysOf(range)) byDay.set(day, emptyDaily());
  for (const raw of rows.daily) {
    const row = { day: text(raw.day), currency: text(raw.currency) };
    const rate = factor(row);
    const targets = [isDayInRange(row.day, range) ? current : null, previousRange && isDayInRange(row.day, previousRange) ? previous : null, byDay.get(row.day) ?? null];
    for (const totals of targets) {
      if (!totals) continue;
      totals.gross += num(raw.gross) * rate;
      totals.discounts += num(raw.discounts) * rate;
      totals.refunds += num(raw.refunds) * rate;
      totals.orders += num(raw.orders_count);
    }
  }
  const figuresOf = (totals: DailyTotals) => {
    const gross = roundMinor(totals.gross);
    const discounts = roundMinor(totals.discounts);
    const refunds = roundMinor(totals.refunds);
    return { gross, discounts, refunds, netSales: netSales({ grossMinor: gross, discountsMinor: discounts, refundsMinor: refunds }), orders: totals.orders };
  };
  const currentFigures = figuresOf(current);
  const previousFigures = previousRange ? figuresOf(previous) : null;
  const kpis = Object.fromEntries(
    (Object.keys(currentFigures) as (keyof typeof currentFigures)[]).map((key) => {
      const before = previousFigures ? previousFigures[key] : null;
      return [key, { current: currentFigures[key], previous: before, delta: delta(currentFigures[key], before) }];
    }),
  ) as RevenueBreakdownOutput['kpis'];
  const series = [...byDay.entries()].map(([day, totals]) => {
    const { orders: _orders, ...money } = figuresOf(totals);
    return { day, ...money };
  });

  // Channels (rollups).
  const channels = new Map<string, { netSales: number; orders: number }>();
  for (const raw of rows.channels) {
    const channel = text(raw.channel);
    const entry = channels.get(channel) ?? { netSales: 0, orders: 0 };
    entry.netSales += num(raw.net_sales) * factor({ day: text(raw.day), currency: text(raw.currency) });
    entry.orders += num(raw.orders_count);
    channels.set(channel, entry);
  }
  const channelNetSales = [...channels.values()].reduce((sum, entry) => sum + entry.netSales, 0);
  const channelList = [...channels.entries()]
    .map(([channel, entry]) => ({ channel, netSales: roundMinor(entry.netSales), orders: entry.orders, share: ratio(entry.netSales, channelNetSales) }))
    .sort((a, b) => b.netSales - a.netSales || b.orders - a.orders || a.channel.localeCompare(b.channel));

  // Products (product rollups): lines of a catalogue product group by product, others by their title.
  const products = new Map<string, ProductSums>();
  for (const raw of rows.products) {
    const productId = raw.product_id === null ? null : num(raw.product_id);
    const lineTitle = raw.line_title === null ? null : text(raw.line_title);
    const key = productId === null ? `title:${lineTitle}` : `product:${productId}`;
    const entry = products.get(key) ?? { productId, lineTitle, units: 0, net: 0, cogs: 0, costedNet: 0, costed: false };
    const rate = factor({ day: text(raw.day), currency: text(raw.currency) });
    entry.units += num(raw.units);
    entry.net += num(raw.net) * rate;
    if (raw.cogs !== null) {
      entry.costed = true;
      entry.cogs += num(raw.cogs) * rate;
      entry.costedNet += num(raw.costed_net) * rate;
    }
    products.set(key, entry);
  }
  const ranked = [...products.values()].sort((a, b) => b.net - a.net || b.units - a.units);
  const top = ranked.slice(0, TOP_PRODUCTS);
  const rest = ranked.slice(TOP_PRODUCTS);
  const catalogue = await catalogueEntries(em, store.id, top.flatMap((entry) => (entry.productId === null ? [] : [entry.productId])));
  const others = rest.length
    ? {
        products: rest.length,
        ...productFigures(
          rest.reduce(
            (sum, entry) => ({
              units: sum.units + entry.units,
              net: sum.net + entry.net,
              cogs: sum.cogs + entry.cogs,
              costedNet: sum.costedNet + entry.costedNet,
              costed: sum.costed || entry.costed,
            }),
            { units: 0, net: 0, cogs: 0, costedNet: 0, costed: false as boolean },
          ),
        ),
      }
    : null;

  // New vs returning (daily rollups: orders on their placed day, net of their refunds whenever made).
  const groups = { new: { orders: 0, netSales: 0 }, returning: { orders: 0, netSales: 0 } };
  for (const raw of rows.daily) {
    const row = { day: text(raw.day), currency: text(raw.currency) };
    if (!isDayInRange(row.day, range)) continue;
    const rate = factor(row);
    groups.new.orders += num(raw.new_customer_orders);
    groups.new.netSales += num(raw.new_net) * rate;
    groups.returning.orders += num(raw.returning_customer_orders);
    groups.returning.netSales += num(raw.returning_net) * rate;
  }
  const customerGroup = (group: { orders: number; netSales: number }) => {
    const average = aov({ netSalesMinor: group.netSales, orders: group.orders });
    return { orders: group.orders, netSales: roundMinor(group.netSales), aov: average === null ? null : roundMinor(average) };
  };

  // Refunds by refund day (raw refunds for the count and the reasons).
  const reasons = new Map<string | null, { count: number; amount: number }>();
  let refundCount = 0;
  for (const raw of rows.refunds) {
    const reason = raw.reason === null ? null : text(raw.reason);
    const entry = reasons.get(reason) ?? { count: 0, amount: 0 };
    entry.count += num(raw.refunds);
    entry.amount += num(raw.amount) * factor({ day: text(raw.day), currency: text(raw.currency) });
    refundCount += num(raw.refunds);
    reasons.set(reason, entry);
  }

  return {
    storeId: store.id,
    currency,
    range,
    previousRange,
    kpis,
    series,
    channels: channelList,
    products: {
      top: top.map((entry) => {
        const known = entry.productId === null ? null : catalogue.get(entry.productId);
        return {
          productId: entry.productId,
          title: known?.title ?? entry.lineTitle ?? '',
          sku: known?.sku ?? null,
          ...productFigures(entry),
        };
      }),
      others,
    },
    customers: { new: customerGroup(groups.new), returning: customerGroup(groups.returning) },
    refunds: {
      count: refundCount,
      amount: currentFigures.refunds,
      rate: ratio(currentFigures.refunds, currentFigures.gross),
      reasons: [...reasons.entries()]
        .map(([reason, entry]) => ({ reason, count: entry.count, amount: roundMinor(entry.amount) }))
        .sort((a, b) => b.amount - a.amount || b.count - a.count),
    },
  };
}

async function catalogueEntries(em: EntityManager, storeId: number, productIds: number[]): Promise<Map<number, { title: string; sku: string | null }>> {
  if (productIds.length === 0) return new Map();
  const rows = await sqlRunner(em).rows<{ id: string; title: string; sku: string | null }>(
    `select id::text as id, title, sku from products where store_id = $1 and id = any($2::int8[])`,
    [storeId, productIds],
  );
  return new Map(rows.map((row) => [num(row.id), { title: row.title, sku: row.sku }]));
}
