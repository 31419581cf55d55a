import { Migration } from '@mikro-orm/migrations';

/** A user's export of all their data (modules/privacy/account-export.ts): a zip under DATA_DIR, built by a job. */
export class Migration20261129080052_account_exports extends Migration {

  override name = 'Migration20261129080052_account_exports';

  override up(): void | Promise<void> {
    this.addSql(`create table "account_exports" ("id" serial primary key, "user_id" int not null, "status" text not null default 'queued', "file_name" varchar(128) null, "size_bytes" bigint not null default 0, "error" text null, "created_at" timestamptz not null, "finished_at" timestamptz null, "expires_at" timestamptz null);`);
    this.addSql(`create index "account_exports_user_id_id_index" on "account_exports" ("user_id", "id");`);
    this.addSql(`alter table "account_exports" add constraint "account_exports_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "account_exports" add constraint "account_exports_status_check" check ("status" in ('queued', 'running', 'ready', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "account_exports" cascade;`);
  }

}
