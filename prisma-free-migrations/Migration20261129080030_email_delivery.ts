import { Migration } from '@mikro-orm/migrations';

/**
 * SMTP delivery of the outbox (modules/email/email-delivery.ts): the HTML part, the unsubscribe address,
 * attachments, and per e-mail the attempts, the server's last answer and the message id.
 */
export class Migration20261129080030_email_delivery extends Migration {

  override name = 'Migration20261129080030_email_delivery';

  override up(): void | Promise<void> {
    this.addSql(`alter table "outbound_emails" add column "html_body" text null, add column "unsubscribe_url" text null, add column "attachments" jsonb null, add column "attempts" int not null default 0, add column "server_response" text null, add column "message_id" varchar(998) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbound_emails" drop column "html_body", drop column "unsubscribe_url", drop column "attachments", drop column "attempts", drop column "server_response", drop column "message_id";`);
  }

}
