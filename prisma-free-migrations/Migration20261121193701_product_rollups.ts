import { Migration } from '@mikro-orm/migrations';

export class Migration20261121193701_product_rollups extends Migration {

  override name = 'Migration20261121193701_product_rollups';

  override up(): void | Promise<void> {
    this.addSql(`create table "product_daily_rollups" ("store_id" int not null, "day" date not null, "product_key" text not null, "currency" char(3) not null, "orders_count" int not null default 0, "units" int not null default 0, "net_sales_minor" bigint not null default '0', "cogs_minor" bigint not null default '0', "costed_net_minor" bigint not null default '0', "costed_lines" int not null default 0, primary key ("store_id", "day", "product_key", "currency"));`);

    this.addSql(`alter table "product_daily_rollups" add constraint "product_daily_rollups_store_id_foreign" foreign key ("store_id") references "stores" ("id") on delete cascade;`);
    // Existing stores: the lines of their counting orders, as the rebuild computes them.
    this.addSql(`insert into "product_daily_rollups" ("store_id", "day", "product_key", "currency", "orders_count", "units", "net_sales_minor", "cogs_minor", "costed_net_minor", "costed_lines")
      select o."store_id", o."placed_day", coalesce('product:' || l."product_id", 'title:' || l."title"), o."currency",
             count(distinct o."id"), sum(l."quantity"), sum(l."quantity"::bigint * l."unit_price_minor" - l."discount_minor"),
             coalesce(sum(l."quantity"::bigint * l."unit_cost_minor"), 0),
             coalesce(sum(l."quantity"::bigint * l."unit_price_minor" - l."discount_minor") filter (where l."unit_cost_minor" is not null), 0),
             count(*) filter (where l."unit_cost_minor" is not null)
        from "orders" o
        join "order_lines" l on l."store_id" = o."store_id" and l."order_id" = o."id"
       where o."status" <> 'cancelled' and not o."is_test"
       group by 1, 2, 3, 4;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "product_daily_rollups" cascade;`);
  }

}
