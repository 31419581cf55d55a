import { Migration } from '@mikro-orm/migrations';

/**
 * The touchpoints report's spend per campaign (issue 17): `ad_metrics_monthly` holds the sums of
 * `ad_metrics_daily` per calendar month (same key with `month`, the month's first day, in place of
 * `day`; the greatest campaign name of the month's days beside), kept by
 * statement-level triggers like attribution_monthly's: the same numbers added or subtracted, so a
 * month's spend and conversion value always equal the sum of its days exactly (bigint). An update or
 * delete also takes the name again from the month's days (a rename). The report reads whole months
 * of the store's currency from it and the edge days, and every day of other currencies (converted
 * at each day's rate), from ad_metrics_daily (attribution.service.ts, campaignSpend); the index on
 * (store_id, currency, day) reads only those.
 *
 * ENABLE ALWAYS, like the other triggers the report relies on. No MikroORM entity (SQL only).
 */
// The store's currency and months first: the report reads a store's months in its currency.
const KEY = `store_id, currency, month, platform, account_id, campaign_id`;
const upsertMonthly = (rows: string) => `insert into ad_metrics_monthly as m (${KEY}, campaign_name, spend_minor, conversions, conversion_value_minor)
    select ${KEY}, max(campaign_name), sum(spend_minor), sum(conversions), sum(conversion_value_minor)
      from (${rows}) x group by ${KEY} order by ${KEY}
  on conflict (${KEY}) do update set
    campaign_name = greatest(m.campaign_name, excluded.campaign_name),
    spend_minor = m.spend_minor + excluded.spend_minor, conversions = m.conversions + excluded.conversions,
    conversion_value_minor = m.conversion_value_minor + excluded.conversion_value_minor`;
const monthOf = (table: string, sign: '' | '-') =>
  `select store_id, platform, account_id, campaign_id, date_trunc('month', day)::date as month, currency, campaign_name,
          ${sign}spend_minor as spend_minor, ${sign}conversions as conversions, ${sign}conversion_value_minor as conversion_value_minor
     from ${table}`;
/** The names of the months of `rows` from their days again (a rename); months without a day left removed. */
const refreshFromDays = (rows: string) => `
  update ad_metrics_monthly m set campaign_name = d.campaign_name
    from (select k.store_id, k.platform, k.account_id, k.campaign_id, k.currency, k.month, max(a.campaign_name) as campaign_name
            from (select distinct ${KEY} from (${rows}) r) k
            join ad_metrics_daily a on (a.store_id, a.platform, a.account_id, a.campaign_id, a.currency) = (k.store_id, k.platform, k.account_id, k.campaign_id, k.currency)
                                   and a.day >= k.month and a.day < (k.month + interval '1 month')::date
           group by 1, 2, 3, 4, 5, 6) d
   where (m.store_id, m.platform, m.account_id, m.campaign_id, m.currency, m.month) = (d.store_id, d.platform, d.account_id, d.campaign_id, d.currency, d.month)
     and m.campaign_name <> d.campaign_name;
  delete from ad_metrics_monthly m
   using (select distinct ${KEY} from (${rows}) r) k
   where (m.store_id, m.platform, m.account_id, m.campaign_id, m.currency, m.month) = (k.store_id, k.platform, k.account_id, k.campaign_id, k.currency, k.month)
     and not exists (select 1 from ad_metrics_daily a
                      where (a.store_id, a.platform, a.account_id, a.campaign_id, a.currency) = (m.store_id, m.platform, m.account_id, m.campaign_id, m.currency)
                        and a.day >= m.month and a.day < (m.month + interval '1 month')::date)`;

export class Migration20261129060001_ad_metrics_monthly extends Migration {

  override name = 'Migration20261129060001_ad_metrics_monthly';

  override up(): void | Promise<void> {
    this.addSql(`create table "ad_metrics_monthly" (
      "store_id" int not null,
      "platform" varchar(32) not null,
      "account_id" varchar(64) not null,
      "campaign_id" varchar(64) not null,
      "currency" char(3) not null,
      "month" date not null,
      "campaign_name" varchar(255) not null,
      "spend_minor" bigint not null default 0,
      "conversions" double precision not null default 0,
      "conversion_value_minor" bigint not null default 0,
      primary key ("store_id", "currency", "month", "platform", "account_id", "campaign_id"));`);
    this.addSql(`create index "ad_metrics_daily_store_id_currency_day_index" on "ad_metrics_daily" ("store_id", "currency", "day");`);
    this.addSql(`create or replace function "ad_metrics_monthly_insert"() returns trigger language plpgsql as $$
begin
  ${upsertMonthly(monthOf('new_rows', ''))};
  return null;
end $$;`);
    this.addSql(`create or replace function "ad_metrics_monthly_update"() returns trigger language plpgsql as $$
begin
  ${upsertMonthly(`${monthOf('new_rows', '')} union all ${monthOf('old_rows', '-')}`)};
  ${refreshFromDays(`${monthOf('new_rows', '')} union all ${monthOf('old_rows', '')}`)};
  return null;
end $$;`);
    this.addSql(`create or replace function "ad_metrics_monthly_delete"() returns trigger language plpgsql as $$
begin
  ${upsertMonthly(monthOf('old_rows', '-'))};
  ${refreshFromDays(monthOf('old_rows', ''))};
  return null;
end $$;`);
    this.addSql(`create trigger "ad_metrics_daily_monthly_insert" after insert on "ad_metrics_daily" referencing new table as new_rows for each statement execute function ad_metrics_monthly_insert();`);
    this.addSql(`create trigger "ad_metrics_daily_monthly_update" after update on "ad_metrics_daily" referencing old table as old_rows new table as new_rows for each statement execute function ad_metrics_monthly_update();`);
    this.addSql(`create trigger "ad_metrics_daily_monthly_delete" after delete on "ad_metrics_daily" referencing old table as old_rows for each statement execute function ad_metrics_monthly_delete();`);
    for (const event of ['insert', 'update', 'delete']) this.addSql(`alter table "ad_metrics_daily" enable always trigger "ad_metrics_daily_monthly_${event}";`);
    // The months of the rows already there.
    this.addSql(`insert into ad_metrics_monthly (${KEY}, campaign_name, spend_minor, conversions, conversion_value_minor)
      select ${KEY}, max(campaign_name), sum(spend_minor), sum(conversions), sum(conversion_value_minor) from (${monthOf('ad_metrics_daily', '')}) x group by ${KEY};`);
    this.addSql(`analyze "ad_metrics_monthly";`);
  }

  override down(): void | Promise<void> {
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "ad_metrics_daily_monthly_${event}" on "ad_metrics_daily";`);
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop function if exists "ad_metrics_monthly_${event}"();`);
    this.addSql(`drop index if exists "ad_metrics_daily_store_id_currency_day_index";`);
    this.addSql(`drop table if exists "ad_metrics_monthly";`);
  }

}
