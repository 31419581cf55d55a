import { Migration } from '@mikro-orm/migrations';

export class Migration20261125230100_app_settings extends Migration {

  override name = 'Migration20261125230100_app_settings';

  override up(): void | Promise<void> {
    // Values the installation keeps about itself: the first origin it was reached at (src/server/public-origin.ts).
    this.addSql(`create table "app_settings" ("key" varchar(64) not null, "value" text not null, "created_at" timestamptz not null, primary key ("key"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "app_settings" cascade;`);
  }

}
