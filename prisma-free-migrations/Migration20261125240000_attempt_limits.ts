import { Migration } from '@mikro-orm/migrations';

export class Migration20261125240000_attempt_limits extends Migration {

  override name = 'Migration20261125240000_attempt_limits';

  override up(): void | Promise<void> {
    // The sign-in, registration, password-reset and contact limits (auth/attempt-limiter.ts), shared
    // by every app process on this database instead of kept in each process's memory: per limiter
    // and key, the times of the key's latest attempts. Not tenant data (no store_id).
    this.addSql(`create table "attempt_limits" ("scope" varchar(64) not null, "key" text not null, "hits" timestamptz[] not null, "expires_at" timestamptz not null, primary key ("scope", "key"));`);
    this.addSql(`create index "attempt_limits_expires_at_index" on "attempt_limits" ("expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "attempt_limits" cascade;`);
  }

}
