import { Migration } from '@mikro-orm/migrations';

/**
 * The tracking screen's health figures read a store's purchases of the last 30 days
 * (tracking-health.service.ts): an index on (store_id, occurred_at) keeps that read to those rows
 * instead of every purchase the store ever had (a million on the large demo store).
 */
export class Migration20261128060100_tracking_purchase_time extends Migration {

  override name = 'Migration20261128060100_tracking_purchase_time';

  override up(): void | Promise<void> {
    this.addSql(`create index "tracking_purchases_occurred_at_index" on "tracking_purchases" ("store_id", "occurred_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "tracking_purchases_occurred_at_index";`);
  }

}
