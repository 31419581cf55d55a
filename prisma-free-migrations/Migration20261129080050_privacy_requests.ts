import { Migration } from '@mikro-orm/migrations';

/**
 * Privacy requests about a store's customers (modules/privacy): Shopify's customers/data_request
 * answered with an export (a zip under DATA_DIR) that the store's owner downloads within 30 days.
 */
export class Migration20261129080050_privacy_requests extends Migration {

  override name = 'Migration20261129080050_privacy_requests';

  override up(): void | Promise<void> {
    this.addSql(`create table "privacy_requests" ("store_id" int not null, "id" serial primary key, "kind" text not null, "shop" varchar(255) not null, "customer_external_id" varchar(255) not null, "platform_request_id" varchar(64) null, "orders_count" int not null default 0, "file_name" varchar(128) not null, "size_bytes" int not null default 0, "created_at" timestamptz not null, "expires_at" timestamptz not null);`);
    this.addSql(`create index "privacy_requests_store_id_created_at_index" on "privacy_requests" ("store_id", "created_at");`);
    this.addSql(`alter table "privacy_requests" add constraint "privacy_requests_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "privacy_requests" add constraint "privacy_requests_kind_check" check ("kind" in ('shopify_customer_data_request'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "privacy_requests" cascade;`);
  }

}
