import { Migration } from '@mikro-orm/migrations';

/**
 * Landing page reviews (modules/page-reviewer): one row per review with its progress, scores,
 * findings, metrics and two JPEG screenshots; store_id first in every index.
 */
export class Migration20261129040000_page_reviews extends Migration {

  override name = 'Migration20261129040000_page_reviews';

  override up(): void | Promise<void> {
    this.addSql(`create table "page_reviews" ("store_id" int not null, "id" serial primary key, "url" text not null, "final_url" text null, "product_id" bigint null, "product_title" text null, "status" text not null default 'queued', "progress" smallint not null default 0, "step" text not null default 'queued', "error" text null, "scores" jsonb null, "findings" jsonb null, "metrics" jsonb null, "ai_suggestions" jsonb null, "above_fold_jpeg" bytea null, "full_page_jpeg" bytea null, "requested_by_id" int null, "created_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null);`);
    this.addSql(`create index "page_reviews_store_id_created_at_index" on "page_reviews" ("store_id", "created_at");`);
    this.addSql(`create index "page_reviews_store_id_url_created_at_index" on "page_reviews" ("store_id", "url", "created_at");`);
    this.addSql(`alter table "page_reviews" add constraint "page_reviews_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "page_reviews" add constraint "page_reviews_requested_by_id_foreign" foreign key ("requested_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "page_reviews" add constraint "page_reviews_status_check" check ("status" in ('queued', 'running', 'done', 'failed'));`);
    this.addSql(`alter table "page_reviews" add constraint "page_reviews_step_check" check ("step" in ('queued', 'fetching', 'parsing', 'loading', 'links', 'suggestions', 'scoring', 'done', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "page_reviews" cascade;`);
  }

}
