import { Migration } from '@mikro-orm/migrations';

/**
 * attribution.topPaths and attribution.distributions read the stored journeys (attribution_orders)
 * and are answered from the answer cache: its writes move the store's data version too, like the
 * tables of Migration20261128130000_attribution_monthly.
 */
export class Migration20261128130002_attribution_orders_cache_version extends Migration {

  override name = 'Migration20261128130002_attribution_orders_cache_version';

  override up(): void | Promise<void> {
    for (const [event, transition] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']]) {
      this.addSql(`create trigger "attribution_orders_cache_version_${event}" after ${event} on "attribution_orders" referencing ${transition} table as changed_rows for each statement execute function bump_store_cache_versions();`);
      this.addSql(`alter table "attribution_orders" enable always trigger "attribution_orders_cache_version_${event}";`);
    }
  }

  override down(): void | Promise<void> {
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "attribution_orders_cache_version_${event}" on "attribution_orders";`);
  }

}
