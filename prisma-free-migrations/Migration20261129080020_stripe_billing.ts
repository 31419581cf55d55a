import { Migration } from '@mikro-orm/migrations';

/**
 * Stripe billing (modules/subscriptions/stripe-*.ts): the Stripe customer of each user, every accepted
 * webhook event by id (processed once), the invoices, and on subscriptions the cancel-at-period-end
 * flag, the past_due grace period and the billing interval.
 */
export class Migration20261129080020_stripe_billing extends Migration {

  override name = 'Migration20261129080020_stripe_billing';

  override up(): void | Promise<void> {
    this.addSql(`create table "billing_customers" ("user_id" int not null, "stripe_customer_id" varchar(255) not null, "created_at" timestamptz not null, primary key ("user_id"));`);
    this.addSql(`alter table "billing_customers" add constraint "billing_customers_stripe_customer_id_unique" unique ("stripe_customer_id");`);
    this.addSql(`alter table "billing_customers" add constraint "billing_customers_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "stripe_events" ("id" varchar(255) not null, "type" varchar(128) not null, "event_created_at" timestamptz not null, "payload" jsonb not null, "received_at" timestamptz not null, "processed_at" timestamptz null, "error" text null, primary key ("id"));`);
    this.addSql(`create index "stripe_events_processed_at_received_at_index" on "stripe_events" ("processed_at", "received_at");`);

    this.addSql(`create table "billing_invoices" ("id" serial primary key, "user_id" int not null, "stripe_invoice_id" varchar(255) not null, "stripe_subscription_id" varchar(255) null, "status" text not null, "currency" varchar(3) not null, "amount_due" bigint not null, "amount_paid" bigint not null, "amount_refunded" bigint not null default 0, "disputed" boolean not null default false, "hosted_invoice_url" text null, "invoice_pdf" text null, "period_start" timestamptz not null, "period_end" timestamptz not null, "paid_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "billing_invoices" add constraint "billing_invoices_stripe_invoice_id_unique" unique ("stripe_invoice_id");`);
    this.addSql(`create index "billing_invoices_user_id_period_start_index" on "billing_invoices" ("user_id", "period_start");`);
    this.addSql(`alter table "billing_invoices" add constraint "billing_invoices_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "billing_invoices" add constraint "billing_invoices_status_check" check ("status" in ('draft', 'open', 'paid', 'uncollectible', 'void'));`);

    this.addSql(`alter table "subscriptions" add column "cancel_at_period_end" boolean not null default false, add column "grace_until" timestamptz null, add column "billing_interval" text null;`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_billing_interval_check" check ("billing_interval" in ('month', 'year'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "subscriptions" drop constraint if exists "subscriptions_billing_interval_check";`);
    this.addSql(`alter table "subscriptions" drop column "cancel_at_period_end", drop column "grace_until", drop column "billing_interval";`);
    this.addSql(`drop table if exists "billing_invoices" cascade;`);
    this.addSql(`drop table if exists "stripe_events" cascade;`);
    this.addSql(`drop table if exists "billing_customers" cascade;`);
  }

}
