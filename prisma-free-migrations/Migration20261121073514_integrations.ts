import { Migration } from '@mikro-orm/migrations';

export class Migration20261121073514_integrations extends Migration {

  override name = 'Migration20261121073514_integrations';

  override up(): void | Promise<void> {
    this.addSql(`create table "sync_runs" ("id" serial primary key, "store_id" int not null, "connection_id" int not null, "kind" text not null, "status" text not null default 'queued', "window_since" timestamptz not null, "window_until" timestamptz not null, "cursor" text null, "rows_done" int not null default 0, "estimated_total" int null, "cancel_requested" boolean not null default false, "error" text null, "created_at" timestamptz not null, "started_at" timestamptz null, "heartbeat_at" timestamptz null, "finished_at" timestamptz null);`);
    this.addSql(`create index "sync_runs_store_id_connection_id_created_at_index" on "sync_runs" ("store_id", "connection_id", "created_at");`);
    this.addSql(`create index "sync_runs_status_index" on "sync_runs" ("status");`);

    this.addSql(`create table "reconciliation_results" ("id" serial primary key, "store_id" int not null, "connection_id" int not null, "checked_at" timestamptz not null, "from_day" date not null, "to_day" date not null, "matches" boolean not null, "currency" char(3) not null, "our_orders" int not null, "source_orders" int null, "our_net_sales_minor" bigint not null, "source_net_sales_minor" bigint null, "our_spend_minor" bigint null, "source_spend_minor" bigint null, "days" jsonb not null, "explanations" jsonb not null);`);
    this.addSql(`alter table "reconciliation_results" add constraint "reconciliation_results_store_id_connection_id_unique" unique ("store_id", "connection_id");`);

    this.addSql(`create table "oauth_states" ("state" varchar(64) not null, "store_id" int not null, "user_id" int not null, "platform" text not null, "shop" varchar(255) null, "redirect_uri" text not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("state"));`);
    this.addSql(`create index "oauth_states_store_id_expires_at_index" on "oauth_states" ("store_id", "expires_at");`);

    this.addSql(`create table "webhook_deliveries" ("id" serial primary key, "store_id" int not null, "connection_id" int not null, "platform" text not null, "delivery_id" varchar(255) not null, "topic" varchar(100) not null, "payload" text not null, "received_at" timestamptz not null, "processed_at" timestamptz null, "error" text null);`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_store_id_platform_delivery_id_unique" unique ("store_id", "platform", "delivery_id");`);

    this.addSql(`alter table "platform_connections" add "status" text not null default 'not_connected', add "sealed_credentials" text null, add "account_id" varchar(255) null, add "account_name" varchar(255) null, add "account_currency" char(3) null, add "connected_at" timestamptz null, add "synced_until" timestamptz null, add "last_sync_at" timestamptz null, add "rows_synced" bigint not null default '0', add "last_error" text null, add "disconnect_reason" text null, add "backfill_months" smallint not null default 12;`);
    this.addSql(`create index "platform_connections_platform_account_id_index" on "platform_connections" ("platform", "account_id");`);
    this.addSql(`alter table "platform_connections" add constraint "platform_connections_status_check" check ("status" in ('not_connected', 'connected', 'syncing', 'disconnected', 'error'));`);

    this.addSql(`alter table "sync_runs" add constraint "sync_runs_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "sync_runs" add constraint "sync_runs_connection_id_foreign" foreign key ("connection_id") references "platform_connections" ("id") on delete cascade;`);
    this.addSql(`alter table "sync_runs" add constraint "sync_runs_kind_check" check ("kind" in ('backfill', 'incremental'));`);
    this.addSql(`alter table "sync_runs" add constraint "sync_runs_status_check" check ("status" in ('queued', 'running', 'succeeded', 'failed', 'cancelled'));`);

    this.addSql(`alter table "reconciliation_results" add constraint "reconciliation_results_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "reconciliation_results" add constraint "reconciliation_results_connection_id_foreign" foreign key ("connection_id") references "platform_connections" ("id") on delete cascade;`);

    this.addSql(`alter table "oauth_states" add constraint "oauth_states_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "oauth_states" add constraint "oauth_states_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "oauth_states" add constraint "oauth_states_platform_check" check ("platform" in ('woocommerce', 'shopify', 'googleads', 'metaads', 'bingads', 'tiktokads', 'omnisend', 'klaviyo', 'mailchimp', 'email'));`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_connection_id_foreign" foreign key ("connection_id") references "platform_connections" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_platform_check" check ("platform" in ('woocommerce', 'shopify', 'googleads', 'metaads', 'bingads', 'tiktokads', 'omnisend', 'klaviyo', 'mailchimp', 'email'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sync_runs" cascade;`);
    this.addSql(`drop table if exists "reconciliation_results" cascade;`);
    this.addSql(`drop table if exists "oauth_states" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);

    this.addSql(`drop index "platform_connections_platform_account_id_index";`);
    this.addSql(`alter table "platform_connections" drop constraint "platform_connections_status_check";`);
    this.addSql(`alter table "platform_connections" drop column "status", drop column "sealed_credentials", drop column "account_id", drop column "account_name", drop column "account_currency", drop column "connected_at", drop column "synced_until", drop column "last_sync_at", drop column "rows_synced", drop column "last_error", drop column "disconnect_reason", drop column "backfill_months";`);
  }

}
