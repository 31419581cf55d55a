import { Migration } from '@mikro-orm/migrations';

/**
 * When the "payment failed" e-mail was sent for an invoice (modules/subscriptions/stripe-events.ts):
 * Stripe sends invoice.payment_failed for every retry of an invoice; the user is told once.
 */
export class Migration20261129080090_invoice_payment_failure_email extends Migration {

  override name = 'Migration20261129080090_invoice_payment_failure_email';

  override up(): void | Promise<void> {
    this.addSql(`alter table "billing_invoices" add column "payment_failure_emailed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "billing_invoices" drop column "payment_failure_emailed_at";`);
  }

}
