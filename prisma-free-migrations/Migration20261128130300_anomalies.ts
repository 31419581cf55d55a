import { Migration } from '@mikro-orm/migrations';

/**
 * Anomaly insights (issue 18; README, "Anomaly insights"): the anomalies the detection job finds, one
 * per store, metric, scope and day, with the state users give them; and when detection last ran per store.
 */
export class Migration20261128130300_anomalies extends Migration {

  override name = 'Migration20261128130300_anomalies';

  override up(): void | Promise<void> {
    this.addSql(`create table "anomalies" (
      "store_id" int not null references "stores" ("id") on update cascade on delete cascade,
      "id" bigserial primary key,
      "metric" text check ("metric" in ('net_sales', 'orders', 'aov', 'marketing_spend', 'roas', 'cac', 'refunds', 'new_customer_share', 'spend_without_conversions', 'pixel_order_divergence')) not null,
      "scope_level" text check ("scope_level" in ('store', 'channel', 'campaign')) not null,
      "scope_key" varchar(200) not null,
      "channel" varchar(32) null,
      "campaign_id" varchar(64) null,
      "scope_label" varchar(255) not null,
      "day" date not null,
      "intraday" boolean not null default false,
      "detected_value" double precision not null,
      "expected_value" double precision not null,
      "percent_change" double precision null,
      "robust_z" double precision not null,
      "severity" text check ("severity" in ('low', 'medium', 'high')) not null,
      "recommendation_code" varchar(64) not null,
      "recommendation_params" jsonb not null,
      "evidence" jsonb not null,
      "state" text check ("state" in ('new', 'acknowledged', 'resolved')) not null default 'new',
      "state_changed_by_id" int null references "users" ("id") on update cascade on delete set null,
      "state_changed_at" timestamptz null,
      "detected_at" timestamptz not null);`);
    this.addSql(`alter table "anomalies" add constraint "anomalies_store_id_metric_scope_key_day_unique" unique ("store_id", "metric", "scope_key", "day");`);
    this.addSql(`create index "anomalies_store_id_detected_at_index" on "anomalies" ("store_id", "detected_at");`);

    this.addSql(`create table "anomaly_checks" (
      "store_id" int not null references "stores" ("id") on update cascade on delete cascade,
      "checked_at" timestamptz not null,
      "last_settled_day" date null,
      primary key ("store_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "anomaly_checks" cascade;`);
    this.addSql(`drop table if exists "anomalies" cascade;`);
  }

}
