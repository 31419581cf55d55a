import { Migration } from '@mikro-orm/migrations';

export class Migration20261126020000_report_daily_schedule extends Migration {

  override name = 'Migration20261126020000_report_daily_schedule';

  override up(): void | Promise<void> {
    // Saved reports can be e-mailed every day (08:00 store time) besides weekly and monthly.
    this.addSql(`alter table "saved_reports" drop constraint if exists "saved_reports_schedule_check";`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_schedule_check" check ("schedule" in ('none', 'daily', 'weekly', 'monthly'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`update "saved_reports" set "schedule" = 'none' where "schedule" = 'daily';`);
    this.addSql(`alter table "saved_reports" drop constraint if exists "saved_reports_schedule_check";`);
    this.addSql(`alter table "saved_reports" add constraint "saved_reports_schedule_check" check ("schedule" in ('none', 'weekly', 'monthly'));`);
  }

}
