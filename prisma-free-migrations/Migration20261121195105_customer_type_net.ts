import { Migration } from '@mikro-orm/migrations';

export class Migration20261121195105_customer_type_net extends Migration {

  override name = 'Migration20261121195105_customer_type_net';

  override up(): void | Promise<void> {
    this.addSql(`alter table "daily_rollups" add "new_customer_net_minor" bigint not null default '0', add "returning_customer_net_minor" bigint not null default '0';`);
    // Existing stores: their counting orders by the settled new-customer flag, as the rebuild computes them.
    this.addSql(`update "daily_rollups" d
        set "new_customer_net_minor" = x."new_net", "returning_customer_net_minor" = x."returning_net"
       from (select "store_id", "placed_day", "currency",
                    coalesce(sum("net_sales_minor") filter (where "is_new_customer"), 0) as "new_net",
                    coalesce(sum("net_sales_minor") filter (where not "is_new_customer"), 0) as "returning_net"
               from "orders" where "status" <> 'cancelled' and not "is_test"
              group by 1, 2, 3) x
      where d."store_id" = x."store_id" and d."day" = x."placed_day" and d."currency" = x."currency";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "daily_rollups" drop column "new_customer_net_minor", drop column "returning_customer_net_minor";`);
  }

}
