import { Migration } from '@mikro-orm/migrations';

/**
 * The Stripe fingerprint of the card that paid an invoice (charge.payment_method_details.card.fingerprint),
 * for the affiliate same-card rule (affiliates/commissions.service.ts). Invoices paid before stay null.
 */
export class Migration20261129080063_invoice_card_fingerprint extends Migration {

  override name = 'Migration20261129080063_invoice_card_fingerprint';

  override up(): void | Promise<void> {
    this.addSql(`alter table "billing_invoices" add "card_fingerprint" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "billing_invoices" drop column "card_fingerprint";`);
  }

}
