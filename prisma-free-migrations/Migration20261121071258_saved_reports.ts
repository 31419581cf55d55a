import { Migration } from '@mikro-orm/migrations';

export class Migration20261121071258_saved_reports extends Migration {

  override name = 'Migration20261121071258_saved_reports';

  override up(): void | Promise<void> {
    this.addSql(`create table "saved_reports" ("store_id" int not null, "id" bigserial not null, "name" varchar(120) not null, "metrics" text[] not null, "dimension" text not null, "range_preset" text null, "range_from" date null, "range_to" date null, "granularity" text not null default 'total', "compare" text not null default 'none', "schedule" text not null default 'none', "recipients" text[] not null default '{}', "scheduled_since" timestamptz null, "last_sent_at" timestamptz null, "created_by_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`create index "saved_reports_store_id_schedule_index" on "saved_reports" ("store_id", "schedule");`);

    this.addSql(`alter table "saved_reports" add constraint "saved_reports_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_dimension_check" check ("dimension" in ('day', 'week', 'month', 'channel', 'platform', 'product', 'campaign', 'customer_type'));`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_range_preset_check" check ("range_preset" in ('today', 'yesterday', 'last_7_days', 'last_30_days', 'last_90_days', 'this_month', 'last_month', 'this_year', 'last_365_days'));`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_granularity_check" check ("granularity" in ('total', 'day', 'week', 'month'));`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_compare_check" check ("compare" in ('previous_period', 'previous_year', 'none'));`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_schedule_check" check ("schedule" in ('none', 'weekly', 'monthly'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "saved_reports" cascade;`);
  }

}
