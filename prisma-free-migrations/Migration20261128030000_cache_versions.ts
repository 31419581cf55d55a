import { Migration } from '@mikro-orm/migrations';

/**
 * Version counters for the in-process answer cache (src/server/modules/answer-cache): a cached answer
 * is served only while the counters it was computed under are unchanged, so it is never stale, in
 * this process or any other app process on the database (each keeps its own cache and reads the
 * counters).
 *   - 'store:<id>': moves with every statement that writes what a store's cached answers are made of
 *     (its rollups, ad and e-mail metrics, cost settings, expenses, time zone changes, the store row).
 *   - 'fx': moves with every write to fx_rates (every store's converted figures depend on them).
 *   - 'auth': moves with every write that can change who may see what (users, sessions other than a
 *     new one, subscriptions, plans, stores, store guests): a cached sign-in check is then redone.
 * Statement-level triggers with transition tables: one counter update per statement and store, not
 * per row, so a bulk ingest pays next to nothing. ENABLE ALWAYS: ingest batches run with
 * session_replication_role = replica (rollups.ts, lockStoreForIngest, to skip foreign-key checks),
 * which silences ordinary triggers; these must fire anyway. No MikroORM entity: only raw SQL reads it.
 */
const STORE_TABLES = [
  'daily_rollups',
  'channel_daily_rollups',
  'product_daily_rollups',
  'ad_metrics_daily',
  'email_metrics_daily',
  'store_cost_settings',
  'expenses',
  'store_timezone_changes',
];
const AUTH_TABLES = ['users', 'subscriptions', 'plans', 'stores', 'store_guests'];

export class Migration20261128030000_cache_versions extends Migration {

  override name = 'Migration20261128030000_cache_versions';

  override up(): void | Promise<void> {
    this.addSql(`create table "cache_versions" ("scope" text not null, "version" bigint not null default 1, primary key ("scope"));`);
    this.addSql(`insert into "cache_versions" ("scope") values ('auth'), ('fx') on conflict do nothing;`);
    this.addSql(`create or replace function "bump_store_cache_versions"() returns trigger language plpgsql as $$
begin
  insert into cache_versions (scope, version)
    select 'store:' || s.store_id, 1 from (select distinct store_id from changed_rows) s order by 1
  on conflict (scope) do update set version = cache_versions.version + 1;
  return null;
end $$;`);
    this.addSql(`create or replace function "bump_store_row_cache_versions"() returns trigger language plpgsql as $$
begin
  insert into cache_versions (scope, version)
    select 'store:' || s.id, 1 from (select distinct id from changed_rows) s order by 1
  on conflict (scope) do update set version = cache_versions.version + 1;
  return null;
end $$;`);
    this.addSql(`create or replace function "bump_scope_cache_version"() returns trigger language plpgsql as $$
begin
  update cache_versions set version = version + 1 where scope = TG_ARGV[0];
  return null;
end $$;`);
    for (const table of STORE_TABLES) this.addStoreTriggers(table, 'bump_store_cache_versions');
    this.addStoreTriggers('stores', 'bump_store_row_cache_versions');
    this.addSql(`create trigger "fx_rates_cache_version" after insert or update or delete on "fx_rates" for each statement execute function bump_scope_cache_version('fx');`);
    this.addSql(`alter table "fx_rates" enable always trigger "fx_rates_cache_version";`);
    for (const table of AUTH_TABLES) {
      this.addSql(`create trigger "${table}_auth_cache_version" after insert or update or delete on "${table}" for each statement execute function bump_scope_cache_version('auth');`);
      this.addSql(`alter table "${table}" enable always trigger "${table}_auth_cache_version";`);
    }
    // A new session row (a sign-in) changes nobody's rights; a changed or deleted one (sign-out, guest mode, store switch) does.
    this.addSql(`create trigger "sessions_auth_cache_version" after update or delete on "sessions" for each statement execute function bump_scope_cache_version('auth');`);
    this.addSql(`alter table "sessions" enable always trigger "sessions_auth_cache_version";`);
  }

  private addStoreTriggers(table: string, fn: string): void {
    for (const [event, transition] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']]) {
      this.addSql(`create trigger "${table}_cache_version_${event}" after ${event} on "${table}" referencing ${transition} table as changed_rows for each statement execute function ${fn}();`);
      this.addSql(`alter table "${table}" enable always trigger "${table}_cache_version_${event}";`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of [...STORE_TABLES, 'stores']) {
      for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "${table}_cache_version_${event}" on "${table}";`);
    }
    this.addSql(`drop trigger if exists "fx_rates_cache_version" on "fx_rates";`);
    for (const table of [...AUTH_TABLES, 'sessions']) this.addSql(`drop trigger if exists "${table}_auth_cache_version" on "${table}";`);
    this.addSql(`drop function if exists "bump_scope_cache_version"();`);
    this.addSql(`drop function if exists "bump_store_row_cache_versions"();`);
    this.addSql(`drop function if exists "bump_store_cache_versions"();`);
    this.addSql(`drop table if exists "cache_versions";`);
  }

}
