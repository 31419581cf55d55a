import { Migration } from '@mikro-orm/migrations';

/**
 * The touchpoints report over long ranges (issue 17, "median under 100 ms"): `attribution_monthly`
 * holds the sums of `attribution_daily` per calendar month (same key with `month`, the month's first
 * day, in place of `day`), kept by statement-level triggers on attribution_daily (one upsert per
 * statement, the same numbers added or subtracted, so the month always equals the sum of its days,
 * exactly: bigint and numeric sums). The report reads whole months of the store's currency from it
 * and only the edge days from attribution_daily (attribution.service.ts, creditGroups).
 *
 * Answer cache (answer-cache.ts): writes to attribution_daily, attribution_state and
 * tracking_settings move the store's data version ('store:<id>'), like the other tables the store's
 * answers are made of (Migration20261128030000_cache_versions), so cached attribution answers are
 * never stale.
 *
 * ENABLE ALWAYS, as for the cache triggers: they must fire whatever session_replication_role is.
 * No MikroORM entity: read and written with SQL only, like the other attribution tables.
 */
const CACHE_TABLES = ['attribution_daily', 'attribution_state', 'tracking_settings'];
const KEY = `store_id, window_days, model, month, channel, campaign, currency`;
const SUMS = `orders, revenue_minor, own_source_orders, own_source_revenue_minor`;

/** Adds `rows` (a select of KEY and SUMS, which may repeat keys) to the monthly rows, in key order. */
const upsertMonthly = (rows: string) => `insert into attribution_monthly as m (${KEY}, ${SUMS})
    select ${KEY}, sum(orders), sum(revenue_minor), sum(own_source_orders), sum(own_source_revenue_minor)
      from (${rows}) x group by ${KEY} order by ${KEY}
  on conflict (${KEY}) do update set
    orders = m.orders + excluded.orders, revenue_minor = m.revenue_minor + excluded.revenue_minor,
    own_source_orders = m.own_source_orders + excluded.own_source_orders,
    own_source_revenue_minor = m.own_source_revenue_minor + excluded.own_source_revenue_minor`;
const monthOf = (table: string, sign: '' | '-') =>
  `select store_id, window_days, model, date_trunc('month', day)::date as month, channel, campaign, currency,
          ${sign}orders as orders, ${sign}revenue_minor as revenue_minor, ${sign}own_source_orders as own_source_orders, ${sign}own_source_revenue_minor as own_source_revenue_minor
     from ${table}`;

export class Migration20261128130000_attribution_monthly extends Migration {

  override name = 'Migration20261128130000_attribution_monthly';

  override up(): void | Promise<void> {
    this.addSql(`create table "attribution_monthly" (
      "store_id" int not null,
      "window_days" int not null,
      "model" varchar(16) not null,
      "month" date not null,
      "channel" varchar(32) not null,
      "campaign" text not null,
      "currency" char(3) not null,
      "orders" numeric(20,6) not null default 0,
      "revenue_minor" bigint not null default 0,
      "own_source_orders" numeric(20,6) not null default 0,
      "own_source_revenue_minor" bigint not null default 0,
      primary key ("store_id", "window_days", "model", "month", "channel", "campaign", "currency"));`);
    this.addSql(`create or replace function "attribution_monthly_insert"() returns trigger language plpgsql as $$
begin
  ${upsertMonthly(monthOf('new_rows', ''))};
  return null;
end $$;`);
    this.addSql(`create or replace function "attribution_monthly_update"() returns trigger language plpgsql as $$
begin
  ${upsertMonthly(`${monthOf('new_rows', '')} union all ${monthOf('old_rows', '-')}`)};
  return null;
end $$;`);
    // A delete subtracts; months left without any day (a window dropped) are removed.
    this.addSql(`create or replace function "attribution_monthly_delete"() returns trigger language plpgsql as $$
begin
  ${upsertMonthly(monthOf('old_rows', '-'))};
  delete from attribution_monthly m
   using (select distinct ${KEY} from (${monthOf('old_rows', '')}) o) k
   where (m.store_id, m.window_days, m.model, m.month, m.channel, m.campaign, m.currency) = (k.store_id, k.window_days, k.model, k.month, k.channel, k.campaign, k.currency)
     and not exists (select 1 from attribution_daily d
                      where (d.store_id, d.window_days, d.model, d.channel, d.campaign, d.currency) = (m.store_id, m.window_days, m.model, m.channel, m.campaign, m.currency)
                        and d.day >= m.month and d.day < (m.month + interval '1 month')::date);
  return null;
end $$;`);
    this.addSql(`create trigger "attribution_daily_monthly_insert" after insert on "attribution_daily" referencing new table as new_rows for each statement execute function attribution_monthly_insert();`);
    this.addSql(`create trigger "attribution_daily_monthly_update" after update on "attribution_daily" referencing old table as old_rows new table as new_rows for each statement execute function attribution_monthly_update();`);
    this.addSql(`create trigger "attribution_daily_monthly_delete" after delete on "attribution_daily" referencing old table as old_rows for each statement execute function attribution_monthly_delete();`);
    for (const event of ['insert', 'update', 'delete']) this.addSql(`alter table "attribution_daily" enable always trigger "attribution_daily_monthly_${event}";`);
    // The months of the credits already there.
    this.addSql(`insert into attribution_monthly (${KEY}, ${SUMS})
      select ${KEY}, sum(orders), sum(revenue_minor), sum(own_source_orders), sum(own_source_revenue_minor) from (${monthOf('attribution_daily', '')}) x group by ${KEY};`);

    for (const table of CACHE_TABLES) {
      for (const [event, transition] of [['insert', 'new'], ['update', 'new'], ['delete', 'old']]) {
        this.addSql(`create trigger "${table}_cache_version_${event}" after ${event} on "${table}" referencing ${transition} table as changed_rows for each statement execute function bump_store_cache_versions();`);
        this.addSql(`alter table "${table}" enable always trigger "${table}_cache_version_${event}";`);
      }
    }
  }

  override down(): void | Promise<void> {
    for (const table of CACHE_TABLES) {
      for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "${table}_cache_version_${event}" on "${table}";`);
    }
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "attribution_daily_monthly_${event}" on "attribution_daily";`);
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop function if exists "attribution_monthly_${event}"();`);
    this.addSql(`drop table if exists "attribution_monthly";`);
  }

}
