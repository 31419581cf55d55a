import { Migration } from '@mikro-orm/migrations';

/** The image files of deleted stores still to remove from the storage (modules/product-images/image-storage.ts). */
export class Migration20261129080070_product_image_removals extends Migration {

  override name = 'Migration20261129080070_product_image_removals';

  override up(): void | Promise<void> {
    this.addSql(`create table "product_image_removals" ("deleted_store_id" int not null, "requested_at" timestamptz not null, "attempts" int not null default 0, "last_error" text null, primary key ("deleted_store_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "product_image_removals" cascade;`);
  }

}
