import { Migration } from '@mikro-orm/migrations';

/**
 * The orders table's search (orders.service.ts, searchConditionSql) on an index for each thing it
 * matches, so a search on a store of a million orders settles in well under 300 ms
 * (bench/orders-search.ts, BENCHMARKS.md): order-number and customer-id prefixes, the exact e-mail
 * hash, and product titles and SKUs anywhere in them (trigrams). Each index starts with store_id.
 * pg_trgm and btree_gin are PostgreSQL's own contrib extensions, trusted since PostgreSQL 13: the
 * database owner may create them.
 */
export class Migration20261126020100_order_search_indexes extends Migration {

  override name = 'Migration20261126020100_order_search_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists btree_gin;`);
    this.addSql(`create index if not exists "orders_order_number_prefix_index" on "orders" ("store_id", "order_number" text_pattern_ops);`);
    this.addSql(`create index if not exists "customers_external_id_prefix_index" on "customers" ("store_id", "external_id" text_pattern_ops);`);
    this.addSql(`create index if not exists "customers_email_hash_index" on "customers" ("store_id", "email_hash");`);
    this.addSql(`create index if not exists "order_lines_search_index" on "order_lines" using gin ("store_id", "title" gin_trgm_ops, "sku" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "order_lines_search_index";`);
    this.addSql(`drop index if exists "customers_email_hash_index";`);
    this.addSql(`drop index if exists "customers_external_id_prefix_index";`);
    this.addSql(`drop index if exists "orders_order_number_prefix_index";`);
  }

}
