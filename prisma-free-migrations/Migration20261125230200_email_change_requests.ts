import { Migration } from '@mikro-orm/migrations';

export class Migration20261125230200_email_change_requests extends Migration {

  override name = 'Migration20261125230200_email_change_requests';

  override up(): void | Promise<void> {
    // A new e-mail address changes the account only when the link sent to it is opened (settings/email-change.service.ts).
    this.addSql(`create table "email_change_requests" ("id" serial primary key, "user_id" int not null, "new_email" varchar(254) not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "email_change_requests" add constraint "email_change_requests_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "email_change_requests_user_id_created_at_index" on "email_change_requests" ("user_id", "created_at");`);
    this.addSql(`alter table "email_change_requests" add constraint "email_change_requests_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    // Audited: a new address asked for, and the address changed (admin/audit-log.entity.ts AUDIT_ACTIONS).
    this.addSql(`alter table "audit_log_entries" drop constraint "audit_log_entries_action_check";`);
    this.addSql(`alter table "audit_log_entries" add constraint "audit_log_entries_action_check" check ("action" in ('guest_mode.enter', 'guest_mode.exit', 'subscription.grant', 'password.changed', 'password.reset', 'guest.invited', 'guest.removed', 'email_template.updated', 'email.change_requested', 'email.changed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "audit_log_entries" drop constraint "audit_log_entries_action_check";`);
    this.addSql(`alter table "audit_log_entries" add constraint "audit_log_entries_action_check" check ("action" in ('guest_mode.enter', 'guest_mode.exit', 'subscription.grant', 'password.changed', 'password.reset', 'guest.invited', 'guest.removed', 'email_template.updated'));`);
    this.addSql(`drop table if exists "email_change_requests" cascade;`);
  }

}
