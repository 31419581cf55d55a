import { Migration } from '@mikro-orm/migrations';

export class Migration20261121132304_daily_marketing extends Migration {

  override name = 'Migration20261121132304_daily_marketing';

  override up(): void | Promise<void> {
    this.addSql(`alter table "daily_rollups" add "spend_minor" bigint not null default '0', add "ad_spend_minor" bigint not null default '0', add "clicks" bigint not null default '0';`);
    // Existing stores: each (day, currency) takes the sums of its channel rows (the ad platforms as
    // of this migration for the advertising part), as the rebuild would compute them.
    this.addSql(`insert into "daily_rollups" ("store_id", "day", "currency", "spend_minor", "ad_spend_minor", "clicks")
      select "store_id", "day", "currency", sum("spend_minor"),
             coalesce(sum("spend_minor") filter (where "channel" in ('googleads', 'metaads', 'bingads', 'tiktokads')), 0), sum("clicks")
        from "channel_daily_rollups"
       group by "store_id", "day", "currency"
      having sum("spend_minor") <> 0 or sum("clicks") <> 0
      on conflict ("store_id", "day", "currency") do update
        set "spend_minor" = excluded."spend_minor", "ad_spend_minor" = excluded."ad_spend_minor", "clicks" = excluded."clicks";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "daily_rollups" drop column "spend_minor", drop column "ad_spend_minor", drop column "clicks";`);
  }

}
