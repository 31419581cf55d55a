import { Migration } from '@mikro-orm/migrations';

/**
 * Attribution (README, "Attribution"): the store's lookback window (a tracking setting), per order
 * its journey as last credited (one row per order and window: what its credits were computed from,
 * so a change subtracts exactly what was added), the daily credit rollups per model, window,
 * channel and campaign that the touchpoints screen reads, the orders waiting to be credited again
 * (written by ingest), and each store's cursors and recompute progress. `store_id` leads every key.
 * Like the tracking tables, these are read and written with SQL only (no entities).
 */
export class Migration20261128060000_attribution extends Migration {

  override name = 'Migration20261128060000_attribution';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tracking_settings" add "attribution_window_days" int not null default 30 check ("attribution_window_days" in (1, 7, 14, 28, 30, 60, 90));`);

    this.addSql(`create table "attribution_orders" (
      "store_id" int not null,
      "window_days" int not null,
      "order_id" bigint not null,
      "placed_at" timestamptz not null,
      "placed_day" date not null,
      "currency" char(3) not null,
      "revenue_minor" bigint not null,
      "refunded_minor" bigint not null default 0,
      "channel" varchar(32) not null,
      "campaign" text not null,
      "refunds" jsonb not null default '[]',
      "touchpoints" jsonb not null default '[]',
      "touchpoint_count" int not null,
      "first_touch_at" timestamptz null,
      "updated_at" timestamptz not null default now(),
      primary key ("store_id", "window_days", "order_id"));`);
    this.addSql(`create index "attribution_orders_day_index" on "attribution_orders" ("store_id", "window_days", "placed_day");`);

    this.addSql(`create table "attribution_daily" (
      "store_id" int not null,
      "window_days" int not null,
      "model" varchar(16) not null,
      "day" date not null,
      "channel" varchar(32) not null,
      "campaign" text not null,
      "currency" char(3) not null,
      "orders" numeric(20,6) not null default 0,
      "revenue_minor" bigint not null default 0,
      "own_source_orders" numeric(20,6) not null default 0,
      "own_source_revenue_minor" bigint not null default 0,
      primary key ("store_id", "window_days", "model", "day", "channel", "campaign", "currency"));`);

    this.addSql(`create table "attribution_dirty_orders" (
      "store_id" int not null,
      "order_id" bigint not null,
      primary key ("store_id", "order_id"));`);

    this.addSql(`create table "attribution_state" (
      "store_id" int not null,
      "window_days" int not null default 30,
      "touchpoint_cursor" bigint not null default 0,
      "purchase_cursor" timestamptz not null default '-infinity',
      "recompute_window_days" int null,
      "recompute_cursor" bigint not null default 0,
      "recompute_done" int not null default 0,
      "recompute_total" int not null default 0,
      "updated_at" timestamptz not null default now(),
      primary key ("store_id"));`);
  }

  override down(): void | Promise<void> {
    for (const table of ['attribution_state', 'attribution_dirty_orders', 'attribution_daily', 'attribution_orders']) this.addSql(`drop table if exists "${table}" cascade;`);
    this.addSql(`alter table "tracking_settings" drop column if exists "attribution_window_days";`);
  }

}
