import { Migration } from '@mikro-orm/migrations';

/**
 * The orders search's product part (orders.service.ts, searchConditionSql) looks among the distinct
 * titles and SKUs of a store's order lines first, then at the lines that carry them exactly.
 *
 * Before, a trigram GIN index over every line (order_lines_search_index) answered "%SP-0042%"
 * directly, but the words of a SKU are in every SKU ("sp" in all 1.5 million lines of the 1M demo
 * store): intersecting those posting lists cost 56 ms of a 114 ms statement on a quiet machine and
 * 2-4x that when loaded. A store has a few hundred to some ten thousand distinct line texts, so the
 * trigram match on them is a fraction of a millisecond, and the lines of the matching texts come from
 * btree indexes. Matches are exactly as before: an order matches when one of its lines' title or SKU
 * contains the search.
 *
 * `order_line_texts` holds each distinct title and SKU of a store's lines once (md5 in the key, since
 * a title may exceed a btree entry's 2.7 kB); the statement triggers below add the texts of every
 * line written. They are ENABLE ALWAYS because ingest runs with session_replication_role = replica
 * when it may (rollups.ts, lockStoreForIngest), which silences ordinary triggers. A text whose last
 * line is gone stays: it then leads to an exact look-up that finds no line, which costs nothing.
 */
export class Migration20261128030100_order_line_texts extends Migration {

  override name = 'Migration20261128030100_order_line_texts';

  override up(): void | Promise<void> {
    this.addSql(`create table "order_line_texts" (
      "store_id" int not null references "stores" ("id") on delete cascade,
      "kind" text not null check ("kind" in ('title', 'sku')),
      "text" text not null,
      "text_hash" text generated always as (md5("text")) stored,
      primary key ("store_id", "kind", "text_hash"));`);
    this.addSql(`create index "order_line_texts_search_index" on "order_line_texts" using gin ("store_id", "text" gin_trgm_ops);`);
    this.addSql(`create function "order_line_texts_add"() returns trigger language plpgsql as $$
      begin
        insert into order_line_texts (store_id, kind, text)
        select distinct store_id, 'title', title from new_lines
        union
        select distinct store_id, 'sku', sku from new_lines where sku is not null
        on conflict do nothing;
        return null;
      end $$;`);
    this.addSql(`create trigger "order_line_texts_on_insert" after insert on "order_lines" referencing new table as new_lines for each statement execute function "order_line_texts_add"();`);
    this.addSql(`create trigger "order_line_texts_on_update" after update on "order_lines" referencing new table as new_lines for each statement execute function "order_line_texts_add"();`);
    this.addSql(`alter table "order_lines" enable always trigger "order_line_texts_on_insert";`);
    this.addSql(`alter table "order_lines" enable always trigger "order_line_texts_on_update";`);
    this.addSql(`insert into "order_line_texts" ("store_id", "kind", "text")
      select distinct "store_id", 'title', "title" from "order_lines"
      union
      select distinct "store_id", 'sku', "sku" from "order_lines" where "sku" is not null
      on conflict do nothing;`);
    this.addSql(`create index "order_lines_title_hash_index" on "order_lines" ("store_id", md5("title"));`);
    this.addSql(`create index "order_lines_sku_index" on "order_lines" ("store_id", "sku", "order_id");`);
    this.addSql(`drop index if exists "order_lines_search_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create index if not exists "order_lines_search_index" on "order_lines" using gin ("store_id", "title" gin_trgm_ops, "sku" gin_trgm_ops);`);
    this.addSql(`drop index if exists "order_lines_sku_index";`);
    this.addSql(`drop index if exists "order_lines_title_hash_index";`);
    this.addSql(`drop trigger if exists "order_line_texts_on_update" on "order_lines";`);
    this.addSql(`drop trigger if exists "order_line_texts_on_insert" on "order_lines";`);
    this.addSql(`drop function if exists "order_line_texts_add"();`);
    this.addSql(`drop table if exists "order_line_texts";`);
  }

}
