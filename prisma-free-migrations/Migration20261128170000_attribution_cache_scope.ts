import { Migration } from '@mikro-orm/migrations';

/**
 * The attribution tables move a counter of their own, 'attribution:<id>', instead of the store's
 * 'store:<id>' (Migration20261128030000_cache_versions): the attribution job rewrites credits every
 * minute while a store's pixel is live, and each write used to void the store's cached dashboard
 * answers, which read none of these tables. Attribution answers follow both counters
 * (answer-cache.ts, followsAttribution): the store's (orders, ad metrics, settings) and this one.
 */
const ATTRIBUTION_TABLES = ['attribution_daily', 'attribution_state', 'tracking_settings', 'attribution_orders'];
const EVENTS = [['insert', 'new'], ['update', 'new'], ['delete', 'old']] as const;

export class Migration20261128170000_attribution_cache_scope extends Migration {

  override name = 'Migration20261128170000_attribution_cache_scope';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "bump_attribution_cache_versions"() returns trigger language plpgsql as $$
begin
  insert into cache_versions (scope, version)
    select 'attribution:' || s.store_id, 1 from (select distinct store_id from changed_rows) s order by 1
  on conflict (scope) do update set version = cache_versions.version + 1;
  return null;
end $$;`);
    this.replaceTriggers('bump_attribution_cache_versions');
  }

  override down(): void | Promise<void> {
    this.replaceTriggers('bump_store_cache_versions');
    this.addSql(`drop function if exists "bump_attribution_cache_versions"();`);
  }

  private replaceTriggers(fn: string): void {
    for (const table of ATTRIBUTION_TABLES) {
      for (const [event, transition] of EVENTS) {
        const trigger = `${table}_cache_version_${event}`;
        this.addSql(`drop trigger if exists "${trigger}" on "${table}";`);
        this.addSql(`create trigger "${trigger}" after ${event} on "${table}" referencing ${transition} table as changed_rows for each statement execute function ${fn}();`);
        this.addSql(`alter table "${table}" enable always trigger "${trigger}";`);
      }
    }
  }
}
