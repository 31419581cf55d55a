import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import { sqlRunner } from './raw-sql.ts';

// Per-product shopping performance of ad accounts (product_ad_metrics_daily): written by the sync a
// whole slice of one account's days at a time, so a day read again replaces what was stored for it
// (a product that has no row any more on a restated day loses its old one) and a re-sync is idempotent.

/** One product's day as the platform reports it, in the account's currency. */
export interface IngestProductAdMetric {
  /** The item id as the platform reports it (Google: the Merchant Center offer id). */
  productItemId: string;
  /** 'YYYY-MM-DD', the account's reporting day. */
  day: string;
  currency: string;
  clicks: number;
  impressions: number;
  /** Cost in micros of `currency` (int64 as a string, as Google sends it). */
  costMicros: string;
  conversions: number;
  /** A decimal amount of `currency`. */
  conversionValue: number;
}

/** Every product day one account had in `from`..`to` (inclusive): what is stored for those days is replaced. */
export interface IngestProductAdSlice {
  platform: string;
  accountId: string;
  from: string;
  to: string;
  rows: IngestProductAdMetric[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function invalid(slice: IngestProductAdSlice, message: string): never {
  throw new AppError('BAD_REQUEST', `Product ad metrics ${slice.platform}/${slice.accountId} ${slice.from}..${slice.to}: ${message}`);
}

function checkSlice(slice: IngestProductAdSlice) {
  if (!slice.platform || !slice.accountId || !DAY.test(slice.from) || !DAY.test(slice.to) || slice.from > slice.to) invalid(slice, 'not a valid slice');
  for (const row of slice.rows) {
    if (!row.productItemId || row.productItemId.length > 150) invalid(slice, `item id must have 1 to 150 characters: ${String(row.productItemId).slice(0, 40)}`);
    if (!DAY.test(row.day) || row.day < slice.from || row.day > slice.to) invalid(slice, `day ${row.day} is outside the slice`);
    if (!/^[A-Z]{3}$/.test(row.currency)) invalid(slice, `currency ${row.currency} is not an ISO 4217 code`);
    if (!/^\d+$/.test(row.costMicros)) invalid(slice, `cost_micros ${row.costMicros} is not a whole number of at least 0`);
    for (const [field, value] of [['clicks', row.clicks], ['impressions', row.impressions]] as const) {
      if (!Number.isInteger(value) || value < 0) invalid(slice, `${field} must be a whole number of at least 0`);
    }
    for (const [field, value] of [['conversions', row.conversions], ['conversion value', row.conversionValue]] as const) {
      if (!Number.isFinite(value) || value < 0) invalid(slice, `${field} must be a number of at least 0`);
    }
  }
}

/** Replaces the stored days of each slice with its rows, all slices in one transaction. */
export async function replaceProductAdMetrics(em: EntityManager, storeId: number, slices: IngestProductAdSlice[]): Promise<number> {
  slices.forEach(checkSlice);
  let written = 0;
  await em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    for (const slice of slices) {
      await q.run(
        `delete from product_ad_metrics_daily where store_id = $1 and platform = $2 and account_id = $3 and day between $4::date and $5::date`,
        [storeId, slice.platform, slice.accountId, slice.from, slice.to],
      );
      if (slice.rows.length === 0) continue;
      const column = <T>(pick: (row: IngestProductAdMetric) => T) => slice.rows.map(pick);
      // Rows of the same item and day (Google does not send them, a fake or a future field could) are summed.
      written += await q.run(
        `insert into product_ad_metrics_daily (store_id, platform, account_id, product_item_id, day, currency, clicks, impressions, cost, conversions, conversion_value)
         select $1, $2, $3, x.item, x.day, max(x.currency), sum(x.clicks), sum(x.impressions), sum(x.cost_micros) / 1000000, sum(x.conversions), round(sum(x.conversion_value), 6)
           from unnest($4::text[], $5::date[], $6::text[], $7::bigint[], $8::bigint[], $9::numeric[], $10::float8[], $11::numeric[])
                as x(item, day, currency, clicks, impressions, cost_micros, conversions, conversion_value)
          group by x.item, x.day
          order by x.item, x.day`,
        [
          storeId, slice.platform, slice.accountId,
          column((row) => row.productItemId), column((row) => row.day), column((row) => row.currency), column((row) => row.clicks),
          column((row) => row.impressions), column((row) => row.costMicros), column((row) => row.conversions), column((row) => row.conversionValue),
        ],
      );
    }
  });
  return written;
}
