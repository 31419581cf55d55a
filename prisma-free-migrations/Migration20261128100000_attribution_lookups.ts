import { Migration } from '@mikro-orm/migrations';

/**
 * The attribution job finds the orders of visitors that have new touchpoints (credits.ts,
 * ordersOfVisitors) by their purchases' browser ids: an index on (store_id, anonymous_id) makes
 * that a probe per visitor instead of a read of every purchase the store ever had.
 */
export class Migration20261128100000_attribution_lookups extends Migration {

  override name = 'Migration20261128100000_attribution_lookups';

  override up(): void | Promise<void> {
    this.addSql(`create index "tracking_purchases_anonymous_id_index" on "tracking_purchases" ("store_id", "anonymous_id") where "anonymous_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "tracking_purchases_anonymous_id_index";`);
  }

}
