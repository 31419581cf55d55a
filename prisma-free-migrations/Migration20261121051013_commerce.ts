import { Migration } from '@mikro-orm/migrations';

export class Migration20261121051013_commerce extends Migration {

  override name = 'Migration20261121051013_commerce';

  override up(): void | Promise<void> {
    this.addSql(`create table "fx_rates" ("day" date not null, "currency" char(3) not null, "rate" numeric(20,10) not null, "source" varchar(16) not null default 'synthetic', primary key ("day", "currency"));`);
    this.addSql(`create index "fx_rates_currency_day_index" on "fx_rates" ("currency", "day");`);

    this.addSql(`create table "store_cost_settings" ("store_id" int not null, "payment_fee_percent_basis_points" int not null default 290, "payment_fee_fixed_minor" int not null default 30, "shipping_cost_per_order_minor" int not null default 0, "default_cogs_percent" numeric(5,2) null, "updated_at" timestamptz not null, primary key ("store_id"));`);

    this.addSql(`create table "products" ("store_id" int not null, "id" bigserial not null, "platform" varchar(32) not null, "external_id" varchar(255) not null, "title" text not null, "sku" varchar(255) null, "price_minor" bigint not null, "currency" char(3) not null, "unit_cost_minor" bigint null, "image_url" text null, "active" boolean not null default true, "updated_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`alter table "products" add constraint "products_store_id_platform_external_id_unique" unique ("store_id", "platform", "external_id");`);

    this.addSql(`create table "expenses" ("store_id" int not null, "id" bigserial not null, "name" varchar(120) not null, "category" varchar(64) not null, "amount_minor" bigint not null, "currency" char(3) not null, "recurrence" text not null, "starts_on" date not null, "ends_on" date null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`create index "expenses_store_id_starts_on_index" on "expenses" ("store_id", "starts_on");`);

    this.addSql(`create table "email_metrics_daily" ("store_id" int not null, "platform" varchar(32) not null, "campaign_id" varchar(64) not null, "day" date not null, "campaign_name" varchar(255) not null, "currency" char(3) not null, "sends" bigint not null default '0', "opens" bigint not null default '0', "clicks" bigint not null default '0', "attributed_orders" int not null default 0, "attributed_revenue_minor" bigint not null default '0', "spend_minor" bigint not null default '0', primary key ("store_id", "platform", "campaign_id", "day"));`);
    this.addSql(`create index "email_metrics_daily_store_id_platform_day_index" on "email_metrics_daily" ("store_id", "platform", "day");`);

    this.addSql(`create table "daily_rollups" ("store_id" int not null, "day" date not null, "currency" char(3) not null, "orders_count" int not null default 0, "gross_minor" bigint not null default '0', "discounts_minor" bigint not null default '0', "refunds_minor" bigint not null default '0', "shipping_minor" bigint not null default '0', "taxes_minor" bigint not null default '0', "net_sales_minor" bigint not null default '0', "new_customer_orders" int not null default 0, "returning_customer_orders" int not null default 0, "new_customers" int not null default 0, "units" int not null default 0, "cogs_minor" bigint not null default '0', "uncosted_sales_minor" bigint not null default '0', "ltv_net_30_minor" bigint not null default '0', "ltv_net_60_minor" bigint not null default '0', "ltv_net_90_minor" bigint not null default '0', "ltv_net_180_minor" bigint not null default '0', "ltv_net_365_minor" bigint not null default '0', primary key ("store_id", "day", "currency"));`);

    this.addSql(`create table "customers" ("store_id" int not null, "id" bigserial not null, "platform" varchar(32) not null, "external_id" varchar(255) not null, "email_hash" char(64) null, "first_order_at" timestamptz null, "orders_count" int not null default 0, "total_spent_minor" bigint not null default '0', "updated_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`create index "customers_store_id_first_order_at_index" on "customers" ("store_id", "first_order_at");`);
    this.addSql(`alter table "customers" add constraint "customers_store_id_platform_external_id_unique" unique ("store_id", "platform", "external_id");`);

    this.addSql(`create table "orders" ("store_id" int not null, "id" bigserial not null, "platform" varchar(32) not null, "external_id" varchar(255) not null, "order_number" varchar(64) null, "placed_at" timestamptz not null, "placed_day" date not null, "currency" char(3) not null, "gross_minor" bigint not null, "discounts_minor" bigint not null default '0', "shipping_minor" bigint not null default '0', "taxes_minor" bigint not null default '0', "refunds_minor" bigint not null default '0', "net_sales_minor" bigint not null, "customer_id" bigint null, "is_new_customer" boolean not null default false, "landing_site" text null, "referrer" text null, "utm_source" varchar(255) null, "utm_medium" varchar(255) null, "utm_campaign" varchar(255) null, "utm_content" varchar(255) null, "utm_term" varchar(255) null, "gclid" text null, "fbclid" text null, "msclkid" text null, "ttclid" text null, "channel" varchar(32) not null, "status" text not null, "is_test" boolean not null default false, "updated_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`create index "orders_store_id_placed_at_index" on "orders" ("store_id", "placed_at");`);
    this.addSql(`create index "orders_store_id_placed_day_index" on "orders" ("store_id", "placed_day");`);
    this.addSql(`create index "orders_store_id_status_placed_at_index" on "orders" ("store_id", "status", "placed_at");`);
    this.addSql(`create index "orders_store_id_customer_id_index" on "orders" ("store_id", "customer_id");`);
    this.addSql(`alter table "orders" add constraint "orders_store_id_platform_external_id_unique" unique ("store_id", "platform", "external_id");`);

    this.addSql(`create table "refunds" ("store_id" int not null, "id" bigserial not null, "order_id" bigint not null, "platform" varchar(32) not null, "external_id" varchar(255) not null, "refunded_at" timestamptz not null, "refunded_day" date not null, "amount_minor" bigint not null, "currency" char(3) not null, "reason" text null, primary key ("store_id", "id"));`);
    this.addSql(`create index "refunds_store_id_order_id_index" on "refunds" ("store_id", "order_id");`);
    this.addSql(`create index "refunds_store_id_refunded_day_index" on "refunds" ("store_id", "refunded_day");`);
    this.addSql(`alter table "refunds" add constraint "refunds_store_id_platform_external_id_unique" unique ("store_id", "platform", "external_id");`);

    this.addSql(`create table "order_lines" ("store_id" int not null, "id" bigserial not null, "order_id" bigint not null, "product_id" bigint null, "external_id" varchar(255) not null, "title" text not null, "sku" varchar(255) null, "quantity" int not null, "unit_price_minor" bigint not null, "discount_minor" bigint not null default '0', "unit_cost_minor" bigint null, primary key ("store_id", "id"));`);
    this.addSql(`create index "order_lines_store_id_product_id_index" on "order_lines" ("store_id", "product_id");`);
    this.addSql(`alter table "order_lines" add constraint "order_lines_store_id_order_id_external_id_unique" unique ("store_id", "order_id", "external_id");`);

    this.addSql(`create table "channel_daily_rollups" ("store_id" int not null, "day" date not null, "channel" varchar(32) not null, "currency" char(3) not null, "orders_count" int not null default 0, "net_sales_minor" bigint not null default '0', "new_customers" int not null default 0, "spend_minor" bigint not null default '0', "impressions" bigint not null default '0', "clicks" bigint not null default '0', "platform_conversions" numeric(20,6) not null default 0, "platform_conversion_value_minor" bigint not null default '0', primary key ("store_id", "day", "channel", "currency"));`);

    this.addSql(`create table "ad_metrics_daily" ("store_id" int not null, "platform" varchar(32) not null, "account_id" varchar(64) not null, "campaign_id" varchar(64) not null, "day" date not null, "campaign_name" varchar(255) not null, "currency" char(3) not null, "impressions" bigint not null default '0', "clicks" bigint not null default '0', "spend_minor" bigint not null default '0', "conversions" double precision not null default 0, "conversion_value_minor" bigint not null default '0', primary key ("store_id", "platform", "account_id", "campaign_id", "day"));`);
    this.addSql(`create index "ad_metrics_daily_store_id_platform_day_index" on "ad_metrics_daily" ("store_id", "platform", "day");`);

    this.addSql(`alter table "store_cost_settings" add constraint "store_cost_settings_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "products" add constraint "products_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);

    this.addSql(`alter table "expenses" add constraint "expenses_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "expenses" add constraint "expenses_recurrence_check" check ("recurrence" in ('monthly', 'one_off'));`);

    this.addSql(`alter table "email_metrics_daily" add constraint "email_metrics_daily_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);

    this.addSql(`alter table "daily_rollups" add constraint "daily_rollups_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);

    this.addSql(`alter table "customers" add constraint "customers_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);

    this.addSql(`alter table "orders" add constraint "orders_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "orders" add constraint "orders_store_id_customer_id_foreign" foreign key ("store_id", "customer_id") references "customers" ("store_id", "id") on update cascade on delete no action;`);
    this.addSql(`alter table "orders" add constraint "orders_status_check" check ("status" in ('paid', 'pending', 'refunded', 'partially_refunded', 'cancelled'));`);

    this.addSql(`alter table "refunds" add constraint "refunds_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "refunds" add constraint "refunds_store_id_order_id_foreign" foreign key ("store_id", "order_id") references "orders" ("store_id", "id") on update cascade on delete cascade;`);

    this.addSql(`alter table "order_lines" add constraint "order_lines_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "order_lines" add constraint "order_lines_store_id_order_id_foreign" foreign key ("store_id", "order_id") references "orders" ("store_id", "id") on update cascade on delete cascade;`);
    this.addSql(`alter table "order_lines" add constraint "order_lines_store_id_product_id_foreign" foreign key ("store_id", "product_id") references "products" ("store_id", "id") on update cascade on delete no action;`);

    this.addSql(`alter table "channel_daily_rollups" add constraint "channel_daily_rollups_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);

    this.addSql(`alter table "ad_metrics_daily" add constraint "ad_metrics_daily_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "order_lines" drop constraint "order_lines_store_id_product_id_foreign";`);
    this.addSql(`alter table "orders" drop constraint "orders_store_id_customer_id_foreign";`);
    this.addSql(`alter table "refunds" drop constraint "refunds_store_id_order_id_foreign";`);
    this.addSql(`alter table "order_lines" drop constraint "order_lines_store_id_order_id_foreign";`);

    this.addSql(`drop table if exists "fx_rates" cascade;`);
    this.addSql(`drop table if exists "store_cost_settings" cascade;`);
    this.addSql(`drop table if exists "products" cascade;`);
    this.addSql(`drop table if exists "expenses" cascade;`);
    this.addSql(`drop table if exists "email_metrics_daily" cascade;`);
    this.addSql(`drop table if exists "daily_rollups" cascade;`);
    this.addSql(`drop table if exists "customers" cascade;`);
    this.addSql(`drop table if exists "orders" cascade;`);
    this.addSql(`drop table if exists "refunds" cascade;`);
    this.addSql(`drop table if exists "order_lines" cascade;`);
    this.addSql(`drop table if exists "channel_daily_rollups" cascade;`);
    this.addSql(`drop table if exists "ad_metrics_daily" cascade;`);
  }

}
