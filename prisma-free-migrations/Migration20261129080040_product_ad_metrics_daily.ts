import { Migration } from '@mikro-orm/migrations';

/**
 * Per-product shopping performance of ad accounts (issue 20, shopping optimizer): Google Ads'
 * shopping_performance_view by day and product item id, in the account's currency. The Google Ads sync
 * writes it slice by slice (a re-read day replaces what was stored for that account and day); the
 * optimizer sums a window of it per product.
 */
export class Migration20261129080040_product_ad_metrics_daily extends Migration {

  override name = 'Migration20261129080040_product_ad_metrics_daily';

  override up(): void | Promise<void> {
    this.addSql(`create table "product_ad_metrics_daily" ("store_id" int not null, "platform" varchar(32) not null, "account_id" varchar(64) not null, "product_item_id" varchar(150) not null, "day" date not null, "currency" char(3) not null, "clicks" bigint not null default 0, "impressions" bigint not null default 0, "cost" numeric(20,6) not null default 0, "conversions" double precision not null default 0, "conversion_value" numeric(20,6) not null default 0, primary key ("store_id", "platform", "account_id", "product_item_id", "day"));`);
    this.addSql(`create index "product_ad_metrics_daily_store_id_day_index" on "product_ad_metrics_daily" ("store_id", "day");`);
    this.addSql(`alter table "product_ad_metrics_daily" add constraint "product_ad_metrics_daily_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "product_ad_metrics_daily" cascade;`);
  }

}
