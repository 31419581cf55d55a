import { Migration } from '@mikro-orm/migrations';

/**
 * The shopping optimizer's "Check product pages" (modules/shopping-optimizer/page-check.ts): per store
 * the last run's progress and, per product, the price and availability its page showed.
 */
export class Migration20261129070010_shopping_page_checks extends Migration {

  override name = 'Migration20261129070010_shopping_page_checks';

  override up(): void | Promise<void> {
    this.addSql(`create table "shopping_page_checks" ("store_id" int not null, "status" text not null default 'queued', "checked" int not null default 0, "total" int not null default 0, "results" jsonb not null default '[]', "error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null, primary key ("store_id"));`);
    this.addSql(`alter table "shopping_page_checks" add constraint "shopping_page_checks_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "shopping_page_checks" add constraint "shopping_page_checks_status_check" check ("status" in ('queued', 'running', 'done', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "shopping_page_checks" cascade;`);
  }

}
