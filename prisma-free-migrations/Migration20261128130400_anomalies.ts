import { Migration } from '@mikro-orm/migrations';

/**
 * Anomaly insights (README, "Anomaly insights"): what the detection job found per store, one row per
 * metric, scope and day (so at most one alert per metric and scope a day, and a resolved one keeps
 * its state when detection runs again), with its evidence series and who acknowledged or resolved it.
 * The store's e-mail alert setting for high-severity anomalies (off by default, with the language the
 * alerts are written in) and which anomalies were already e-mailed (so a job run twice sends once) sit beside it.
 * Read and written with SQL only (no entities), like the tracking tables. `store_id` leads every key.
 */
export class Migration20261128130400_anomalies extends Migration {

  override name = 'Migration20261128130400_anomalies';

  override up(): void | Promise<void> {
    this.addSql(`create table "anomalies" (
      "store_id" int not null references "stores" ("id") on delete cascade,
      "id" bigint generated always as identity,
      "metric" varchar(32) not null,
      "scope_level" varchar(16) not null check ("scope_level" in ('store', 'channel', 'campaign')),
      "scope_channel" varchar(32) null,
      "scope_campaign_id" text null,
      "scope_key" text not null,
      "scope_label" text not null,
      "day" date not null,
      "intraday" boolean not null default false,
      "detected_value" double precision not null,
      "expected_value" double precision not null,
      "percent_change" double precision null,
      "severity" varchar(8) not null check ("severity" in ('low', 'medium', 'high')),
      "recommendation_code" varchar(64) not null,
      "recommendation_params" jsonb not null default '{}',
      "evidence" jsonb not null default '[]',
      "state" varchar(16) not null default 'new' check ("state" in ('new', 'acknowledged', 'resolved')),
      "state_changed_by" int null references "users" ("id") on delete set null,
      "state_changed_at" timestamptz null,
      "detected_at" timestamptz not null default now(),
      primary key ("store_id", "id"));`);
    this.addSql(`create unique index "anomalies_metric_scope_day_unique" on "anomalies" ("store_id", "metric", "scope_key", "day");`);
    this.addSql(`create index "anomalies_recent_index" on "anomalies" ("store_id", "state", "detected_at" desc);`);

    this.addSql(`create table "anomaly_settings" (
      "store_id" int not null references "stores" ("id") on delete cascade,
      "email_alerts" boolean not null default false,
      "language" varchar(2) not null default 'en' check ("language" in ('en', 'es', 'fr', 'de')),
      "updated_at" timestamptz not null default now(),
      primary key ("store_id"));`);

    this.addSql(`create table "anomaly_alerts_sent" (
      "store_id" int not null,
      "anomaly_id" bigint not null,
      "sent_at" timestamptz not null default now(),
      primary key ("store_id", "anomaly_id"),
      foreign key ("store_id", "anomaly_id") references "anomalies" ("store_id", "id") on delete cascade);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "anomaly_alerts_sent";`);
    this.addSql(`drop table if exists "anomaly_settings";`);
    this.addSql(`drop table if exists "anomalies";`);
  }

}
