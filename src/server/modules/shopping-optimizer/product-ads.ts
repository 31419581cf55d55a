import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import type { AdsPerformance, ProductAdsFigures } from '../../../shared/shopping-optimizer.ts';
import { roundMinor, withFxRates } from '../commerce/fx.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

// The store's products in its Google Ads shopping reports (product_ad_metrics_daily, written by the
// Google Ads sync) over a window of days: clicks, impressions, conversions, and cost converted into
// the store's currency at each day's rate, as the other reports convert ad spend.
//
// Google reports a product by its Merchant Center item id, which is the feed's g:id (the product's
// externalId, feed-rules.ts feedItemOf). Merchant Center treats ids differing only in case as the same
// item, and the item id Google Ads reports may come back in another case than the feed sent it:
// matched case-insensitively (docs/platform-notes.md, "Google Ads: per-product shopping performance").

export type StoreOfAds = Pick<StoreEntity, 'id' | 'currency' | 'timezone'>;

export interface ProductAds {
  /** Figures by item id in lower case. */
  byItem: Map<string, ProductAdsFigures>;
  performance: Omit<AdsPerformance, 'unmatchedItems'>;
}

export function adsWindow(timezone: string, days: number, now: Date): { from: string; to: string } {
  const to = dayInZone(now, timezone);
  return { from: addDays(to, -(days - 1)), to };
}

interface ItemDay {
  item: string;
  currency: string;
  day: string;
  clicks: number;
  impressions: number;
  cost: number;
  conversions: number;
}

export async function productAdsOf(em: EntityManager, store: StoreOfAds, days: number, now: Date): Promise<ProductAds> {
  const window = adsWindow(store.timezone, days, now);
  const q = sqlRunner(em);
  // Rows already in the store's currency need no rate: grouped on the window's first day (one row per item).
  const read = q.rows<ItemDay>(
    `select lower(product_item_id) as item, currency::text as currency,
            to_char(case when currency = $4::bpchar then $2::date else day end, 'YYYY-MM-DD') as day,
            sum(clicks)::float8 as clicks, sum(impressions)::float8 as impressions, sum(cost)::float8 as cost, sum(conversions)::float8 as conversions
       from product_ad_metrics_daily
      where store_id = $1 and day between $2::date and $3::date
      group by 1, 2, 3`,
    [store.id, window.from, window.to, store.currency],
  );
  const [rows, fx] = await withFxRates(em, [store.currency], window, read, (result) => result.map((row) => row.currency));
  const exact = new Map<string, ProductAdsFigures & { cost: number }>();
  let totalCost = 0;
  for (const row of rows) {
    // Cost is a decimal amount; every supported currency has 2 decimals.
    const cost = Number(row.cost) * 100 * fx.factor(row.currency, store.currency, row.day);
    totalCost += cost;
    const figures = exact.get(row.item) ?? { clicks: 0, impressions: 0, costMinor: 0, conversions: 0, cost: 0 };
    figures.clicks += Number(row.clicks);
    figures.impressions += Number(row.impressions);
    figures.conversions += Number(row.conversions);
    figures.cost += cost;
    exact.set(row.item, figures);
  }
  const byItem = new Map<string, ProductAdsFigures>();
  for (const [item, { cost, ...figures }] of exact) byItem.set(item, { ...figures, costMinor: roundMinor(cost), conversions: Math.round(figures.conversions * 100) / 100 });
  const status = rows.length > 0 ? 'ready' : (await hasGoogleAds(em, store.id)) ? 'no_rows' : 'not_connected';
  return { byItem, performance: { status, days, ...window, currency: store.currency, costMinor: roundMinor(totalCost) } };
}

/** A Google Ads connection, or Google Ads campaign days (a demo store has those without a connection). */
async function hasGoogleAds(em: EntityManager, storeId: number): Promise<boolean> {
  const [row] = await sqlRunner(em).rows<{ found: boolean }>(
    `select exists (select 1 from platform_connections where store_id = $1 and platform = 'googleads' and status <> 'not_connected')
         or exists (select 1 from ad_metrics_daily where store_id = $1 and platform = 'googleads') as found`,
    [storeId],
  );
  return row?.found === true;
}
