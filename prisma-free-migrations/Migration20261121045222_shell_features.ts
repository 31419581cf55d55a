import { Migration } from '@mikro-orm/migrations';

export class Migration20261121045222_shell_features extends Migration {

  override name = 'Migration20261121045222_shell_features';

  override up(): void | Promise<void> {
    this.addSql(`create table "contact_messages" ("id" serial primary key, "user_id" int null, "name" varchar(100) not null, "email" varchar(254) not null, "message" text not null, "status" text not null default 'new', "created_at" timestamptz not null);`);
    this.addSql(`create index "contact_messages_status_created_at_index" on "contact_messages" ("status", "created_at");`);

    this.addSql(`create table "email_templates" ("key" varchar(64) not null, "subject" varchar(255) not null, "text_body" text not null, "updated_at" timestamptz not null, "updated_by_user_id" int null, primary key ("key"));`);

    this.addSql(`create table "outbound_emails" ("id" serial primary key, "to_address" varchar(254) not null, "template" varchar(64) not null, "subject" varchar(255) not null, "text_body" text not null, "status" text not null default 'pending', "error" text null, "user_id" int null, "created_at" timestamptz not null, "sent_at" timestamptz null);`);
    this.addSql(`create index "outbound_emails_created_at_index" on "outbound_emails" ("created_at");`);
    this.addSql(`create index "outbound_emails_to_address_created_at_index" on "outbound_emails" ("to_address", "created_at");`);

    this.addSql(`create table "store_guests" ("store_id" int not null, "user_id" int not null, "invited_by_id" int null, "created_at" timestamptz not null, primary key ("store_id", "user_id"));`);
    this.addSql(`create index "store_guests_user_id_index" on "store_guests" ("user_id");`);

    this.addSql(`create table "password_reset_tokens" ("id" serial primary key, "user_id" int not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "password_reset_tokens" add constraint "password_reset_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "password_reset_tokens_user_id_created_at_index" on "password_reset_tokens" ("user_id", "created_at");`);

    this.addSql(`create table "guest_invitations" ("id" serial primary key, "store_id" int not null, "invited_by_id" int not null, "email" varchar(254) not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "accepted_user_id" int null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "guest_invitations" add constraint "guest_invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "guest_invitations_store_id_created_at_index" on "guest_invitations" ("store_id", "created_at");`);

    this.addSql(`create table "feature_requests" ("id" serial primary key, "author_id" int not null, "title" varchar(120) not null, "description" text not null, "status" text not null default 'open', "created_at" timestamptz not null);`);
    this.addSql(`create index "feature_requests_status_created_at_index" on "feature_requests" ("status", "created_at");`);

    this.addSql(`create table "feature_request_votes" ("feature_request_id" int not null, "user_id" int not null, "created_at" timestamptz not null, primary key ("feature_request_id", "user_id"));`);

    this.addSql(`alter table "audit_log_entries" drop constraint "audit_log_entries_action_check";`);
    this.addSql(`alter table "audit_log_entries" add constraint "audit_log_entries_action_check" check ("action" in ('guest_mode.enter', 'guest_mode.exit', 'subscription.grant', 'password.changed', 'password.reset', 'guest.invited', 'guest.removed', 'email_template.updated'));`);

    this.addSql(`alter table "contact_messages" add constraint "contact_messages_status_check" check ("status" in ('new', 'answered', 'closed'));`);

    this.addSql(`alter table "outbound_emails" add constraint "outbound_emails_status_check" check ("status" in ('pending', 'sent', 'failed', 'logged'));`);

    this.addSql(`alter table "store_guests" add constraint "store_guests_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "store_guests" add constraint "store_guests_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "store_guests" add constraint "store_guests_invited_by_id_foreign" foreign key ("invited_by_id") references "users" ("id") on delete set null;`);

    this.addSql(`alter table "password_reset_tokens" add constraint "password_reset_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "guest_invitations" add constraint "guest_invitations_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "guest_invitations" add constraint "guest_invitations_invited_by_id_foreign" foreign key ("invited_by_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "feature_requests" add constraint "feature_requests_author_id_foreign" foreign key ("author_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "feature_requests" add constraint "feature_requests_status_check" check ("status" in ('open', 'planned', 'in_progress', 'done', 'declined'));`);

    this.addSql(`alter table "feature_request_votes" add constraint "feature_request_votes_feature_request_id_foreign" foreign key ("feature_request_id") references "feature_requests" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "feature_request_votes" add constraint "feature_request_votes_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "feature_request_votes" drop constraint "feature_request_votes_feature_request_id_foreign";`);

    this.addSql(`drop table if exists "contact_messages" cascade;`);
    this.addSql(`drop table if exists "email_templates" cascade;`);
    this.addSql(`drop table if exists "outbound_emails" cascade;`);
    this.addSql(`drop table if exists "store_guests" cascade;`);
    this.addSql(`drop table if exists "password_reset_tokens" cascade;`);
    this.addSql(`drop table if exists "guest_invitations" cascade;`);
    this.addSql(`drop table if exists "feature_requests" cascade;`);
    this.addSql(`drop table if exists "feature_request_votes" cascade;`);

    this.addSql(`alter table "audit_log_entries" drop constraint "audit_log_entries_action_check";`);
    this.addSql(`alter table "audit_log_entries" add constraint "audit_log_entries_action_check" check ("action" in ('guest_mode.enter', 'guest_mode.exit', 'subscription.grant'));`);
  }

}
