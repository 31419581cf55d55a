import { Migration } from '@mikro-orm/migrations';

/**
 * The touchpoints report's credits in other currencies than the store's (issue 17, "median under
 * 100 ms"): each day's credits are converted at that day's rate, so a monthly sum per currency
 * (attribution_monthly) cannot be converted as one. `attribution_converted_monthly` holds, per
 * calendar month, the other-currency credits already converted into the store's currency day by day
 * and added up (attribution.service.ts, convertedMonths: the same conversion and arithmetic as the
 * per-day read), one row per (model, channel, campaign).
 *
 * `attribution_converted_months` says whether a month's converted rows are valid: `version` moves
 * with every change that could change them, `converted_version` is the version they were computed
 * at and `currency` the store's currency they were converted into. A month is valid while
 * converted_version = version and currency is the store's; else the report recomputes it (and
 * stores it) before reading. What moves `version`:
 *   - writes to attribution_daily rows in another currency than the store's (statement-level
 *     triggers, the rows' months);
 *   - writes to fx_rates: every month from the first changed day's month on (a day without a rate
 *     takes the latest rate before it, so a change can reach into the following days and months);
 *     an update that leaves the rate as it was (a source reloading the same rates) moves nothing;
 *   - a change of the store's currency needs nothing: `currency` no longer matches.
 * The attribution job converts the closed months that are marked and not valid
 * (converted-months.ts); a report converts what it reads that is not.
 * ENABLE ALWAYS, like the other triggers the report relies on. No MikroORM entity (SQL only).
 */
const markMonths = (rows: string) => `insert into attribution_converted_months as m (store_id, window_days, month)
    select distinct r.store_id, r.window_days, date_trunc('month', r.day)::date
      from (${rows}) r join stores s on s.id = r.store_id
     where r.currency <> s.currency
     order by 1, 2, 3
  on conflict (store_id, window_days, month) do update set version = m.version + 1`;
const DAILY_ROWS = `store_id, window_days, day, currency`;

export class Migration20261129060000_attribution_converted_monthly extends Migration {

  override name = 'Migration20261129060000_attribution_converted_monthly';

  override up(): void | Promise<void> {
    this.addSql(`create table "attribution_converted_months" (
      "store_id" int not null,
      "window_days" int not null,
      "month" date not null,
      "version" bigint not null default 1,
      "converted_version" bigint null,
      "currency" char(3) null,
      primary key ("store_id", "window_days", "month"));`);
    this.addSql(`create table "attribution_converted_monthly" (
      "store_id" int not null,
      "window_days" int not null,
      "model" varchar(16) not null,
      "month" date not null,
      "channel" varchar(32) not null,
      "campaign" text not null,
      "orders" double precision not null,
      "revenue_minor" double precision not null,
      "own_source_orders" double precision not null,
      "own_source_revenue_minor" double precision not null,
      primary key ("store_id", "window_days", "model", "month", "channel", "campaign"));`);

    this.addSql(`create or replace function "attribution_converted_mark_changed"() returns trigger language plpgsql as $$
begin
  ${markMonths(`select ${DAILY_ROWS} from changed_rows`)};
  return null;
end $$;`);
    this.addSql(`create or replace function "attribution_converted_mark_updated"() returns trigger language plpgsql as $$
begin
  ${markMonths(`select ${DAILY_ROWS} from new_rows union all select ${DAILY_ROWS} from old_rows`)};
  return null;
end $$;`);
    this.addSql(`create or replace function "attribution_converted_mark_fx"() returns trigger language plpgsql as $$
begin
  update attribution_converted_months set version = version + 1
   where converted_version = version and month >= (select date_trunc('month', min(day))::date from changed_rows);
  return null;
end $$;`);
    this.addSql(`create or replace function "attribution_converted_mark_fx_updated"() returns trigger language plpgsql as $$
begin
  update attribution_converted_months set version = version + 1
   where converted_version = version
     and month >= (select date_trunc('month', min(day))::date from (
           (select day, currency, rate from new_rows except select day, currency, rate from old_rows)
           union all (select day, currency, rate from old_rows except select day, currency, rate from new_rows)) d);
  return null;
end $$;`);

    for (const [event, transition] of [['insert', 'new'], ['delete', 'old']]) {
      this.addSql(`create trigger "attribution_daily_converted_${event}" after ${event} on "attribution_daily" referencing ${transition} table as changed_rows for each statement execute function attribution_converted_mark_changed();`);
      this.addSql(`create trigger "fx_rates_converted_${event}" after ${event} on "fx_rates" referencing ${transition} table as changed_rows for each statement execute function attribution_converted_mark_fx();`);
    }
    this.addSql(`create trigger "attribution_daily_converted_update" after update on "attribution_daily" referencing old table as old_rows new table as new_rows for each statement execute function attribution_converted_mark_updated();`);
    this.addSql(`create trigger "fx_rates_converted_update" after update on "fx_rates" referencing old table as old_rows new table as new_rows for each statement execute function attribution_converted_mark_fx_updated();`);
    for (const event of ['insert', 'update', 'delete']) {
      this.addSql(`alter table "attribution_daily" enable always trigger "attribution_daily_converted_${event}";`);
      this.addSql(`alter table "fx_rates" enable always trigger "fx_rates_converted_${event}";`);
    }
    // The months that already hold other-currency credits, to be converted (by the attribution job).
    this.addSql(`insert into attribution_converted_months (store_id, window_days, month)
      select distinct m.store_id, m.window_days, m.month from attribution_monthly m join stores s on s.id = m.store_id where m.currency <> s.currency;`);
  }

  override down(): void | Promise<void> {
    for (const event of ['insert', 'update', 'delete']) {
      this.addSql(`drop trigger if exists "attribution_daily_converted_${event}" on "attribution_daily";`);
      this.addSql(`drop trigger if exists "fx_rates_converted_${event}" on "fx_rates";`);
    }
    for (const fn of ['mark_changed', 'mark_updated', 'mark_fx', 'mark_fx_updated']) this.addSql(`drop function if exists "attribution_converted_${fn}"();`);
    this.addSql(`drop table if exists "attribution_converted_monthly";`);
    this.addSql(`drop table if exists "attribution_converted_months";`);
  }

}
