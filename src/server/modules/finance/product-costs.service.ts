import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProductCostRow } from '../../../shared/finance.ts';
import { AppError } from '../../errors.ts';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import { roundMinor, withFxRates } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import { applyRollupDelta, lockStoreForIngest, orderContributions, RollupDelta, COUNTING_ORDER } from '../commerce/rollups.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

export const PRODUCT_NOT_FOUND_MESSAGE = 'Product not found';

type StoreRef = Pick<StoreEntity, 'id' | 'currency' | 'timezone'>;


/** The window of "sold lately" beside each product. */
export const RECENT_SALES_DAYS = 30;

/**
 * A page of the catalogue for editing COGS, best sellers of the last 30 days first, with their units
 * and net line value (converted into the store's currency at each day's rate).
 */
export async function listProductCosts(
  em: EntityManager,
  store: StoreRef,
  input: { page: number; pageSize: number; search?: string },
  now = new Date(),
): Promise<{ items: ProductCostRow[]; total: number; page: number; pageSize: number; currency: string }> {
  const q = sqlRunner(em);
  const today = dayInZone(now, store.timezone);
  const since = addDays(today, -(RECENT_SALES_DAYS - 1));
  const search = input.search ? `%${input.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await q.rows<Record<string, string | null>>(
    `with sales as (
       select l.product_id, sum(l.quantity)::bigint as units
         from orders o join order_lines l on l.store_id = o.store_id and l.order_id = o.id
        where o.store_id = $1 and o.placed_day >= $2::date and ${COUNTING_ORDER} and l.product_id is not null
        group by l.product_id
     )
     select p.id::text as id, p.title, p.sku, p.price_minor::text as price, p.currency, p.unit_cost_minor::text as cost, p.image_url,
            coalesce(s.units, 0)::text as units, count(*) over ()::text as total
       from products p left join sales s on s.product_id = p.id
      where p.store_id = $1 and ($3::text is null or p.title ilike $3 or p.sku ilike $3)
      order by coalesce(s.units, 0) desc, p.title, p.id
      limit $4 offset $5`,
    [store.id, since, search, input.pageSize, (input.page - 1) * input.pageSize],
  );
  const ids = rows.map((row) => row.id!);
  const [sales, fx] = await withFxRates(
    em,
    [store.currency],
    { from: since, to: today },
    ids.length
      ? q.rows<{ product_id: string; day: string; currency: string; net: string }>(
          `select l.product_id::text as product_id, to_char(o.placed_day, 'YYYY-MM-DD') as day, o.currency,
                  sum(l.quantity::bigint * l.unit_price_minor - l.discount_minor)::text as net
             from order_lines l join orders o on o.store_id = l.store_id and o.id = l.order_id
            where l.store_id = $1 and l.product_id = any($2::bigint[]) and o.placed_day >= $3::date and ${COUNTING_ORDER}
            group by l.product_id, o.placed_day, o.currency`,
          [store.id, ids, since],
        )
      : Promise.resolve([]),
    (sales) => sales.map((row) => row.currency),
  );
  const netByProduct = new Map<string, number>();
  for (const row of sales) {
    netByProduct.set(row.product_id, (netByProduct.get(row.product_id) ?? 0) + num(row.net) * fx.factor(row.currency, store.currency, row.day));
  }
  let total = rows.length ? num(rows[0]!.total) : 0;
  if (rows.length === 0 && input.page > 1) {
    const [count] = await q.rows<{ n: string }>(`select count(*)::text as n from products p where p.store_id = $1 and ($2::text is null or p.title ilike $2 or p.sku ilike $2)`, [store.id, search]);
    total = num(count?.n);
  }
  return {
    items: rows.map((row) => ({
      id: num(row.id),
      title: row.title!,
      sku: row.sku ?? null,
      priceMinor: num(row.price),
      currency: row.currency!,
      unitCostMinor: row.cost === null ? null : num(row.cost),
      imageUrl: row.image_url ?? null,
      unitsSold30d: num(row.units),
      netSales30d: roundMinor(netByProduct.get(row.id!) ?? 0),
    })),
    total,
    page: input.page,
    pageSize: input.pageSize,
    currency: store.currency,
  };
}

/** Orders re-costed per statement: keeps each rollup delta (and the contributions query) small. */
const RECOST_CHUNK = 2_000;

/**
 * Sets a product's unit cost. With `applyToPastOrders`, the cost snapshot of its lines in orders of
 * the product's currency (the lines ingest costs from the product) changes too, and the COGS columns
 * of the rollups move by the difference, in the same transaction and under the store's ingest lock.
 * The rollup change is computed with the functions ingest uses (contributions of the touched orders
 * before and after), so the rollups stay equal to a rebuild.
 */
export async function updateProductCost(
  em: EntityManager,
  store: StoreRef,
  input: { productId: number; unitCostMinor: number | null; applyToPastOrders: boolean },
) {
  return em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    await lockStoreForIngest(q, store.id);
    const [product] = await q.rows<{ id: string; title: string; sku: string | null; currency: string }>(
      `update products set unit_cost_minor = $3, updated_at = now() where store_id = $1 and id = $2
       returning id::text as id, title, sku, currency`,
      [store.id, input.productId, input.unitCostMinor],
    );
    if (!product) throw new AppError('NOT_FOUND', PRODUCT_NOT_FOUND_MESSAGE);

    let updatedLines = 0;
    let updatedUnits = 0;
    if (input.applyToPastOrders) {
      const orders = await q.rows<{ id: string }>(
        `select distinct l.order_id::text as id
           from order_lines l join orders o on o.store_id = l.store_id and o.id = l.order_id
          where l.store_id = $1 and l.product_id = $2 and o.currency = $3
            and l.unit_cost_minor is distinct from $4::bigint`,
        [store.id, input.productId, product.currency, input.unitCostMinor],
      );
      const orderIds = orders.map((row) => num(row.id));
      for (let start = 0; start < orderIds.length; start += RECOST_CHUNK) {
        const chunk = orderIds.slice(start, start + RECOST_CHUNK);
        const before = await orderContributions(q, store.id, chunk);
        const [changed] = await q.rows<{ lines: string; units: string }>(
          `with changed as (
             update order_lines set unit_cost_minor = $4
              where store_id = $1 and product_id = $2 and order_id = any($3::bigint[]) and unit_cost_minor is distinct from $4::bigint
             returning order_id, quantity)
           select count(*)::text as lines, coalesce(sum(c.quantity) filter (where ${COUNTING_ORDER}), 0)::text as units
             from changed c join orders o on o.store_id = $1 and o.id = c.order_id`,
          [store.id, input.productId, chunk, input.unitCostMinor],
        );
        updatedLines += num(changed?.lines);
        updatedUnits += num(changed?.units);
        const after = await orderContributions(q, store.id, chunk);
        // Only the COGS columns differ: every other contribution of the same orders is unchanged.
        await applyRollupDelta(q, store.id, new RollupDelta().add(before, -1).add(after, 1));
      }
    }
    return {
      product: { id: num(product.id), title: product.title, sku: product.sku, currency: product.currency, unitCostMinor: input.unitCostMinor },
      updatedLines,
      updatedUnits,
    };
  });
}
