import { Migration } from '@mikro-orm/migrations';

/**
 * The collector's rate-limit counts shared by every app process (tracking/rate-limit.ts): each
 * process adds its counts of the last second here every 250 ms and reads the totals back. Unlogged:
 * counts of the last few seconds need no crash safety, and skipping the WAL keeps the upserts cheap.
 */
export class Migration20261128093100_tracking_rate_windows extends Migration {

  override name = 'Migration20261128093100_tracking_rate_windows';

  override up(): void | Promise<void> {
    this.addSql(`create unlogged table "tracking_rate_windows" (
      "key" text not null, "scope" text not null, "second" bigint not null, "count" bigint not null,
      primary key ("key", "scope", "second"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tracking_rate_windows";`);
  }

}
