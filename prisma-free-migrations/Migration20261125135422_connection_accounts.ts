import { Migration } from '@mikro-orm/migrations';

export class Migration20261125135422_connection_accounts extends Migration {

  override name = 'Migration20261125135422_connection_accounts';

  override up(): void | Promise<void> {
    this.addSql(`create table "connection_accounts" ("store_id" int not null, "id" bigserial not null, "connection_id" int not null, "account_id" varchar(255) not null, "name" varchar(255) not null, "currency" char(3) null, "timezone" varchar(64) null, "is_manager" boolean not null default false, "selected" boolean not null default false, "access" jsonb null, "listed_at" timestamptz not null, primary key ("store_id", "id"));`);
    this.addSql(`alter table "connection_accounts" add constraint "connection_accounts_store_id_connection_id_account_id_unique" unique ("store_id", "connection_id", "account_id");`);

    this.addSql(`alter table "platform_connections" drop constraint "platform_connections_status_check";`);
    this.addSql(`alter table "platform_connections" add "account_timezone" varchar(64) null, add "deep_restated_at" timestamptz null;`);
    this.addSql(`alter table "platform_connections" add constraint "platform_connections_status_check" check ("status" in ('not_connected', 'connected', 'syncing', 'disconnected', 'error', 'choose_accounts'));`);

    this.addSql(`alter table "sync_runs" add "warnings" jsonb not null default '[]';`);

    this.addSql(`alter table "connection_accounts" add constraint "connection_accounts_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    this.addSql(`alter table "connection_accounts" add constraint "connection_accounts_connection_id_foreign" foreign key ("connection_id") references "platform_connections" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "connection_accounts" cascade;`);

    this.addSql(`alter table "platform_connections" drop constraint "platform_connections_status_check";`);
    this.addSql(`alter table "platform_connections" drop column "account_timezone", drop column "deep_restated_at";`);
    this.addSql(`alter table "platform_connections" add constraint "platform_connections_status_check" check ("status" in ('not_connected', 'connected', 'syncing', 'disconnected', 'error'));`);

    this.addSql(`alter table "sync_runs" drop column "warnings";`);
  }

}
