import { Migration } from '@mikro-orm/migrations';

/**
 * First-party tracking (README, "Tracking: the pixel and the collector"): per store its keys and
 * privacy settings, the events (append-only, partitioned by month of `occurred_at`; the partitions
 * are created ahead by the tracking maintenance job and at write time by the collector), purchases
 * (one row per order id: the same purchase from the pixel and the server API is stored once), the
 * sessions and touchpoints the session job derives from the events, and the dropped-event counters
 * the tracking screen shows. `store_id` leads every key. The daily salts of the cookieless visitor
 * hash are not tenant data.
 */
export class Migration20261128040000_tracking extends Migration {

  override name = 'Migration20261128040000_tracking';

  override up(): void | Promise<void> {
    this.addSql(`create table "tracking_settings" (
      "store_id" int not null references "stores" ("id") on delete cascade,
      "store_key" varchar(64) not null,
      "secret_key_hash" varchar(64) null,
      "secret_key_hint" varchar(8) null,
      "allowed_domains" text[] not null default '{}',
      "honour_gpc" boolean not null default true,
      "retention_months" int not null default 25 check ("retention_months" between 1 and 60),
      "payment_referrers" text[] not null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      primary key ("store_id"));`);

    this.addSql(`create sequence "tracking_events_seq";`);
    this.addSql(`create table "tracking_events" (
      "store_id" int not null,
      "occurred_at" timestamptz not null,
      "event_id" varchar(128) not null,
      "received_at" timestamptz not null default now(),
      "seq" bigint not null default nextval('tracking_events_seq'),
      "name" varchar(40) not null,
      "source" varchar(8) not null,
      "consent" boolean not null,
      "anonymous_id" varchar(64) null,
      "visitor_hash" varchar(64) null,
      "url" text null,
      "referrer" text null,
      "title" text null,
      "utm_source" text null, "utm_medium" text null, "utm_campaign" text null, "utm_content" text null, "utm_term" text null,
      "gclid" text null, "gbraid" text null, "wbraid" text null, "fbclid" text null, "msclkid" text null, "ttclid" text null,
      "screen" varchar(16) null,
      "language" varchar(35) null,
      "country" char(2) null,
      "email_hash" char(64) null,
      "customer_id" varchar(128) null,
      "checkout_token" varchar(128) null,
      "order_id" varchar(128) null,
      "value_minor" bigint null,
      "currency" char(3) null,
      "props" jsonb null,
      primary key ("store_id", "occurred_at", "event_id")
    ) partition by range ("occurred_at");`);
    this.addSql(`create index "tracking_events_seq_index" on "tracking_events" ("store_id", "seq");`);
    this.addSql(`create index "tracking_events_email_hash_index" on "tracking_events" ("store_id", "email_hash") where "email_hash" is not null;`);
    this.addSql(`create index "tracking_events_anonymous_id_index" on "tracking_events" ("store_id", "anonymous_id") where "anonymous_id" is not null;`);

    this.addSql(`create table "tracking_purchases" (
      "store_id" int not null,
      "order_id" varchar(128) not null,
      "occurred_at" timestamptz not null,
      "source" varchar(8) not null,
      "anonymous_id" varchar(64) null,
      "email_hash" char(64) null,
      "customer_id" varchar(128) null,
      "checkout_token" varchar(128) null,
      "value_minor" bigint not null,
      "currency" char(3) not null,
      "created_at" timestamptz not null default now(),
      primary key ("store_id", "order_id"));`);
    this.addSql(`create index "tracking_purchases_email_hash_index" on "tracking_purchases" ("store_id", "email_hash") where "email_hash" is not null;`);

    this.addSql(`create sequence "tracking_sessions_seq";`);
    this.addSql(`create table "tracking_sessions" (
      "store_id" int not null,
      "id" bigint not null default nextval('tracking_sessions_seq'),
      "visitor_key" varchar(64) not null,
      "anonymous_id" varchar(64) null,
      "email_hash" char(64) null,
      "started_at" timestamptz not null,
      "last_event_at" timestamptz not null,
      "landing_url" text null,
      "referrer" text null,
      "channel" varchar(32) null,
      "campaign_key" text null,
      "payment_return" boolean not null default false,
      "touchpoint_id" bigint null,
      "events" int not null default 0,
      "page_views" int not null default 0,
      primary key ("store_id", "id"));`);
    this.addSql(`create index "tracking_sessions_visitor_index" on "tracking_sessions" ("store_id", "visitor_key", "last_event_at");`);

    this.addSql(`create sequence "tracking_touchpoints_seq";`);
    this.addSql(`create table "tracking_touchpoints" (
      "store_id" int not null,
      "id" bigint not null default nextval('tracking_touchpoints_seq'),
      "session_id" bigint not null,
      "visitor_key" varchar(64) not null,
      "anonymous_id" varchar(64) null,
      "occurred_at" timestamptz not null,
      "channel" varchar(32) not null,
      "utm_source" text null, "utm_medium" text null, "utm_campaign" text null, "utm_content" text null, "utm_term" text null,
      "click_id_kind" varchar(8) null,
      "click_id" text null,
      "referrer_host" text null,
      "landing_url" text null,
      primary key ("store_id", "id"));`);
    this.addSql(`create index "tracking_touchpoints_visitor_index" on "tracking_touchpoints" ("store_id", "visitor_key", "occurred_at");`);

    this.addSql(`create table "tracking_session_cursors" (
      "store_id" int not null,
      "last_seq" bigint not null default 0,
      "updated_at" timestamptz not null default now(),
      primary key ("store_id"));`);

    this.addSql(`create table "tracking_drops" (
      "store_id" int not null,
      "day" date not null,
      "reason" varchar(64) not null,
      "count" bigint not null default 0,
      primary key ("store_id", "day", "reason"));`);

    this.addSql(`create table "tracking_salts" ("day" date not null, "salt" bytea not null, primary key ("day"));`);
  }

  override down(): void | Promise<void> {
    for (const table of ['tracking_salts', 'tracking_drops', 'tracking_session_cursors', 'tracking_touchpoints', 'tracking_sessions', 'tracking_purchases', 'tracking_events', 'tracking_settings']) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
    for (const sequence of ['tracking_touchpoints_seq', 'tracking_sessions_seq', 'tracking_events_seq']) this.addSql(`drop sequence if exists "${sequence}";`);
  }

}
