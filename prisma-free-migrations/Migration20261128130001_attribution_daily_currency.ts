import { Migration } from '@mikro-orm/migrations';

/**
 * The touchpoints report converts credits in other currencies than the store's per day
 * (attribution.service.ts, creditGroups): an index with the currency before the day reads only
 * those rows (on the 1M-order demo store, ~19,000 of ~76,000 rows a model has in a year; the
 * primary key, with the currency last, made PostgreSQL read them all or the whole table).
 */
export class Migration20261128130001_attribution_daily_currency extends Migration {

  override name = 'Migration20261128130001_attribution_daily_currency';

  override up(): void | Promise<void> {
    this.addSql(`create index "attribution_daily_currency_index" on "attribution_daily" ("store_id", "window_days", "currency", "model", "day");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "attribution_daily_currency_index";`);
  }

}
