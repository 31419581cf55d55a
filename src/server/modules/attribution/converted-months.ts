import type { EntityManager } from '@mikro-orm/postgresql';
import { ATTRIBUTION_MODELS, type AttributionModel } from '../../../shared/attribution.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { loadFxRates } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import { readState } from './credits.ts';

// Credits in other currencies than the store's, converted into the store's currency at each day's
// rate and summed per calendar month (attribution_converted_monthly; when a month is valid:
// attribution_converted_months, Migration20261129060000). The report reads them for whole months
// (attribution.service.ts, creditGroups); the attribution job converts closed months that are not
// valid any more in the background, so that a report rarely has to.

export interface StoreCurrency {
  id: number;
  currency: string;
}

/** One model's credits of a channel and campaign, in minor units of the store's currency (unrounded). */
export interface CreditGroup {
  model: AttributionModel;
  channel: string;
  campaign: string;
  /** Minor units of the store's currency, unrounded. */
  revenue: number;
  ownRevenue: number;
  orders: number;
  ownOrders: number;
}

/**
 * The credits in other currencies than the store's of whole months, converted into the store's
 * currency at each day's rate and summed (attribution_converted_monthly); months not valid any more
 * (a credit, an exchange rate or the store's currency changed since: attribution_converted_months,
 * Migration20261129060000) are converted again first and stored.
 */
export async function convertedMonths(
  em: EntityManager, store: StoreCurrency, windowDays: number, models: readonly AttributionModel[], months: { from: string; toExclusive: string }, perCampaign: boolean,
): Promise<CreditGroup[]> {
  const q = sqlRunner(em);
  const stale = await q.rows<{ month: string; version: string }>(
    `select to_char(g.month, 'YYYY-MM-DD') as month, coalesce(m.version, 0)::text as version
       from generate_series($3::date, $4::date - 1, interval '1 month') g(month)
       left join attribution_converted_months m on m.store_id = $1 and m.window_days = $2 and m.month = g.month
      where m.converted_version is distinct from m.version or m.currency is distinct from $5::bpchar`,
    [store.id, windowDays, months.from, months.toExclusive, store.currency],
  );
  if (stale.length > 0) await convertMonths(em, store, windowDays, stale);
  const campaign = perCampaign ? 'campaign' : `''::text`;
  return (
    await q.rows<{ model: AttributionModel; channel: string; campaign: string; orders: number; revenue: number; own_orders: number; own_revenue: number }>(
      `select model, channel, ${campaign} as campaign, sum(orders) as orders, sum(revenue_minor) as revenue, sum(own_source_orders) as own_orders, sum(own_source_revenue_minor) as own_revenue
         from attribution_converted_monthly where store_id = $1 and window_days = $2 and model = any($3::text[]) and month >= $4::date and month < $5::date
        group by 1, 2, 3`,
      [store.id, windowDays, models, months.from, months.toExclusive],
    )
  ).map((row) => ({ model: row.model, channel: row.channel, campaign: row.campaign, revenue: row.revenue, ownRevenue: row.own_revenue, orders: row.orders, ownOrders: row.own_orders }));
}

/**
 * Converts the other-currency credits of these months (every model) day by day, as the per-day
 * read does, and stores each month's sums with the version read before its credits: a month whose
 * version moved meanwhile (a write in flight) is not stored, so stays to be converted again.
 */
async function convertMonths(em: EntityManager, store: StoreCurrency, windowDays: number, stale: { month: string; version: string }[]) {
  const q = sqlRunner(em);
  const first = stale[0]!.month;
  // The last stale month's last day (its first day + 31 is in the next month).
  const lastDay = addDays(`${addDays(stale.at(-1)!.month, 31).slice(0, 8)}01`, -1);
  const wanted = stale.map((row) => row.month);
  const currencies = (
    await q.rows<{ currency: string }>(
      `select distinct currency from attribution_monthly where store_id = $1 and window_days = $2 and currency <> $3 and month = any($4::date[])`,
      [store.id, windowDays, store.currency, wanted],
    )
  ).map((row) => row.currency);
  const sums = new Map<string, CreditGroup & { month: string }>();
  if (currencies.length > 0) {
    const [rows, rates] = await Promise.all([
      q.rows<{ model: AttributionModel; channel: string; campaign: string; currency: string; day: string; orders: string; revenue: string; own_orders: string; own_revenue: string }>(
        `select model, channel, campaign, currency, to_char(day, 'YYYY-MM-DD') as day, orders::text as orders, revenue_minor::text as revenue,
                own_source_orders::text as own_orders, own_source_revenue_minor::text as own_revenue
           from attribution_daily where store_id = $1 and window_days = $2 and currency = any($3::bpchar[]) and model = any($4::text[])
            and day between $5::date and $6::date and date_trunc('month', day)::date = any($7::date[])`,
        [store.id, windowDays, currencies, ATTRIBUTION_MODELS, first, lastDay, wanted],
      ),
      loadFxRates(em, [store.currency, ...currencies], first, lastDay),
    ]);
    for (const row of rows) {
      const month = `${row.day.slice(0, 8)}01`;
      const key = `${month}\u0000${row.model}\u0000${row.channel}\u0000${row.campaign}`;
      let sum = sums.get(key);
      if (!sum) sums.set(key, (sum = { month, model: row.model, channel: row.channel, campaign: row.campaign, revenue: 0, ownRevenue: 0, orders: 0, ownOrders: 0 }));
      sum.revenue += rates.convertExact(num(row.revenue), row.currency, store.currency, row.day);
      sum.ownRevenue += rates.convertExact(num(row.own_revenue), row.currency, store.currency, row.day);
      sum.orders += Number(row.orders);
      sum.ownOrders += Number(row.own_orders);
    }
  }
  await em.transactional(async (tx) => {
    const t = sqlRunner(tx);
    // Marked first (the row lock keeps a concurrent write's trigger waiting until this commits).
    const stored = (
      await t.rows<{ month: string }>(
        `insert into attribution_converted_months as m (store_id, window_days, month, version, converted_version, currency)
         select $1, $2, x.month, x.version, x.version, $3 from unnest($4::date[], $5::bigint[]) as x(month, version)
         on conflict (store_id, window_days, month) do update set converted_version = excluded.version, currency = excluded.currency
           where m.version = excluded.version
         returning to_char(month, 'YYYY-MM-DD') as month`,
        [store.id, windowDays, store.currency, wanted, stale.map((row) => row.version)],
      )
    ).map((row) => row.month);
    if (stored.length === 0) return;
    await t.run(`delete from attribution_converted_monthly where store_id = $1 and window_days = $2 and month = any($3::date[])`, [store.id, windowDays, stored]);
    const rows = [...sums.values()].filter((row) => stored.includes(row.month));
    if (rows.length === 0) return;
    await t.run(
      `insert into attribution_converted_monthly (store_id, window_days, model, month, channel, campaign, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
       select $1, $2, x.* from unnest($3::text[], $4::date[], $5::text[], $6::text[], $7::float8[], $8::float8[], $9::float8[], $10::float8[])
         as x(model, month, channel, campaign, orders, revenue_minor, own_source_orders, own_source_revenue_minor)`,
      [store.id, windowDays, rows.map((row) => row.model), rows.map((row) => row.month), rows.map((row) => row.channel), rows.map((row) => row.campaign),
        rows.map((row) => row.orders), rows.map((row) => row.revenue), rows.map((row) => row.ownOrders), rows.map((row) => row.ownRevenue)],
    );
  });
}

/**
 * Converts the closed months (before the current one) of the stores' current windows that are
 * marked and not valid any more (the attribution job, after the credits). A
 * store whose conversion fails (no rate for a day) is logged and skipped; its report says why.
 */
export async function convertStaleClosedMonths(fork: () => EntityManager, storeIds?: number[], log: (message: string) => void = () => {}): Promise<number> {
  const stores = await sqlRunner(fork()).rows<{ id: number; currency: string }>(
    `select s.id, s.currency from stores s where exists (select 1 from attribution_state a where a.store_id = s.id) and ($1::int[] is null or s.id = any($1::int[])) order by s.id`,
    [storeIds ?? null],
  );
  let converted = 0;
  for (const store of stores) {
    try {
      const em = fork();
      const q = sqlRunner(em);
      const { windowDays } = await readState(q, store.id);
      // The months marked (writes to other-currency credits, rate changes, converted before into
      // another currency); a month never marked is converted by the first report that reads it.
      const stale = await q.rows<{ month: string; version: string }>(
        `select to_char(month, 'YYYY-MM-DD') as month, version::text as version from attribution_converted_months
          where store_id = $1 and window_days = $2 and month < date_trunc('month', current_date)::date
            and (converted_version is distinct from version or currency is distinct from $3::bpchar)
          order by month`,
        [store.id, windowDays, store.currency],
      );
      if (stale.length === 0) continue;
      await convertMonths(em, store, windowDays, stale);
      converted += stale.length;
    } catch (error) {
      log(`Converting the attribution months of store ${store.id} failed: ${(error as Error).message}`);
    }
  }
  return converted;
}
