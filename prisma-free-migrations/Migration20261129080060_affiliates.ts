import { Migration } from '@mikro-orm/migrations';

/**
 * Affiliate programme (modules/affiliates): affiliates with their code and overrides, referral-link
 * clicks (day and a visitor hash, no raw IP), attributed sign-ups and fraud flags.
 */
export class Migration20261129080060_affiliates extends Migration {

  override name = 'Migration20261129080060_affiliates';

  override up(): void | Promise<void> {
    this.addSql(`create table "affiliates" ("id" serial primary key, "user_id" int not null, "code" varchar(32) not null, "commission_rate_percent" int null, "commission_months" int null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "affiliates" add constraint "affiliates_user_id_unique" unique ("user_id");`);
    this.addSql(`alter table "affiliates" add constraint "affiliates_code_unique" unique ("code");`);

    this.addSql(`create table "affiliate_flags" ("id" serial primary key, "affiliate_id" int not null, "kind" text not null, "detail" text not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "affiliate_flags_affiliate_id_created_at_index" on "affiliate_flags" ("affiliate_id", "created_at");`);

    this.addSql(`create table "affiliate_clicks" ("id" serial primary key, "affiliate_id" int not null, "day" date not null, "visitor_hash" varchar(64) not null, "clicked_at" timestamptz not null);`);
    this.addSql(`create index "affiliate_clicks_affiliate_id_day_index" on "affiliate_clicks" ("affiliate_id", "day");`);

    this.addSql(`create table "affiliate_referrals" ("id" serial primary key, "affiliate_id" int not null, "referred_user_id" int not null, "click_id" int null, "signed_up_at" timestamptz not null);`);
    this.addSql(`alter table "affiliate_referrals" add constraint "affiliate_referrals_referred_user_id_unique" unique ("referred_user_id");`);

    this.addSql(`alter table "affiliates" add constraint "affiliates_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "affiliate_flags" add constraint "affiliate_flags_affiliate_id_foreign" foreign key ("affiliate_id") references "affiliates" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_flags" add constraint "affiliate_flags_kind_check" check ("kind" in ('self_referral', 'same_card'));`);

    this.addSql(`alter table "affiliate_clicks" add constraint "affiliate_clicks_affiliate_id_foreign" foreign key ("affiliate_id") references "affiliates" ("id") on delete cascade;`);

    this.addSql(`alter table "affiliate_referrals" add constraint "affiliate_referrals_affiliate_id_foreign" foreign key ("affiliate_id") references "affiliates" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_referrals" add constraint "affiliate_referrals_referred_user_id_foreign" foreign key ("referred_user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_referrals" add constraint "affiliate_referrals_click_id_foreign" foreign key ("click_id") references "affiliate_clicks" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "affiliate_flags" drop constraint "affiliate_flags_affiliate_id_foreign";`);
    this.addSql(`alter table "affiliate_clicks" drop constraint "affiliate_clicks_affiliate_id_foreign";`);
    this.addSql(`alter table "affiliate_referrals" drop constraint "affiliate_referrals_affiliate_id_foreign";`);
    this.addSql(`alter table "affiliate_referrals" drop constraint "affiliate_referrals_click_id_foreign";`);

    this.addSql(`drop table if exists "affiliates" cascade;`);
    this.addSql(`drop table if exists "affiliate_flags" cascade;`);
    this.addSql(`drop table if exists "affiliate_clicks" cascade;`);
    this.addSql(`drop table if exists "affiliate_referrals" cascade;`);
  }

}
