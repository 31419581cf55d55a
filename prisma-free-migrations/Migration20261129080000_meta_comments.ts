import { Migration } from '@mikro-orm/migrations';

/**
 * The Meta comments manager (modules/meta-comments): the comments of a store's Page posts, ads' posts
 * and Instagram media with their labels and moderation state, the store's rules and last sync, its
 * reply templates, and the webhook deliveries already applied.
 */
export class Migration20261129080000_meta_comments extends Migration {

  override name = 'Migration20261129080000_meta_comments';

  override up(): void | Promise<void> {
    this.addSql(`create table "meta_comments" ("store_id" int not null, "comment_id" varchar(100) not null, "platform" text not null, "account_id" varchar(100) not null, "post_id" varchar(100) not null, "post_link" text null, "post_text" text not null default '', "ad_id" varchar(100) null, "author_name" varchar(255) not null, "message" text not null, "created_time" timestamptz not null, "hidden" boolean not null default false, "liked" boolean not null default false, "replied" boolean not null default false, "deleted" boolean not null default false, "parent_id" varchar(100) null, "sentiment_score" double precision not null, "sentiment_label" text not null, "category" text not null, "language" text not null, "notified_at" timestamptz null, "synced_at" timestamptz not null, primary key ("store_id", "comment_id"));`);
    this.addSql(`create index "meta_comments_store_created_index" on "meta_comments" ("store_id", "created_time");`);
    this.addSql(`alter table "meta_comments" add constraint "meta_comments_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "meta_comments" add constraint "meta_comments_platform_check" check ("platform" in ('facebook', 'instagram'));`);
    this.addSql(`alter table "meta_comments" add constraint "meta_comments_sentiment_label_check" check ("sentiment_label" in ('positive', 'neutral', 'negative'));`);
    this.addSql(`alter table "meta_comments" add constraint "meta_comments_category_check" check ("category" in ('question', 'complaint', 'spam', 'praise', 'other'));`);
    this.addSql(`alter table "meta_comments" add constraint "meta_comments_language_check" check ("language" in ('en', 'es', 'fr', 'de', 'other'));`);

    this.addSql(`create table "meta_comment_settings" ("store_id" int not null, "auto_hide_spam" boolean not null default false, "auto_hide_profanity" boolean not null default false, "notify_complaints" boolean not null default true, "account_ids" jsonb not null default '[]', "last_sync_at" timestamptz null, "last_sync_error" text null, "reconnect_needed" boolean not null default false, primary key ("store_id"));`);
    this.addSql(`alter table "meta_comment_settings" add constraint "meta_comment_settings_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "meta_reply_templates" ("id" serial primary key, "store_id" int not null, "name" varchar(80) not null, "body" text not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "meta_reply_templates_store_index" on "meta_reply_templates" ("store_id", "id");`);
    this.addSql(`alter table "meta_reply_templates" add constraint "meta_reply_templates_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);

    this.addSql(`create table "meta_webhook_deliveries" ("digest" varchar(64) not null, "received_at" timestamptz not null, primary key ("digest"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "meta_webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "meta_reply_templates" cascade;`);
    this.addSql(`drop table if exists "meta_comment_settings" cascade;`);
    this.addSql(`drop table if exists "meta_comments" cascade;`);
  }

}
