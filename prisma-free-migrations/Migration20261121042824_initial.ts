import { Migration } from '@mikro-orm/migrations';

export class Migration20261121042824_initial extends Migration {

  override name = 'Migration20261121042824_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "audit_log_entries" ("id" bigserial primary key, "actor_user_id" int null, "target_user_id" int null, "action" text not null, "details" jsonb null, "ip_address" varchar(64) null, "created_at" timestamptz not null);`);
    this.addSql(`create index "audit_log_entries_actor_user_id_created_at_index" on "audit_log_entries" ("actor_user_id", "created_at");`);
    this.addSql(`create index "audit_log_entries_target_user_id_created_at_index" on "audit_log_entries" ("target_user_id", "created_at");`);

    this.addSql(`create table "plans" ("id" serial primary key, "name" varchar(64) not null, "monthly_price_minor" int not null, "currency" varchar(3) not null, "max_dashboards" int not null, "includes_ai_tools" boolean not null, "active" boolean not null default true, "created_at" timestamptz not null);`);
    this.addSql(`alter table "plans" add constraint "plans_name_unique" unique ("name");`);

    this.addSql(`create table "sessions" ("sid" varchar(128) not null, "data" jsonb not null, "expires_at" timestamptz not null, primary key ("sid"));`);
    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);

    this.addSql(`create table "users" ("id" serial primary key, "username" varchar(32) not null, "email" varchar(254) not null, "password_hash" varchar(255) not null, "is_admin" boolean not null default false, "is_guest" boolean not null default false, "marketing_emails" boolean not null default false, "active_store_id" int null, "trial_started_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create unique index "users_username_lower_unique" on "users" (lower("username"));`);
    this.addSql(`create unique index "users_email_lower_unique" on "users" (lower("email"));`);

    this.addSql(`create table "subscriptions" ("id" serial primary key, "user_id" int not null, "plan_id" int not null, "status" text not null, "provider" varchar(32) not null, "provider_reference" varchar(255) null, "current_period_start" timestamptz not null, "current_period_end" timestamptz not null, "canceled_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "subscriptions_user_id_created_at_index" on "subscriptions" ("user_id", "created_at");`);

    this.addSql(`create table "stores" ("id" serial primary key, "owner_id" int not null, "name" varchar(100) not null, "currency" varchar(3) not null default 'GBP', "timezone" varchar(64) not null default 'Europe/London', "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "stores_owner_id_id_index" on "stores" ("owner_id", "id");`);

    this.addSql(`create table "platform_connections" ("id" serial primary key, "store_id" int not null, "platform" text not null, "connected" boolean not null default false, "last_checked_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "platform_connections" add constraint "platform_connections_store_id_platform_unique" unique ("store_id", "platform");`);

    this.addSql(`alter table "audit_log_entries" add constraint "audit_log_entries_action_check" check ("action" in ('guest_mode.enter', 'guest_mode.exit', 'subscription.grant'));`);

    this.addSql(`alter table "users" add constraint "users_active_store_id_foreign" foreign key ("active_store_id") references "stores" ("id") on delete set null;`);

    this.addSql(`alter table "subscriptions" add constraint "subscriptions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_plan_id_foreign" foreign key ("plan_id") references "plans" ("id");`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_status_check" check ("status" in ('trial', 'active', 'past_due', 'canceled'));`);

    this.addSql(`alter table "stores" add constraint "stores_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "platform_connections" add constraint "platform_connections_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "platform_connections" add constraint "platform_connections_platform_check" check ("platform" in ('woocommerce', 'shopify', 'googleads', 'metaads', 'bingads', 'tiktokads', 'omnisend', 'klaviyo', 'mailchimp', 'email'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "subscriptions" drop constraint "subscriptions_plan_id_foreign";`);
    this.addSql(`alter table "subscriptions" drop constraint "subscriptions_user_id_foreign";`);
    this.addSql(`alter table "stores" drop constraint "stores_owner_id_foreign";`);
    this.addSql(`alter table "users" drop constraint "users_active_store_id_foreign";`);
    this.addSql(`alter table "platform_connections" drop constraint "platform_connections_store_id_foreign";`);

    this.addSql(`drop table if exists "audit_log_entries" cascade;`);
    this.addSql(`drop table if exists "plans" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "subscriptions" cascade;`);
    this.addSql(`drop table if exists "stores" cascade;`);
    this.addSql(`drop table if exists "platform_connections" cascade;`);
  }

}
