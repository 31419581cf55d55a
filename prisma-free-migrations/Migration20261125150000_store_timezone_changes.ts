import { Migration } from '@mikro-orm/migrations';

export class Migration20261125150000_store_timezone_changes extends Migration {

  override name = 'Migration20261125150000_store_timezone_changes';

  override up(): void | Promise<void> {
    // A store's time zone changes with a rebuild of its figures (stores/store-timezone.service.ts).
    // store_id leads the primary key and every index; the partial unique index lets at most one
    // change of a store be queued or running.
    this.addSql(`create table "store_timezone_changes" ("store_id" int not null, "id" serial not null, "from_timezone" varchar(64) not null, "to_timezone" varchar(64) not null, "status" text not null default 'queued', "rows_done" int not null default 0, "rows_total" int null, "error" text null, "created_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null, "updated_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`create unique index "store_timezone_changes_pending_unique" on "store_timezone_changes" ("store_id") where status in ('queued', 'running');`);
    this.addSql(`alter table "store_timezone_changes" add constraint "store_timezone_changes_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "store_timezone_changes" add constraint "store_timezone_changes_status_check" check ("status" in ('queued', 'running', 'succeeded', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "store_timezone_changes" cascade;`);
  }

}
