import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnomalyItem, AnomalyList, AnomalyMetric, AnomalySeverity, AnomalyState } from '../../../shared/anomalies.ts';
import { countingOrderSql } from '../../../shared/commerce-constants.ts';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import { AppError } from '../../errors.ts';
import { loadFxRates } from '../commerce/fx.ts';
import { sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { Store } from '../stores/store.entity.ts';
import { sendAnomalyAlert, type AnomalyAlertResult } from './anomaly-alerts.ts';
import {
  changeParam, detectDay, newEpisodes, scopeKeyOf, storeContextOf, storeSeries, type ChannelDay, type PriorAlert, type StoreData, type StoreDay,
} from './detect.ts';
import { BASELINE_DAYS, EPISODE_DAYS, EVIDENCE_DAYS, eventOffset, isHoliday, judgeDay, type Finding, type MetricSeries } from './engine.ts';

// Anomaly detection for one store (README, "Anomaly insights"): read the rollups into daily series,
// judge the settled days and today so far, store the findings (one row per metric, scope and day,
// the state kept), and the list, acknowledge and resolve the dashboard's panel and /api/anomalies use.

/** A day is settled once it ended this many hours ago in the store's time zone and no sync of the store is queued or running. */
export const SETTLE_HOURS = 6;
/** Settled days judged on each run (the newest and the two before, so a run missed or a late sync is caught up). */
export const DAYS_PER_RUN = 3;
/** Intra-day: judged once the store's day is this many hours old, and only with at least this many orders expected so far. */
export const INTRADAY_MIN_HOUR = 10;
export const INTRADAY_MIN_ORDERS = 20;

const SEVERITY_RANK = { high: 0, medium: 1, low: 2 } as const;

interface StoreRow {
  id: number;
  name: string;
  currency: string;
  timezone: string;
}

/** The store's daily figures from `from` to `to` in its currency: daily_rollups, channel_daily_rollups, ad_metrics_daily and pixel purchases. */
export async function loadStoreData(em: EntityManager, store: StoreRow, from: string, to: string): Promise<StoreData> {
  const q = sqlRunner(em);
  const [daily, channels, campaigns, pixel] = await Promise.all([
    q.rows<{ day: string; currency: string; orders: number; net: number; refunds: number; new_orders: number; new_customers: number; spend: number; ad_spend: number }>(
      `select to_char(day, 'YYYY-MM-DD') as day, currency, orders_count as orders, net_sales_minor::float8 as net, refunds_minor::float8 as refunds,
              new_customer_orders as new_orders, new_customers, spend_minor::float8 as spend, ad_spend_minor::float8 as ad_spend
         from daily_rollups where store_id = $1 and day between $2::date and $3::date`,
      [store.id, from, to],
    ),
    q.rows<{ day: string; channel: string; currency: string; orders: number; net: number; new_customers: number; spend: number }>(
      `select to_char(day, 'YYYY-MM-DD') as day, channel, currency, orders_count as orders, net_sales_minor::float8 as net, new_customers, spend_minor::float8 as spend
         from channel_daily_rollups where store_id = $1 and day between $2::date and $3::date`,
      [store.id, from, to],
    ),
    q.rows<{ day: string; platform: string; campaign_id: string; name: string; currency: string; spend: number; conversions: number; value: number }>(
      `select to_char(m.day, 'YYYY-MM-DD') as day, m.platform, m.campaign_id, m.campaign_name as name, m.currency, m.spend_minor::float8 as spend,
              m.conversions, m.conversion_value_minor::float8 as value
         from ad_metrics_daily m
        where m.store_id = $1 and m.day between $2::date and $3::date
          and exists (select 1 from ad_metrics_daily r where r.store_id = m.store_id and r.platform = m.platform and r.account_id = m.account_id
                         and r.campaign_id = m.campaign_id and r.day > $3::date - 28 and r.day <= $3::date and r.spend_minor > 0)`,
      [store.id, from, to],
    ),
    pixelPurchasesByDay(q, store, from, to),
  ]);
  const currencies = new Set([...daily, ...channels, ...campaigns].map((row) => row.currency));
  const fx = currencies.size === 0 || (currencies.size === 1 && currencies.has(store.currency)) ? null : await loadFxRates(em, [...currencies, store.currency], from, to);
  const factor = (currency: string, day: string) => (currency === store.currency || !fx ? 1 : fx.factor(currency, store.currency, day));

  const data: StoreData = { storeName: store.name, store: new Map(), channels: new Map(), campaigns: new Map(), pixelPurchases: pixel };
  for (const row of daily) {
    const f = factor(row.currency, row.day);
    const day = data.store.get(row.day) ?? { orders: 0, netSalesMinor: 0, refundsMinor: 0, newCustomerOrders: 0, newCustomers: 0, spendMinor: 0, adSpendMinor: 0 };
    day.orders += row.orders;
    day.netSalesMinor += row.net * f;
    day.refundsMinor += row.refunds * f;
    day.newCustomerOrders += row.new_orders;
    day.newCustomers += row.new_customers;
    day.spendMinor += row.spend * f;
    day.adSpendMinor += row.ad_spend * f;
    data.store.set(row.day, day);
  }
  for (const row of channels) {
    const f = factor(row.currency, row.day);
    const days = data.channels.get(row.channel) ?? new Map<string, ChannelDay>();
    const day = days.get(row.day) ?? { orders: 0, netSalesMinor: 0, newCustomers: 0, spendMinor: 0 };
    day.orders += row.orders;
    day.netSalesMinor += row.net * f;
    day.newCustomers += row.new_customers;
    day.spendMinor += row.spend * f;
    days.set(row.day, day);
    data.channels.set(row.channel, days);
  }
  for (const row of campaigns) {
    const f = factor(row.currency, row.day);
    const key = `${row.platform}:${row.campaign_id}`;
    const campaign = data.campaigns.get(key) ?? { channel: row.platform, campaignId: row.campaign_id, name: row.name, days: new Map() };
    const day = campaign.days.get(row.day) ?? { spendMinor: 0, conversions: 0, conversionValueMinor: 0 };
    day.spendMinor += row.spend * f;
    day.conversions += Number(row.conversions);
    day.conversionValueMinor += row.value * f;
    campaign.days.set(row.day, day);
    data.campaigns.set(key, campaign);
  }
  fillMissingDays(data, from, to);
  return data;
}

/** A day without a rollup row had nothing: zeros (so a channel whose orders stopped reads 0, not "unknown"). */
function fillMissingDays(data: StoreData, from: string, to: string): void {
  const firstDay = [...data.store.keys()].sort()[0];
  if (!firstDay) return;
  for (let day = firstDay > from ? firstDay : from; day <= to; day = addDays(day, 1)) {
    if (!data.store.has(day)) data.store.set(day, { orders: 0, netSalesMinor: 0, refundsMinor: 0, newCustomerOrders: 0, newCustomers: 0, spendMinor: 0, adSpendMinor: 0 });
    for (const days of data.channels.values()) if (!days.has(day)) days.set(day, { orders: 0, netSalesMinor: 0, newCustomers: 0, spendMinor: 0 });
  }
}

/** Pixel purchases per day of the store's zone; null when the store has none in the period (no tracking installed). */
async function pixelPurchasesByDay(q: SqlRunner, store: StoreRow, from: string, to: string): Promise<Map<string, number> | null> {
  const rows = await q.rows<{ day: string; n: number }>(
    `select to_char((occurred_at at time zone $2)::date, 'YYYY-MM-DD') as day, count(*)::int as n
       from tracking_purchases
      where store_id = $1 and occurred_at >= ($3::date::timestamp at time zone $2) and occurred_at < (($4::date + 1)::timestamp at time zone $2)
      group by 1`,
    [store.id, store.timezone, from, to],
  );
  return rows.length === 0 ? null : new Map(rows.map((row) => [row.day, row.n]));
}

/** The newest settled day of the store at `now`, or null while a sync of the store is queued or running. */
export async function newestSettledDay(em: EntityManager, store: StoreRow, now: Date): Promise<string | null> {
  const [pending] = await sqlRunner(em).rows<{ n: number }>(`select count(*)::int as n from sync_runs where store_id = $1 and status in ('queued', 'running')`, [store.id]);
  if (pending!.n > 0) return null;
  // Day D ended at the start of D + 1; it is settled SETTLE_HOURS later.
  return addDays(dayInZone(new Date(now.getTime() - SETTLE_HOURS * 3_600_000), store.timezone), -1);
}

/** Money is stored and shown in the currency's units (decimals); counts and ratios as they are. */
const displayValue = (finding: Pick<Finding, 'kind' | 'metric'>, value: number) =>
  finding.kind === 'money' ? Math.round(value) / 100 : Math.round(value * 10_000) / 10_000;

async function priorAlerts(q: SqlRunner, storeId: number, from: string): Promise<(PriorAlert & { severity: AnomalySeverity })[]> {
  const rows = await q.rows<{ metric: AnomalyMetric; scope_key: string; day: string; up: boolean; severity: AnomalySeverity }>(
    `select metric, scope_key, to_char(day, 'YYYY-MM-DD') as day, detected_value > expected_value as up, severity from anomalies where store_id = $1 and day >= $2::date`,
    [storeId, from],
  );
  return rows.map((row) => ({ metric: row.metric, scopeKey: row.scope_key, day: row.day, up: row.up, severity: row.severity }));
}

interface StoredFindings {
  written: number;
  /** Rows that became high severity in this run (inserted high, or raised to high): the e-mail alert's candidates. */
  newlyHigh: string[];
}

/**
 * Stores findings: a new (store, metric, scope, day) is inserted unless it continues an episode; one
 * already stored gets the new figures and keeps its state (resolved stays resolved).
 */
async function storeFindings(q: SqlRunner, storeId: number, findings: Finding[], intraday: boolean, now: Date): Promise<StoredFindings> {
  const stored: StoredFindings = { written: 0, newlyHigh: [] };
  if (findings.length === 0) return stored;
  const days = findings.map((finding) => finding.day).sort();
  const prior = await priorAlerts(q, storeId, addDays(days[0]!, -EPISODE_DAYS));
  const existing = new Map(prior.map((alert) => [`${alert.metric}|${alert.scopeKey}|${alert.day}`, alert.severity]));
  const fresh = new Set(newEpisodes(findings, prior));
  for (const finding of findings) {
    const scopeKey = scopeKeyOf(finding.scope);
    const key = `${finding.metric}|${scopeKey}|${finding.day}`;
    if (!fresh.has(finding) && !existing.has(key)) continue;
    const [row] = await q.rows<{ id: string }>(
      `insert into anomalies (store_id, metric, scope_level, scope_key, channel, campaign_id, scope_label, day, intraday, detected_value, expected_value,
                              percent_change, robust_z, severity, recommendation_code, recommendation_params, evidence, detected_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8::date, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17::jsonb, $18)
       on conflict (store_id, metric, scope_key, day) do update set
         intraday = excluded.intraday, detected_value = excluded.detected_value, expected_value = excluded.expected_value,
         percent_change = excluded.percent_change, robust_z = excluded.robust_z, severity = excluded.severity, scope_label = excluded.scope_label,
         recommendation_code = excluded.recommendation_code, recommendation_params = excluded.recommendation_params, evidence = excluded.evidence
       returning id::text as id`,
      [
        storeId, finding.metric, finding.scope.level, scopeKey, finding.scope.channel, finding.scope.campaignId, finding.scope.label.slice(0, 255), finding.day, intraday,
        displayValue(finding, finding.value), displayValue(finding, finding.expected), finding.percentChange, finding.robustZ, finding.severity,
        finding.recommendation.code, JSON.stringify(finding.recommendation.params), JSON.stringify(finding.evidence), now,
      ],
    );
    stored.written += 1;
    if (finding.severity === 'high' && existing.get(key) !== 'high') stored.newlyHigh.push(row!.id);
  }
  return stored;
}

/** Today so far (orders and net sales placed before this hour of the store's day) per day of the baseline, from the orders. */
async function intradaySeries(q: SqlRunner, store: StoreRow, today: string, minutesIntoDay: number): Promise<StoreData['store']> {
  const from = addDays(today, -BASELINE_DAYS);
  const rows = await q.rows<{ day: string; orders: number; net: number; currency: string }>(
    `select to_char(placed_day, 'YYYY-MM-DD') as day, currency, count(*)::int as orders, sum(gross_minor - discounts_minor)::float8 as net
       from orders
      where store_id = $1 and placed_at >= ($3::date::timestamp at time zone $2) and placed_at < (($4::date + 1)::timestamp at time zone $2)
        and ${countingOrderSql()}
        and extract(epoch from (placed_at at time zone $2)::time) < $5 * 60
      group by 1, 2`,
    [store.id, store.timezone, from, today, minutesIntoDay],
  );
  const days: StoreData['store'] = new Map();
  for (let day = from; day <= today; day = addDays(day, 1)) days.set(day, { orders: 0, netSalesMinor: 0, refundsMinor: 0, newCustomerOrders: 0, newCustomers: 0, spendMinor: 0, adSpendMinor: 0 });
  for (const row of rows) {
    const day = days.get(row.day)!;
    day.orders += row.orders;
    if (row.currency === store.currency) day.netSalesMinor += row.net;
  }
  return days;
}

export interface DetectOptions {
  /** Where the alert e-mail's dashboard link points (the job's base URL). */
  publicUrl?: string | null;
  log?: (message: string) => void;
}

/**
 * Runs detection for one store: the settled days not yet judged (up to DAYS_PER_RUN) and today so
 * far. Idempotent. Findings that became high severity in this run are e-mailed when the store's alert
 * setting is on (sendAnomalyAlert records each anomaly it sent, so none is sent twice).
 */
export async function detectStore(em: EntityManager, storeId: number, now: Date = new Date(), options: DetectOptions = {}): Promise<{ findings: number; days: string[]; alert: AnomalyAlertResult | null }> {
  const q = sqlRunner(em);
  const [store] = await q.rows<StoreRow>(`select id, name, currency, timezone from stores where id = $1`, [storeId]);
  if (!store) return { findings: 0, days: [], alert: null };
  const settled = await newestSettledDay(em, store, now);
  let written = 0;
  const newlyHigh: string[] = [];
  const judged: string[] = [];
  const keep = (stored: StoredFindings) => {
    written += stored.written;
    newlyHigh.push(...stored.newlyHigh);
  };
  if (settled) {
    const days = Array.from({ length: DAYS_PER_RUN }, (_, index) => addDays(settled, index - DAYS_PER_RUN + 1));
    const needsLastYear = days.some((day) => eventOffset(day) !== null || isHoliday(day));
    const from = addDays(days[0]!, -(needsLastYear ? 366 + BASELINE_DAYS + 7 : BASELINE_DAYS + EVIDENCE_DAYS));
    const data = await loadStoreData(em, store, from, settled);
    if (data.store.size > 0) {
      const scopes = storeSeries(data, storeContextOf(data, settled));
      for (const day of days) {
        if (!data.store.has(day)) continue;
        keep(await storeFindings(q, store.id, detectDay(data, day, scopes), false, now));
        judged.push(day);
      }
    }
    keep(await detectIntraday(q, store, now));
  }
  await q.run(
    `insert into anomaly_checks (store_id, checked_at, last_settled_day) values ($1, $2, $3::date)
     on conflict (store_id) do update set checked_at = excluded.checked_at, last_settled_day = coalesce(excluded.last_settled_day, anomaly_checks.last_settled_day)`,
    [store.id, now, settled],
  );
  const alert = newlyHigh.length === 0 ? null : await sendAnomalyAlert(em, await em.findOneOrFail(Store, store.id), await Promise.all(newlyHigh.map((id) => getAnomaly(em, store.id, id))), options);
  return { findings: written, days: judged, alert };
}

/** Today so far against the same hours of the baseline days, for the store's orders and net sales. */
async function detectIntraday(q: SqlRunner, store: StoreRow, now: Date): Promise<StoredFindings> {
  const today = dayInZone(now, store.timezone);
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone: store.timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(now);
  const minutesIntoDay = Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));
  if (minutesIntoDay < INTRADAY_MIN_HOUR * 60) return { written: 0, newlyHigh: [] };
  const days = await intradaySeries(q, store, today, minutesIntoDay);
  const scope = { level: 'store' as const, channel: null, campaignId: null, label: store.name };
  const orders: MetricSeries = { metric: 'orders', scope, kind: 'count', direction: 'both', values: new Map([...days].map(([day, figures]) => [day, figures.orders])) };
  const net: MetricSeries = { metric: 'net_sales', scope, kind: 'money', direction: 'both', values: new Map([...days].map(([day, figures]) => [day, figures.netSalesMinor])) };
  const typical = [...days.values()].slice(0, -1).reduce((sum, day) => sum + day.orders, 0) / BASELINE_DAYS;
  if (typical < INTRADAY_MIN_ORDERS) return { written: 0, newlyHigh: [] };
  const context = { averageDailyNetSalesMinor: [...days.values()].slice(0, -1).reduce((sum, day) => sum + day.netSalesMinor, 0) / BASELINE_DAYS };
  const findings: Finding[] = [];
  for (const series of [orders, net]) {
    const finding = judgeDay(series, today, context);
    if (finding) {
      const up = finding.value > finding.expected;
      findings.push({ ...finding, recommendation: { code: up ? 'find_growth_source' : 'check_checkout_stock', params: { scope: store.name, change: changeParam(finding.percentChange, false) } } });
    }
  }
  return storeFindings(q, store.id, findings, true, now);
}

/** Every store with data in the last two weeks, one after the other (the hourly schedule). */
export async function detectAllStores(fork: () => EntityManager, log: (message: string) => void, now: Date = new Date(), publicUrl: string | null = null): Promise<number> {
  const stores = await sqlRunner(fork()).rows<{ id: number }>(`select distinct store_id as id from daily_rollups where day >= current_date - 14 order by 1`);
  let findings = 0;
  for (const store of stores) {
    try {
      findings += (await detectStore(fork(), store.id, now, { publicUrl, log })).findings;
    } catch (error) {
      log(`Anomaly detection for store ${store.id} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// Reading and changing states

interface AnomalyRow {
  id: string;
  metric: AnomalyItem['metric'];
  scope_level: AnomalyItem['scope']['level'];
  channel: string | null;
  campaign_id: string | null;
  scope_label: string;
  day: string;
  intraday: boolean;
  detected_value: number;
  expected_value: number;
  percent_change: number | null;
  severity: AnomalyItem['severity'];
  recommendation_code: string;
  recommendation_params: Record<string, string | number>;
  evidence: AnomalyItem['evidence'];
  state: AnomalyState;
  state_changed_by: string | null;
  state_changed_at: Date | null;
  detected_at: Date;
}

const ROW_COLUMNS = `a.id::text as id, a.metric, a.scope_level, a.channel, a.campaign_id, a.scope_label, to_char(a.day, 'YYYY-MM-DD') as day, a.intraday,
  a.detected_value, a.expected_value, a.percent_change, a.severity, a.recommendation_code, a.recommendation_params, a.evidence, a.state,
  a.state_changed_by_id::text as state_changed_by, a.state_changed_at, a.detected_at`;

function itemOf(row: AnomalyRow): AnomalyItem {
  return {
    id: row.id, metric: row.metric,
    scope: { level: row.scope_level, channel: row.channel, campaignId: row.campaign_id, label: row.scope_label },
    day: row.day, intraday: row.intraday, detectedValue: Number(row.detected_value), expectedValue: Number(row.expected_value),
    percentChange: row.percent_change === null ? null : Number(row.percent_change), severity: row.severity,
    recommendation: { code: row.recommendation_code, params: row.recommendation_params }, evidence: row.evidence, state: row.state,
    detectedAt: new Date(row.detected_at).toISOString(), stateChangedBy: row.state_changed_by,
    stateChangedAt: row.state_changed_at ? new Date(row.state_changed_at).toISOString() : null,
  };
}

/** Days of anomalies the panel lists. */
export const LIST_DAYS = 30;

/**
 * The store's anomalies of the last LIST_DAYS days, newest day first and within a day the most severe
 * first; resolved ones stay listed (with their state) but only unresolved ones make the status 'detected'.
 */
export async function listAnomalies(
  em: EntityManager,
  store: { id: number; timezone: string },
  options: { includeResolved?: boolean; now?: Date } = {},
): Promise<AnomalyList> {
  const q = sqlRunner(em);
  const since = addDays(dayInZone(options.now ?? new Date(), store.timezone), -LIST_DAYS);
  const rows = await q.rows<AnomalyRow>(
    `select ${ROW_COLUMNS} from anomalies a where a.store_id = $1 and a.day >= $2::date and ($3::boolean or a.state <> 'resolved')
      order by a.day desc, case a.severity when 'high' then 0 when 'medium' then 1 else 2 end, abs(a.robust_z) desc, a.id desc limit 100`,
    [store.id, since, options.includeResolved ?? true],
  );
  const [check] = await q.rows<{ checked_at: Date }>(`select checked_at from anomaly_checks where store_id = $1`, [store.id]);
  const items = rows.map(itemOf);
  items.sort((a, b) => (a.day === b.day ? SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] : a.day < b.day ? 1 : -1));
  return { status: items.some((item) => item.state !== 'resolved') ? 'detected' : 'normal', items, checkedAt: check ? new Date(check.checked_at).toISOString() : null };
}

export const ANOMALY_NOT_FOUND_MESSAGE = 'Anomaly not found';

/** One of the store's anomalies (another store's id, or no such id: not found). */
export async function getAnomaly(em: EntityManager, storeId: number, id: string): Promise<AnomalyItem> {
  if (!/^\d{1,18}$/.test(id)) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  const [row] = await sqlRunner(em).rows<AnomalyRow>(`select ${ROW_COLUMNS} from anomalies a where a.store_id = $1 and a.id = $2::bigint`, [storeId, id]);
  if (!row) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  return itemOf(row);
}

/** Acknowledges or resolves one of the store's anomalies (another store's id: not found); returns it. */
export async function setAnomalyState(em: EntityManager, storeId: number, id: string, state: Exclude<AnomalyState, 'new'>, userId: number): Promise<AnomalyItem> {
  if (!/^\d{1,18}$/.test(id)) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  const q = sqlRunner(em);
  // Resolved is final; acknowledging a resolved anomaly leaves it resolved.
  const rows = await q.rows<AnomalyRow>(
    `update anomalies a set state = $3, state_changed_by_id = $4, state_changed_at = now()
      where a.store_id = $1 and a.id = $2::bigint and not (a.state = 'resolved' and $3 = 'acknowledged')
      returning ${ROW_COLUMNS}`,
    [storeId, id, state, userId],
  );
  if (rows[0]) return itemOf(rows[0]);
  const [existing] = await q.rows<AnomalyRow>(`select ${ROW_COLUMNS} from anomalies a where a.store_id = $1 and a.id = $2::bigint`, [storeId, id]);
  if (!existing) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  return itemOf(existing);
}
