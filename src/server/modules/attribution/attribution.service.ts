import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ATTRIBUTION_MODELS, channelName,
  type AttributionModel, type AttributionReportOutput,
} from '../../../shared/attribution.ts';
import { countingOrderSql, type Comparison } from '../../../shared/commerce.ts';
import { addDays, comparisonRange, type DayRange } from '../../../shared/date-ranges.ts';
import { AppError } from '../../errors.ts';
import { loadFxRates, roundMinor, type FxRates } from '../commerce/fx.ts';
import { num, sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { ATTRIBUTION_QUEUE } from './attribution-jobs.ts';
import { convertedMonths, type CreditGroup } from './converted-months.ts';
import { loadJourneys, readState, runAttribution, visitorTouchpoints, type Journey } from './credits.ts';
import { DAY_MS, orderCredits, roundToSum, type Touchpoint } from './models.ts';

// What the touchpoints screen and GET /api/attribution read (README, "Attribution"). The channel and
// campaign table reads the daily credit rollups (O(days x channels)) when the window asked for is
// the store's window and complete; any other window is computed from the orders' journeys in the
// range (the same model code), which costs in proportion to the range's orders.

export interface StoreRef {
  id: number;
  currency: string;
}

export async function attributionStatus(em: EntityManager, storeId: number) {
  const state = await readState(sqlRunner(em), storeId);
  return {
    windowDays: state.windowDays,
    recomputing: state.recomputeWindowDays === null ? null : { windowDays: state.recomputeWindowDays, done: state.recomputeDone, total: state.recomputeTotal },
  };
}

/** Whether the rollups hold the window complete. */
async function rollupsHold(q: SqlRunner, storeId: number, windowDays: number): Promise<boolean> {
  const state = await readState(q, storeId);
  return state.windowDays === windowDays && state.recomputeWindowDays !== windowDays;
}

/** Whether the journeys and rollups of the window a request means are stored (else computed now from visits). */
export async function storedFor(em: EntityManager, storeId: number, windowInput: number | undefined): Promise<boolean> {
  const q = sqlRunner(em);
  return rollupsHold(q, storeId, await windowOf(q, storeId, windowInput));
}

/** The window a request means: the one given, or the store's. */
async function windowOf(q: SqlRunner, storeId: number, windowDays: number | undefined): Promise<number> {
  if (windowDays !== undefined) return windowDays;
  const [row] = await q.rows<{ days: number }>(`select attribution_window_days as days from tracking_settings where store_id = $1`, [storeId]);
  return row?.days ?? (await readState(q, storeId)).windowDays;
}

/**
 * The store's attribution window (a tracking setting). A new one is computed in the background
 * (progress in attributionStatus) and replaces the current one when complete; going back to the
 * current window while that runs cancels it.
 */
export async function setAttributionWindow(em: EntityManager, storeId: number, windowDays: number, options: { runNow?: boolean } = {}) {
  await trackingSettingsOf(em, storeId);
  await em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    await q.run(`update tracking_settings set attribution_window_days = $2, updated_at = now() where store_id = $1`, [storeId, windowDays]);
    const state = await readState(q, storeId);
    await q.run(`select 1 from attribution_state where store_id = $1 for update`, [storeId]);
    if (state.windowDays === windowDays) {
      if (state.recomputeWindowDays !== null && state.recomputeWindowDays !== windowDays) {
        await q.run(`delete from attribution_daily where store_id = $1 and window_days = $2`, [storeId, state.recomputeWindowDays]);
        await q.run(`delete from attribution_orders where store_id = $1 and window_days = $2`, [storeId, state.recomputeWindowDays]);
        await q.run(`update attribution_state set recompute_window_days = null, recompute_cursor = 0, recompute_done = 0, recompute_total = 0 where store_id = $1`, [storeId]);
      }
      return;
    }
    if (state.recomputeWindowDays === windowDays) return;
    if (state.recomputeWindowDays !== null) {
      await q.run(`delete from attribution_daily where store_id = $1 and window_days = $2`, [storeId, state.recomputeWindowDays]);
      await q.run(`delete from attribution_orders where store_id = $1 and window_days = $2`, [storeId, state.recomputeWindowDays]);
    }
    await q.run(
      `update attribution_state set recompute_window_days = $2, recompute_cursor = 0, recompute_done = 0,
              recompute_total = (select count(*) from orders where store_id = $1), updated_at = now() where store_id = $1`,
      [storeId, windowDays],
    );
  });
  if (options.runNow) await runAttribution(em.fork(), storeId);
  else if (options.runNow === undefined) await sendIntegrationJob(ATTRIBUTION_QUEUE, { storeId });
  return attributionStatus(em, storeId);
}

/**
 * Every model's credits (or one model's) in the range, per channel and campaign, in the store's
 * currency. `campaigns: false`: per channel only (campaign ''), for answers without the campaign
 * table (GET /api/attribution), which reads far fewer groups. `rollups`: whether the rollups hold
 * the window, when the caller already knows. `months: false`: every day read from attribution_daily
 * (the same figures as the whole months; for tests).
 */
async function creditGroups(
  em: EntityManager, store: StoreRef, range: DayRange, windowDays: number, only?: AttributionModel,
  options: { campaigns?: boolean; rollups?: boolean; months?: boolean } = {},
): Promise<CreditGroup[]> {
  const perCampaign = options.campaigns ?? true;
  const models = only ? [only] : ATTRIBUTION_MODELS;
  const q = sqlRunner(em);
  const groups = new Map<string, CreditGroup>();
  const add = (model: AttributionModel, channel: string, campaign: string, values: { revenue: number; ownRevenue: number; orders: number; ownOrders: number }) => {
    const key = `${model}\u0000${channel}\u0000${campaign}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { model, channel, campaign, revenue: 0, ownRevenue: 0, orders: 0, ownOrders: 0 }));
    group.revenue += values.revenue;
    group.ownRevenue += values.ownRevenue;
    group.orders += values.orders;
    group.ownOrders += values.ownOrders;
  };
  let fx: FxRates | null = null;
  const convert = async (amount: number, currency: string, day: string) => {
    if (currency === store.currency) return amount;
    fx ??= await loadFxRates(em, [store.currency, currency], range.from, range.to);
    return fx.convertExact(amount, currency, store.currency, day);
  };
  if (options.rollups ?? (await rollupsHold(q, store.id, windowDays))) {
    // Rows in the store's currency are summed over the range (one group per model, channel and
    // campaign: hashed, not sorted by day): whole months from attribution_monthly, the days before
    // the first and after the last whole month from attribution_daily (the sums are exact, so the
    // same as the days'). Other currencies per day, converted at the day's rate: only the
    // currencies the months show, so the day rows of the store's currency are not read for them.
    const campaign = perCampaign ? 'campaign' : `''::text`;
    const values = `orders, revenue_minor, own_source_orders, own_source_revenue_minor`;
    const sums = `sum(orders)::text as orders, sum(revenue_minor)::text as revenue, sum(own_source_orders)::text as own_orders, sum(own_source_revenue_minor)::text as own_revenue`;
    const key = `store_id = $1 and window_days = $2 and model = any($3::text[])`;
    const split = options.months === false ? { months: null, edges: [range] } : monthSplit(range);
    // (No whole month: an empty month range, so the statement keeps its parameters.)
    const monthsRead = `select model, channel, ${campaign} as campaign, ${values} from attribution_monthly where ${key} and currency = $4 and month >= $5::date and month < $6::date`;
    const daysRead = split.edges.map(
      (_, index) => `select model, channel, ${campaign} as campaign, ${values} from attribution_daily where ${key} and currency = $4 and day between $${7 + 2 * index}::date and $${8 + 2 * index}::date`,
    );
    const monthBounds = split.months ? [split.months.from, split.months.toExclusive] : [range.from, range.from];
    const foreign = (
      await q.rows<{ currency: string }>(
        `select distinct currency from attribution_monthly where ${key} and currency <> $4 and month >= date_trunc('month', $5::date)::date and month <= $6::date`,
        [store.id, windowDays, models, store.currency, range.from, range.to],
      )
    ).map((row) => row.currency);
    // Other currencies: whole months already converted (attribution_converted_monthly), the edge
    // days per day, converted at each day's rate.
    const otherDays = split.months ? split.edges : [range];
    const [own, converted, other, rates] = await Promise.all([
      q.rows<{ model: AttributionModel; channel: string; campaign: string; orders: string; revenue: string; own_orders: string; own_revenue: string }>(
        `select model, channel, campaign, ${sums} from (${[monthsRead, ...daysRead].join(' union all ')}) x group by 1, 2, 3`,
        [store.id, windowDays, models, store.currency, ...monthBounds, ...split.edges.flatMap((edge) => [edge.from, edge.to])],
      ),
      foreign.length === 0 || !split.months ? [] : convertedMonths(em, store, windowDays, models, split.months, perCampaign),
      foreign.length === 0 || otherDays.length === 0
        ? []
        : q.rows<{ model: AttributionModel; channel: string; campaign: string; currency: string; day: string; orders: string; revenue: string; own_orders: string; own_revenue: string }>(
            `select model, channel, ${campaign} as campaign, currency, to_char(day, 'YYYY-MM-DD') as day, ${sums}
               from attribution_daily where ${key} and currency = any($4::bpchar[]) and (${otherDays.map((_, index) => `day between $${5 + 2 * index}::date and $${6 + 2 * index}::date`).join(' or ')})
              group by 1, 2, 3, 4, 5`,
            [store.id, windowDays, models, foreign, ...otherDays.flatMap((edge) => [edge.from, edge.to])],
          ),
      foreign.length === 0 || otherDays.length === 0 ? null : loadFxRates(em, [store.currency, ...foreign], range.from, range.to),
    ]);
    // Added in the same order and with the same arithmetic as before, without an await per row
    // (the other-currency rows are ~19,000 a model and year): the rates are loaded above.
    for (const row of own) {
      add(row.model, row.channel, row.campaign, { revenue: num(row.revenue), ownRevenue: num(row.own_revenue), orders: Number(row.orders), ownOrders: Number(row.own_orders) });
    }
    for (const row of converted) add(row.model, row.channel, row.campaign, row);
    for (const row of other) {
      add(row.model, row.channel, row.campaign, {
        revenue: rates!.convertExact(num(row.revenue), row.currency, store.currency, row.day),
        ownRevenue: rates!.convertExact(num(row.own_revenue), row.currency, store.currency, row.day),
        orders: Number(row.orders),
        ownOrders: Number(row.own_orders),
      });
    }
  } else {
    for (const journey of await journeysOfRange(q, store.id, range, windowDays)) {
      for (const model of models) {
        for (const row of orderCredits(model, journey, windowDays)) {
          if (row.day < range.from || row.day > range.to) continue;
          const revenue = await convert(row.revenueMinor, row.currency, row.day);
          add(model, row.channel, perCampaign ? row.campaign : '', {
            revenue, ownRevenue: row.ownSource ? revenue : 0, orders: row.ordersMillionths / 1e6, ownOrders: row.ownSource ? row.ordersMillionths / 1e6 : 0,
          });
        }
      }
    }
  }
  return [...groups.values()];
}

/**
 * The whole calendar months in the range ([from, toExclusive): their first days) and the days
 * outside them (before the first whole month, after the last); no months: the range as one edge.
 */
export function monthSplit(range: DayRange): { months: { from: string; toExclusive: string } | null; edges: DayRange[] } {
  const firstOfMonth = (day: string) => `${day.slice(0, 8)}01`;
  const start = range.from.endsWith('-01') ? range.from : firstOfMonth(addDays(firstOfMonth(range.from), 31));
  const afterEnd = addDays(range.to, 1);
  const end = afterEnd.endsWith('-01') ? afterEnd : firstOfMonth(range.to);
  if (start >= end) return { months: null, edges: [range] };
  const edges: DayRange[] = [];
  if (range.from < start) edges.push({ from: range.from, to: addDays(start, -1) });
  if (end <= range.to) edges.push({ from: end, to: range.to });
  return { months: { from: start, toExclusive: end }, edges };
}

/** The journeys (computed now) of the counting orders placed in the range or refunded in it. */
async function journeysOfRange(q: SqlRunner, storeId: number, range: DayRange, windowDays: number): Promise<Journey[]> {
  const ids = (
    await q.rows<{ id: string }>(
      `select o.id::text as id from orders o where o.store_id = $1 and o.placed_day between $2::date and $3::date and ${countingOrderSql('o')}
       union select r.order_id::text from refunds r where r.store_id = $1 and r.refunded_day between $2::date and $3::date`,
      [storeId, range.from, range.to],
    )
  ).map((row) => row.id);
  const journeys: Journey[] = [];
  for (let index = 0; index < ids.length; index += 2_000) journeys.push(...(await loadJourneys(q, storeId, ids.slice(index, index + 2_000), windowDays)));
  return journeys;
}

interface SpendRow {
  channel: string;
  spend: number;
  platformConversions: number;
  platformRevenue: number;
}

/** Spend and what the platforms report, per channel (channel_daily_rollups: ad platforms and e-mail platforms' own attribution). */
async function channelSpend(em: EntityManager, store: StoreRef, range: DayRange): Promise<Map<string, SpendRow>> {
  const rows = await sqlRunner(em).rows<{ channel: string; currency: string; day: string | null; spend: string; conversions: string; value: string }>(
    `select channel, currency, case when currency = $4 then null else to_char(day, 'YYYY-MM-DD') end as day,
            sum(spend_minor)::text as spend, sum(platform_conversions)::text as conversions, sum(platform_conversion_value_minor)::text as value
       from channel_daily_rollups where store_id = $1 and day between $2::date and $3::date group by 1, 2, 3`,
    [store.id, range.from, range.to, store.currency],
  );
  const fx = rows.some((row) => row.currency !== store.currency) ? await loadFxRates(em, [store.currency, ...rows.map((row) => row.currency)], range.from, range.to) : null;
  const result = new Map<string, SpendRow>();
  for (const row of rows) {
    const factor = row.currency === store.currency ? 1 : fx!.factor(row.currency, store.currency, row.day!);
    const entry = result.get(row.channel) ?? { channel: row.channel, spend: 0, platformConversions: 0, platformRevenue: 0 };
    entry.spend += num(row.spend) * factor;
    entry.platformConversions += Number(row.conversions);
    entry.platformRevenue += num(row.value) * factor;
    result.set(row.channel, entry);
  }
  return result;
}

/**
 * Spend and platform-reported figures per (channel, campaign): ad campaigns by name or id, e-mail
 * campaigns by name or id. Ad spend in the store's currency: whole months from ad_metrics_monthly,
 * the edge days from ad_metrics_daily (the sums are exact, so the same as the days'); other
 * currencies per day, converted at the day's rate. `months: false`: every day from ad_metrics_daily.
 */
async function campaignSpend(em: EntityManager, store: StoreRef, range: DayRange, options: { months?: boolean } = {}): Promise<Map<string, SpendRow & { names: string[] }>> {
  const split = options.months === false ? { months: null, edges: [range] } : monthSplit(range);
  const monthBounds = split.months ? [split.months.from, split.months.toExclusive] : [range.from, range.from];
  const columns = `platform, campaign_id, campaign_name, currency, spend_minor, conversions, conversion_value_minor`;
  const edgeDays = split.edges.map((_, index) => `day between $${7 + 2 * index}::date and $${8 + 2 * index}::date`);
  const ownCurrency = [
    `select ${columns} from ad_metrics_monthly where store_id = $1 and currency = $4 and month >= $5::date and month < $6::date`,
    ...(edgeDays.length > 0 ? [`select ${columns} from ad_metrics_daily where store_id = $1 and currency = $4 and (${edgeDays.join(' or ')})`] : []),
  ].join(' union all ');
  const q = sqlRunner(em);
  // Other currencies' days only when the months show some: the planner cannot know that there are
  // none, and planned for a year of days (in parallel workers, three times slower on a busy machine).
  const foreign = (
    await q.rows<{ currency: string }>(
      `select distinct currency from ad_metrics_monthly where store_id = $1 and currency <> $2 and month >= date_trunc('month', $3::date)::date and month <= $4::date`,
      [store.id, store.currency, range.from, range.to],
    )
  ).map((row) => row.currency);
  const foreignDays = foreign.length === 0 ? '' : `
     union all
     select platform, campaign_id, max(campaign_name), currency, to_char(day, 'YYYY-MM-DD'), sum(spend_minor)::text, sum(conversions)::text, sum(conversion_value_minor)::text
       from ad_metrics_daily where store_id = $1 and currency = any($${7 + 2 * split.edges.length}::bpchar[]) and day between $2::date and $3::date
      group by 1, 2, 4, 5`;
  const rows = await q.rows<{ channel: string; campaign_id: string; campaign_name: string; currency: string; day: string | null; spend: string; conversions: string; value: string }>(
    `select platform as channel, campaign_id, max(campaign_name) as campaign_name, currency, null as day,
            sum(spend_minor)::text as spend, sum(conversions)::text as conversions, sum(conversion_value_minor)::text as value
       from (${ownCurrency}) x group by 1, 2, 4${foreignDays}
     union all
     select platform, campaign_id, max(campaign_name), currency, case when currency = $4 then null else to_char(day, 'YYYY-MM-DD') end,
            sum(spend_minor)::text, sum(attributed_orders)::text, sum(attributed_revenue_minor)::text
       from email_metrics_daily where store_id = $1 and day between $2::date and $3::date group by 1, 2, 4, 5`,
    [store.id, range.from, range.to, store.currency, ...monthBounds, ...split.edges.flatMap((edge) => [edge.from, edge.to]), ...(foreign.length === 0 ? [] : [foreign])],
  );
  const fx = rows.some((row) => row.currency !== store.currency) ? await loadFxRates(em, [store.currency, ...rows.map((row) => row.currency)], range.from, range.to) : null;
  const result = new Map<string, SpendRow & { names: string[] }>();
  for (const row of rows) {
    const factor = row.currency === store.currency ? 1 : fx!.factor(row.currency, store.currency, row.day!);
    const key = `${row.channel}\u0000${row.campaign_id}`;
    const entry = result.get(key) ?? { channel: row.channel, spend: 0, platformConversions: 0, platformRevenue: 0, names: [row.campaign_id.toLowerCase(), row.campaign_name.toLowerCase()] };
    entry.spend += num(row.spend) * factor;
    entry.platformConversions += Number(row.conversions);
    entry.platformRevenue += num(row.value) * factor;
    result.set(key, entry);
  }
  return result;
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;
const roas = (revenue: number, spend: number) => (spend > 0 ? Math.round((revenue / spend) * 100) / 100 : null);
const cacOf = (spend: number, orders: number) => (orders > 0 && spend > 0 ? roundMinor(spend / orders) : null);

async function period(
  em: EntityManager, store: StoreRef, range: DayRange, model: AttributionModel, windowDays: number, options: { campaigns: boolean; rollups: boolean; months?: boolean },
): Promise<AttributionReportOutput['current']> {
  // The three reads are independent: each on a connection of the pool, at the same time.
  const [groups, spend, campaigns] = await Promise.all([
    creditGroups(em, store, range, windowDays, model, options),
    channelSpend(em, store, range),
    options.campaigns ? campaignSpend(em, store, range, options) : new Map<string, SpendRow & { names: string[] }>(),
  ]);
  // Each credited campaign's spend: the first spend row (in the order read) of its channel with its name or id.
  const spendByName = new Map<string, SpendRow & { names: string[] }>();
  for (const entry of campaigns.values()) {
    for (const name of entry.names) if (!spendByName.has(`${entry.channel}\u0000${name}`)) spendByName.set(`${entry.channel}\u0000${name}`, entry);
  }
  const byChannel = new Map<string, { revenue: number; ownRevenue: number; orders: number; ownOrders: number }>();
  for (const group of groups) {
    const entry = byChannel.get(group.channel) ?? { revenue: 0, ownRevenue: 0, orders: 0, ownOrders: 0 };
    entry.revenue += group.revenue;
    entry.ownRevenue += group.ownRevenue;
    entry.orders += group.orders;
    entry.ownOrders += group.ownOrders;
    byChannel.set(group.channel, entry);
  }
  for (const channel of spend.keys()) if (!byChannel.has(channel)) byChannel.set(channel, { revenue: 0, ownRevenue: 0, orders: 0, ownOrders: 0 });
  // Rounded so that the channels add up to the total to the cent (each rounded on its own could be a cent off).
  const channelEntries = [...byChannel.entries()];
  const channelRevenue = roundToSum(channelEntries.map(([, credit]) => credit.revenue));
  const channelSpendMinor = roundToSum(channelEntries.map(([channel]) => spend.get(channel)?.spend ?? 0));
  const channels = channelEntries.map(([channel, credit], index) => {
    const s = spend.get(channel);
    const revenueMinor = channelRevenue[index]!;
    const spendMinor = channelSpendMinor[index]!;
    return {
      channel, orders: round6(credit.orders), revenueMinor, ownSourceOrders: round6(credit.ownOrders), ownSourceRevenueMinor: roundMinor(credit.ownRevenue),
      spendMinor, roas: roas(revenueMinor, spendMinor), cac: cacOf(spendMinor, credit.orders),
      platformConversions: round6(s?.platformConversions ?? 0), platformReportedRevenueMinor: roundMinor(s?.platformRevenue ?? 0),
    };
  }).filter((row) => row.orders !== 0 || row.revenueMinor !== 0 || row.spendMinor !== 0 || row.platformReportedRevenueMinor !== 0)
    .sort((a, b) => b.revenueMinor - a.revenueMinor || a.channel.localeCompare(b.channel));
  const campaignRows = groups.filter((group) => group.campaign !== '').map((group) => {
    const match = spendByName.get(`${group.channel}\u0000${group.campaign.toLowerCase()}`);
    const revenueMinor = roundMinor(group.revenue);
    const spendMinor = roundMinor(match?.spend ?? 0);
    return {
      channel: group.channel, campaign: group.campaign, orders: round6(group.orders), revenueMinor, ownSourceOrders: round6(group.ownOrders), ownSourceRevenueMinor: roundMinor(group.ownRevenue),
      spendMinor, roas: roas(revenueMinor, spendMinor), cac: cacOf(spendMinor, group.orders),
      platformConversions: round6(match?.platformConversions ?? 0), platformReportedRevenueMinor: roundMinor(match?.platformRevenue ?? 0),
    };
  }).filter((row) => row.orders !== 0 || row.revenueMinor !== 0).sort((a, b) => b.revenueMinor - a.revenueMinor || a.campaign.localeCompare(b.campaign));
  // The total is the exact sum of the credits (each channel rounded on its own could be a cent off).
  const total = groups.reduce((sum, group) => ({ revenue: sum.revenue + group.revenue, orders: sum.orders + group.orders, ownRevenue: sum.ownRevenue + group.ownRevenue, ownOrders: sum.ownOrders + group.ownOrders }), { revenue: 0, orders: 0, ownRevenue: 0, ownOrders: 0 });
  return {
    from: range.from, to: range.to,
    total: {
      orders: round6(total.orders), revenueMinor: roundMinor(total.revenue), spendMinor: roundMinor([...spend.values()].reduce((sum, row) => sum + row.spend, 0)),
      ownSourceOrders: round6(total.ownOrders), ownSourceRevenueMinor: roundMinor(total.ownRevenue),
    },
    channels,
    campaigns: campaignRows,
  };
}

/**
 * The report of one model: channels, campaigns (unless `campaigns: false`: an empty list, for GET
 * /api/attribution, which does not show them) and the comparison period, read at the same time.
 */
export async function attributionReport(
  em: EntityManager,
  store: StoreRef,
  input: { from: string; to: string; model: AttributionModel; window?: number; compare?: Comparison },
  options: { campaigns?: boolean; months?: boolean } = {},
): Promise<AttributionReportOutput> {
  const q = sqlRunner(em);
  const windowDays = await windowOf(q, store.id, input.window);
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare ?? 'none');
  const rollups = await rollupsHold(q, store.id, windowDays);
  const periodOptions = { campaigns: options.campaigns ?? true, rollups, months: options.months };
  const [current, previous] = await Promise.all([
    period(em, store, range, input.model, windowDays, periodOptions),
    previousRange ? period(em, store, previousRange, input.model, windowDays, periodOptions) : null,
  ]);
  return { currency: store.currency, model: input.model, window: windowDays, fromRollups: rollups, current, previous };
}

export async function modelsSideBySide(em: EntityManager, store: StoreRef, input: { from: string; to: string; window?: number }, options: { months?: boolean } = {}) {
  const windowDays = await windowOf(sqlRunner(em), store.id, input.window);
  const channels = new Map<string, Record<string, { orders: number; revenueMinor: number }>>();
  for (const group of await creditGroups(em, store, input, windowDays, undefined, options)) {
    const models = channels.get(group.channel) ?? Object.fromEntries(ATTRIBUTION_MODELS.map((model) => [model, { orders: 0, revenueMinor: 0 }]));
    models[group.model]!.orders += group.orders;
    models[group.model]!.revenueMinor += group.revenue;
    channels.set(group.channel, models);
  }
  return {
    currency: store.currency,
    window: windowDays,
    channels: [...channels.entries()]
      .map(([channel, models]) => ({ channel, models: Object.fromEntries(Object.entries(models).map(([model, v]) => [model, { orders: round6(v.orders), revenueMinor: roundMinor(v.revenueMinor) }])) }))
      .filter((row) => Object.values(row.models).some((v) => v.orders !== 0 || v.revenueMinor !== 0))
      .sort((a, b) => (b.models.last_click?.revenueMinor ?? 0) - (a.models.last_click?.revenueMinor ?? 0) || a.channel.localeCompare(b.channel)),
  };
}

interface PathJourney {
  placedAt: number;
  /** Net of all its refunds, in the store's currency (minor, unrounded). */
  revenue: number;
  channel: string;
  touchpoints: Touchpoint[];
}

/** The journeys of the counting orders placed in the range: the stored ones for the store's window, else computed now. */
async function placedJourneys(em: EntityManager, store: StoreRef, range: DayRange, windowDays: number): Promise<PathJourney[]> {
  const q = sqlRunner(em);
  let rows: { placedAt: number; placedDay: string; currency: string; revenue: number; channel: string; touchpoints: Touchpoint[] }[];
  if (await rollupsHold(q, store.id, windowDays)) {
    rows = (
      await q.rows<{ placed_at: Date; placed_day: string; currency: string; revenue: string; channel: string; touchpoints: Touchpoint[] }>(
        `select placed_at, to_char(placed_day, 'YYYY-MM-DD') as placed_day, currency, (revenue_minor - refunded_minor)::text as revenue, channel, touchpoints
           from attribution_orders where store_id = $1 and window_days = $2 and placed_day between $3::date and $4::date`,
        [store.id, windowDays, range.from, range.to],
      )
    ).map((row) => ({ placedAt: new Date(row.placed_at).getTime(), placedDay: row.placed_day, currency: row.currency, revenue: num(row.revenue), channel: row.channel, touchpoints: row.touchpoints }));
  } else {
    rows = (await journeysOfRange(q, store.id, range, windowDays))
      .filter((journey) => journey.placedDay >= range.from && journey.placedDay <= range.to)
      .map((journey) => ({ ...journey, touchpoints: [...journey.touchpoints], revenue: journey.revenueMinor - journey.refunds.reduce((sum, r) => sum + r.amountMinor, 0) }));
  }
  const foreign = rows.filter((row) => row.currency !== store.currency);
  const fx = foreign.length > 0 ? await loadFxRates(em, [store.currency, ...foreign.map((row) => row.currency)], range.from, range.to) : null;
  return rows.map((row) => ({
    placedAt: row.placedAt, channel: row.channel, touchpoints: row.touchpoints,
    revenue: row.currency === store.currency ? row.revenue : fx!.convertExact(row.revenue, row.currency, store.currency, row.placedDay),
  }));
}

/** The most frequent conversion paths (channels in order, repeats in a row merged; an order without touchpoint: its own source). */
export async function topPaths(em: EntityManager, store: StoreRef, input: { from: string; to: string; window?: number }, limit = 20) {
  const windowDays = await windowOf(sqlRunner(em), store.id, input.window);
  const paths = new Map<string, { path: string[]; ownSource: boolean; orders: number; revenue: number }>();
  for (const journey of await placedJourneys(em, store, input, windowDays)) {
    const ownSource = journey.touchpoints.length === 0;
    const path = ownSource ? [journey.channel] : journey.touchpoints.map((t) => t.channel).filter((channel, index, all) => index === 0 || all[index - 1] !== channel);
    const key = `${ownSource ? 'own' : 'tp'}:${path.join('>')}`;
    const entry = paths.get(key) ?? { path, ownSource, orders: 0, revenue: 0 };
    entry.orders += 1;
    entry.revenue += journey.revenue;
    paths.set(key, entry);
  }
  return {
    currency: store.currency,
    window: windowDays,
    paths: [...paths.values()]
      .sort((a, b) => b.orders - a.orders || b.revenue - a.revenue)
      .slice(0, limit)
      .map((entry) => ({
        path: entry.path,
        ownSource: entry.ownSource,
        label: `${entry.path.map(channelName).join(' → ')}${entry.ownSource ? " (order's own source)" : ''}`,
        orders: entry.orders,
        revenueMinor: roundMinor(entry.revenue),
      })),
  };
}

const TIME_BUCKETS = [[0, 1, '0'], [1, 2, '1'], [2, 4, '2-3'], [4, 8, '4-7'], [8, 15, '8-14'], [15, 31, '15-30'], [31, 61, '31-60'], [61, 91, '61-90']] as const;

/** Orders by days from their first touchpoint, and by number of touchpoints (orders without one: '0'). */
export async function distributions(em: EntityManager, store: StoreRef, input: { from: string; to: string; window?: number }) {
  const windowDays = await windowOf(sqlRunner(em), store.id, input.window);
  const time = new Map<string, number>(TIME_BUCKETS.map(([, , label]) => [label, 0]));
  const counts = new Map<string, number>(['0', '1', '2', '3', '4', '5', '6+'].map((label) => [label, 0]));
  for (const journey of await placedJourneys(em, store, input, windowDays)) {
    const n = journey.touchpoints.length;
    const countLabel = n >= 6 ? '6+' : String(n);
    counts.set(countLabel, counts.get(countLabel)! + 1);
    if (n === 0) continue;
    const days = Math.floor((journey.placedAt - journey.touchpoints[0]!.at) / DAY_MS);
    const bucket = TIME_BUCKETS.find(([low, high]) => days >= low && days < high);
    if (bucket) time.set(bucket[2], time.get(bucket[2])! + 1);
  }
  return {
    window: windowDays,
    timeToConversion: [...time.entries()].map(([bucket, orders]) => ({ bucket, orders })),
    touchpointsPerOrder: [...counts.entries()].map(([bucket, orders]) => ({ bucket, orders })),
  };
}

/** One order's visits (the 90 days before it) on a timeline, those in the window marked, and its credits under every model. */
export async function journey(em: EntityManager, store: StoreRef, orderId: number, windowInput?: number) {
  const q = sqlRunner(em);
  const windowDays = await windowOf(q, store.id, windowInput);
  const [order] = await q.rows<{ external_id: string; placed_at: Date; currency: string; channel: string }>(
    `select external_id, placed_at, currency, channel from orders where store_id = $1 and id = $2`,
    [store.id, orderId],
  );
  if (!order) throw new AppError('NOT_FOUND', 'Order not found');
  const [wide] = await loadJourneys(q, store.id, [String(orderId)], windowDays);
  const visits = await visitorTouchpoints(q, store.id, [String(orderId)], 90);
  const placedAt = new Date(order.placed_at).getTime();
  const credits: Record<string, { channel: string; campaign: string; share: number; revenueMinor: number }[]> = {};
  if (wide) {
    for (const model of ATTRIBUTION_MODELS) {
      credits[model] = orderCredits(model, wide, windowDays)
        .filter((row) => row.day === wide.placedDay)
        .map((row) => ({ channel: row.channel, campaign: row.campaign, share: row.ordersMillionths / 1e6, revenueMinor: row.revenueMinor }));
    }
  }
  return {
    orderId,
    externalId: order.external_id,
    placedAt: new Date(order.placed_at).toISOString(),
    currency: order.currency,
    revenueMinor: wide?.revenueMinor ?? 0,
    ownChannel: order.channel,
    window: windowDays,
    visits: visits.map((visit) => ({
      at: new Date(visit.at).toISOString(), channel: visit.channel, campaign: visit.campaign || null, referrerHost: visit.referrer_host, landingUrl: visit.landing_url,
      inWindow: new Date(visit.at).getTime() >= placedAt - windowDays * DAY_MS,
    })),
    credits,
  };
}
