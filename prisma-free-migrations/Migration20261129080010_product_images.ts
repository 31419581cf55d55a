import { Migration } from '@mikro-orm/migrations';

/**
 * The product image generator (modules/product-images): generated images' metadata (files under DATA_DIR),
 * batches with their progress, and each store's brand colour.
 */
export class Migration20261129080010_product_images extends Migration {

  override name = 'Migration20261129080010_product_images';

  override up(): void | Promise<void> {
    this.addSql(`create table "product_image_settings" ("store_id" int not null, "brand_color" varchar(7) not null, primary key ("store_id"));`);

    this.addSql(`create table "product_images" ("store_id" int not null, "id" serial not null, "batch_id" int null, "product_id" bigint null, "title" text not null, "format" text not null, "width" int not null, "height" int not null, "webp_bytes" int not null, "jpeg_bytes" int not null, "checks" jsonb null, "created_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`create index "product_images_store_id_created_at_index" on "product_images" ("store_id", "created_at");`);
    this.addSql(`create index "product_images_store_id_batch_id_index" on "product_images" ("store_id", "batch_id");`);

    this.addSql(`create table "product_image_batches" ("store_id" int not null, "id" serial not null, "status" text not null default 'queued', "product_ids" jsonb not null, "options" jsonb not null, "total" int not null, "done" int not null default 0, "failures" jsonb not null, "requested_by_id" int null, "created_at" timestamptz not null, "finished_at" timestamptz null, primary key ("store_id", "id"));`);
    this.addSql(`create index "product_image_batches_store_id_created_at_index" on "product_image_batches" ("store_id", "created_at");`);

    this.addSql(`alter table "product_image_settings" add constraint "product_image_settings_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "product_images" add constraint "product_images_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "product_images" add constraint "product_images_format_check" check ("format" in ('main', 'square', 'portrait', 'story', 'lifestyle'));`);

    this.addSql(`alter table "product_image_batches" add constraint "product_image_batches_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "product_image_batches" add constraint "product_image_batches_requested_by_id_foreign" foreign key ("requested_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "product_image_batches" add constraint "product_image_batches_status_check" check ("status" in ('queued', 'running', 'done', 'failed', 'cancelled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "product_image_settings" cascade;`);
    this.addSql(`drop table if exists "product_images" cascade;`);
    this.addSql(`drop table if exists "product_image_batches" cascade;`);
  }

}
