import { Migration } from '@mikro-orm/migrations';

/**
 * The shopping feed optimizer (modules/shopping-optimizer): per store the secret of its public feed
 * address and the suggestion defaults; per product and attribute the value the feed sends instead of
 * the catalogue's (never written back to the shop).
 */
export class Migration20261129070000_shopping_feed extends Migration {

  override name = 'Migration20261129070000_shopping_feed';

  override up(): void | Promise<void> {
    this.addSql(`create table "shopping_feed_settings" ("store_id" int not null, "secret" varchar(64) not null, "link_template" text not null default '', "default_brand" varchar(70) not null default '', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("store_id"));`);
    this.addSql(`alter table "shopping_feed_settings" add constraint "shopping_feed_settings_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);
    this.addSql(`create table "shopping_feed_overrides" ("store_id" int not null, "product_id" bigint not null, "attribute" text not null, "value" text not null, "source" text not null, "updated_at" timestamptz not null, primary key ("store_id", "product_id", "attribute"));`);
    this.addSql(`alter table "shopping_feed_overrides" add constraint "shopping_feed_overrides_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "shopping_feed_overrides" add constraint "shopping_feed_overrides_attribute_check" check ("attribute" in ('title', 'description', 'brand', 'gtin', 'mpn', 'link', 'image_link', 'condition'));`);
    this.addSql(`alter table "shopping_feed_overrides" add constraint "shopping_feed_overrides_source_check" check ("source" in ('rules', 'llm', 'user'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "shopping_feed_overrides" cascade;`);
    this.addSql(`drop table if exists "shopping_feed_settings" cascade;`);
  }

}
