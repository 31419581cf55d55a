import { Migration } from '@mikro-orm/migrations';

export class Migration20261125134927_refund_parts_unpaid extends Migration {

  override name = 'Migration20261125134927_refund_parts_unpaid';

  override up(): void | Promise<void> {
    this.addSql(`alter table "orders" drop constraint "orders_status_check";`);
    this.addSql(`alter table "orders" add constraint "orders_status_check" check ("status" in ('paid', 'pending', 'refunded', 'partially_refunded', 'cancelled', 'unpaid'));`);

    this.addSql(`alter table "refunds" add "shipping_minor" bigint not null default '0', add "taxes_minor" bigint not null default '0', add "adjustments_minor" bigint not null default '0';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "orders" drop constraint "orders_status_check";`);
    this.addSql(`alter table "orders" add constraint "orders_status_check" check ("status" in ('paid', 'pending', 'refunded', 'partially_refunded', 'cancelled'));`);

    this.addSql(`alter table "refunds" drop column "shipping_minor", drop column "taxes_minor", drop column "adjustments_minor";`);
  }

}
