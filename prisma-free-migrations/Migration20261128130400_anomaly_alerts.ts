import { Migration } from '@mikro-orm/migrations';

/**
 * The store's e-mail alert setting for high-severity anomalies (off by default, with the language the
 * alerts are written in) and which anomalies were already e-mailed, so a job run twice sends once
 * (README, "Anomaly insights"). Read and written with SQL only (no entities). `store_id` leads every key.
 */
export class Migration20261128130400_anomaly_alerts extends Migration {

  override name = 'Migration20261128130400_anomaly_alerts';

  override up(): void | Promise<void> {
    this.addSql(`create table "anomaly_settings" (
      "store_id" int not null references "stores" ("id") on delete cascade,
      "email_alerts" boolean not null default false,
      "language" varchar(2) not null default 'en' check ("language" in ('en', 'es', 'fr', 'de')),
      "updated_at" timestamptz not null default now(),
      primary key ("store_id"));`);

    this.addSql(`create table "anomaly_alerts_sent" (
      "store_id" int not null references "stores" ("id") on delete cascade,
      "anomaly_id" bigint not null references "anomalies" ("id") on delete cascade,
      "sent_at" timestamptz not null default now(),
      primary key ("store_id", "anomaly_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "anomaly_alerts_sent";`);
    this.addSql(`drop table if exists "anomaly_settings";`);
  }

}
