import { Migration } from '@mikro-orm/migrations';

/** Affiliate commissions (modules/affiliates): one per paid invoice of a referred account. */
export class Migration20261129080061_affiliate_commissions extends Migration {

  override name = 'Migration20261129080061_affiliate_commissions';

  override up(): void | Promise<void> {
    this.addSql(`create table "affiliate_commissions" ("id" serial primary key, "affiliate_id" int not null, "invoice_id" int not null, "status" text not null, "currency" varchar(3) not null, "rate_percent" int not null, "amount_minor" bigint not null, "payable_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "affiliate_commissions" add constraint "affiliate_commissions_invoice_id_unique" unique ("invoice_id");`);
    this.addSql(`create index "affiliate_commissions_affiliate_id_payable_at_index" on "affiliate_commissions" ("affiliate_id", "payable_at");`);

    this.addSql(`alter table "affiliate_commissions" add constraint "affiliate_commissions_affiliate_id_foreign" foreign key ("affiliate_id") references "affiliates" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_commissions" add constraint "affiliate_commissions_invoice_id_foreign" foreign key ("invoice_id") references "billing_invoices" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_commissions" add constraint "affiliate_commissions_status_check" check ("status" in ('earned', 'reversed', 'blocked'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "affiliate_commissions" cascade;`);
  }

}
