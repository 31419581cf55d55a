import { Migration } from '@mikro-orm/migrations';

/**
 * Customers' names and e-mail addresses, sealed (commerce/customer-contacts.ts): the sealed pair, a
 * keyed digest that tells a change without opening it, and the name's blind index (keyed digests of
 * its words' prefixes, per store) with a GIN index for search.
 */
export class Migration20261128131000_customer_contacts extends Migration {

  override name = 'Migration20261128131000_customer_contacts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customers" add column "contact_sealed" text null, add column "contact_digest" varchar(32) null, add column "name_search" text[] null;`);
    this.addSql(`create index "customers_name_search_index" on "customers" using gin ("name_search");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "customers_name_search_index";`);
    this.addSql(`alter table "customers" drop column if exists "contact_sealed", drop column if exists "contact_digest", drop column if exists "name_search";`);
  }

}
