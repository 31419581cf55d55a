import { Migration } from '@mikro-orm/migrations';

/**
 * Segment pushes to Klaviyo / Mailchimp (modules/audiences): one row per push with its progress; at
 * most one queued or running push per store, platform and segment (partial unique index).
 */
export class Migration20261128140000_audience_pushes extends Migration {

  override name = 'Migration20261128140000_audience_pushes';

  override up(): void | Promise<void> {
    this.addSql(`create table "audience_pushes" ("store_id" int not null, "id" serial primary key, "platform" text not null, "segment_key" varchar(64) not null, "list_name" varchar(200) not null, "platform_list_id" varchar(64) null, "platform_segment_id" varchar(64) null, "status" text not null default 'queued', "customer_ids" jsonb not null, "total" int not null default 0, "done" int not null default 0, "cursor" int not null default 0, "platform_job_id" varchar(64) null, "attempts" smallint not null default 0, "error" text null, "requested_by_id" int null, "created_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null);`);
    this.addSql(`create index "audience_pushes_store_id_platform_segment_key_created_at_index" on "audience_pushes" ("store_id", "platform", "segment_key", "created_at");`);
    this.addSql(`create unique index "audience_pushes_active_unique" on "audience_pushes" ("store_id", "platform", "segment_key") where "status" in ('queued', 'running');`);
    this.addSql(`alter table "audience_pushes" add constraint "audience_pushes_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "audience_pushes" add constraint "audience_pushes_requested_by_id_foreign" foreign key ("requested_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "audience_pushes" add constraint "audience_pushes_platform_check" check ("platform" in ('klaviyo', 'mailchimp'));`);
    this.addSql(`alter table "audience_pushes" add constraint "audience_pushes_status_check" check ("status" in ('queued', 'running', 'done', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audience_pushes" cascade;`);
  }

}
