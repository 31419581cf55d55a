import type { EntityManager } from '@mikro-orm/postgresql';
import { csvDocument } from '../../../shared/csv.ts';
import {
  DEFAULT_ALERT_THRESHOLD_PERCENT,
  differencePercent,
  PRICE_CHECK_INTERVAL_HOURS,
  undercuts,
  type AddTrackedUrlInput,
  type CompetitorRow,
  type OwnProductInput,
  type PriceAlert,
  type PriceAvailability,
  type PriceCheckError,
  type PriceExtractionMethod,
  type PriceHistory,
  type PriceTrackerList,
  type TrackedProductRow,
} from '../../../shared/price-tracker.ts';
import { AppError } from '../../errors.ts';
import { FxRateMissingError, loadFxRates, type FxRates } from '../commerce/fx.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { fetchPage, PageFetchError } from '../page-fetcher/page-fetcher.ts';
import { crawlPacer, type DomainPacer } from '../page-fetcher/politeness.ts';
import { extractPrice, isUsableSelector } from './price-extraction.ts';
import { sendPriceAlertEmail } from './price-alert-email.ts';

// The competitor price tracker's rules (README, "Competitor price tracker"). Every query names the
// caller's store id; a tracked page of another store is "not found". Checks go through the fetcher
// (page-fetcher.ts: address checks, 5 MB, HTML only), one request per domain per 10 s (the shared
// pacer), robots.txt obeyed for scheduled checks.

export const TRACKED_URL_NOT_FOUND_MESSAGE = 'Tracked page not found';
export const PRODUCT_NOT_FOUND_MESSAGE = 'Product not found in this store';
export const DUPLICATE_URL_MESSAGE = 'This page is already tracked';
export const BAD_SELECTOR_MESSAGE = 'This CSS selector is not valid';

export interface StoreRef {
  id: number;
  currency: string;
}

export interface CheckOptions {
  /** Scheduled checks obey robots.txt; a check the user asks for reads the page as their browser would. */
  respectRobots: boolean;
  pacer?: DomainPacer;
  log?: (message: string) => void;
}

interface TrackedRow {
  id: string;
  url: string;
  domain: string;
  productId: number | null;
  ownName: string;
  ownPriceMinor: number | null;
  ownCurrency: string | null;
  cssSelector: string | null;
  alertThresholdPercent: number;
  alertOutOfStock: boolean;
  emailAlerts: boolean;
  status: 'pending' | 'ok' | 'error';
  errorReason: PriceCheckError | null;
  errorDetail: string | null;
  errorStatus: number | null;
  priceMinor: number | null;
  currency: string | null;
  availability: PriceAvailability | null;
  method: PriceExtractionMethod | null;
  lastCheckedAt: string | null;
  nextCheckAt: string;
}

// Own price: the linked product's current price (in its currency), else the price typed in (store currency).
const TRACKED_SELECT = `
  select t.id::text as id, t.url, t.domain, t.product_id::int as "productId",
         coalesce(p.title, t.own_name) as "ownName",
         (case when t.product_id is null then t.own_price_minor else p.price_minor end)::float8 as "ownPriceMinor",
         (case when t.product_id is null then s.currency else p.currency end) as "ownCurrency",
         t.css_selector as "cssSelector", t.alert_threshold_percent::float8 as "alertThresholdPercent",
         t.alert_out_of_stock as "alertOutOfStock", t.email_alerts as "emailAlerts", t.status,
         t.error_reason as "errorReason", t.error_detail as "errorDetail", t.error_status as "errorStatus", t.price_minor::float8 as "priceMinor",
         t.currency, t.availability, t.method,
         to_char(t.last_checked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "lastCheckedAt",
         to_char(t.next_check_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "nextCheckAt"
    from price_tracked_urls t
    join stores s on s.id = t.store_id
    left join products p on p.store_id = t.store_id and p.id = t.product_id`;

async function trackedRows(em: EntityManager, storeId: number, id?: string): Promise<TrackedRow[]> {
  const rows = await sqlRunner(em).rows<TrackedRow>(
    `${TRACKED_SELECT} where t.store_id = $1 ${id === undefined ? '' : 'and t.id = $2::bigint'} order by t.created_at, t.id`,
    id === undefined ? [storeId] : [storeId, id],
  );
  return rows.map((row) => ({ ...row, ownPriceMinor: row.ownPriceMinor === null ? null : Number(row.ownPriceMinor), priceMinor: row.priceMinor === null ? null : Number(row.priceMinor) }));
}

async function trackedRow(em: EntityManager, storeId: number, id: string): Promise<TrackedRow> {
  if (!/^\d{1,18}$/.test(id)) throw new AppError('NOT_FOUND', TRACKED_URL_NOT_FOUND_MESSAGE);
  const [row] = await trackedRows(em, storeId, id);
  if (!row) throw new AppError('NOT_FOUND', TRACKED_URL_NOT_FOUND_MESSAGE);
  return row;
}

const today = () => new Date().toISOString().slice(0, 10);

/** An amount in the store's currency at today's rate; null when no rate is known for the currency. */
function inStoreCurrency(fx: FxRates, amountMinor: number | null, from: string | null, storeCurrency: string): number | null {
  if (amountMinor === null) return null;
  try {
    return fx.convert(amountMinor, from ?? storeCurrency, storeCurrency, today());
  } catch (error) {
    if (error instanceof FxRateMissingError) return null;
    throw error;
  }
}

async function fxFor(em: EntityManager, rows: TrackedRow[], storeCurrency: string): Promise<FxRates> {
  const currencies = new Set([storeCurrency, ...rows.flatMap((row) => [row.currency, row.ownCurrency]).filter((code): code is string => !!code)]);
  return loadFxRates(em, currencies, today(), today());
}

function competitorOf(row: TrackedRow, fx: FxRates, storeCurrency: string): CompetitorRow {
  const own = inStoreCurrency(fx, row.ownPriceMinor, row.ownCurrency, storeCurrency);
  // A page that does not name its currency is taken to be in the own product's.
  const competitor = inStoreCurrency(fx, row.priceMinor, row.currency ?? row.ownCurrency, storeCurrency);
  return {
    id: row.id, url: row.url, domain: row.domain, cssSelector: row.cssSelector, alertThresholdPercent: row.alertThresholdPercent,
    alertOutOfStock: row.alertOutOfStock, emailAlerts: row.emailAlerts, status: row.status, errorReason: row.errorReason, errorDetail: row.errorDetail, errorStatus: row.errorStatus,
    priceMinor: row.priceMinor, currency: row.currency, availability: row.availability, method: row.method,
    priceInStoreCurrencyMinor: competitor, differencePercent: competitor === null ? null : differencePercent(competitor, own),
    lastCheckedAt: row.lastCheckedAt, nextCheckAt: row.nextCheckAt,
  };
}

const productKey = (row: Pick<TrackedRow, 'productId' | 'ownName'>) => (row.productId === null ? `manual:${row.ownName}` : `product:${row.productId}`);

export async function listTracked(em: EntityManager, store: StoreRef): Promise<PriceTrackerList> {
  const rows = await trackedRows(em, store.id);
  const fx = await fxFor(em, rows, store.currency);
  const products = new Map<string, TrackedProductRow>();
  for (const row of rows) {
    const key = productKey(row);
    let product = products.get(key);
    if (!product) {
      product = { key, name: row.ownName, productId: row.productId, ownPriceMinor: inStoreCurrency(fx, row.ownPriceMinor, row.ownCurrency, store.currency), competitors: [] };
      products.set(key, product);
    }
    product.competitors.push(competitorOf(row, fx, store.currency));
  }
  const [alerts] = await sqlRunner(em).rows<{ count: number }>(`select count(*)::int as count from price_alerts where store_id = $1 and acknowledged_at is null`, [store.id]);
  return { currency: store.currency, products: [...products.values()], unacknowledgedAlerts: alerts?.count ?? 0 };
}

export async function ownProductOptions(em: EntityManager, storeId: number) {
  const items = await sqlRunner(em).rows<{ id: number; title: string; priceMinor: number; currency: string }>(
    `select id::int as id, title, price_minor::float8 as "priceMinor", currency from products where store_id = $1 and active order by title, id limit 500`,
    [storeId],
  );
  return { items: items.map((item) => ({ ...item, priceMinor: Number(item.priceMinor) })) };
}

async function resolveOwn(em: EntityManager, storeId: number, own: OwnProductInput): Promise<{ productId: number | null; name: string; priceMinor: number | null }> {
  if ('productId' in own) {
    const [product] = await sqlRunner(em).rows<{ title: string }>(`select title from products where store_id = $1 and id = $2`, [storeId, own.productId]);
    if (!product) throw new AppError('NOT_FOUND', PRODUCT_NOT_FOUND_MESSAGE);
    return { productId: own.productId, name: product.title.slice(0, 200), priceMinor: null };
  }
  return { productId: null, name: own.name, priceMinor: own.priceMinor };
}

function checkSelector(selector: string | null | undefined): string | null {
  const trimmed = selector?.trim() || null;
  if (trimmed !== null && !isUsableSelector(trimmed)) throw new AppError('BAD_REQUEST', BAD_SELECTOR_MESSAGE, { fieldErrors: [{ field: 'cssSelector', message: BAD_SELECTOR_MESSAGE }] });
  return trimmed;
}

type AddSettings = Omit<Required<AddTrackedUrlInput>, 'url' | 'own'>;

function settingsOf(input: Omit<AddTrackedUrlInput, 'url' | 'own'>): AddSettings {
  return {
    cssSelector: checkSelector(input.cssSelector),
    alertThresholdPercent: input.alertThresholdPercent ?? DEFAULT_ALERT_THRESHOLD_PERCENT,
    alertOutOfStock: input.alertOutOfStock ?? true,
    emailAlerts: input.emailAlerts ?? false,
  };
}

async function insertTracked(em: EntityManager, storeId: number, url: string, own: { productId: number | null; name: string; priceMinor: number | null }, settings: AddSettings): Promise<string | null> {
  const [row] = await sqlRunner(em).rows<{ id: string }>(
    `insert into price_tracked_urls (store_id, url, domain, product_id, own_name, own_price_minor, css_selector, alert_threshold_percent, alert_out_of_stock, email_alerts)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (store_id, url) do nothing returning id::text as id`,
    [storeId, url, new URL(url).hostname.toLowerCase(), own.productId, own.name, own.priceMinor, settings.cssSelector, settings.alertThresholdPercent, settings.alertOutOfStock, settings.emailAlerts],
  );
  return row?.id ?? null;
}

/** Adds a competitor page and reads its price at once (the user sees the result in the table). */
export async function addTracked(em: EntityManager, store: StoreRef, input: AddTrackedUrlInput, options: CheckOptions): Promise<CompetitorRow> {
  const settings = settingsOf(input);
  const own = await resolveOwn(em, store.id, input.own);
  const url = new URL(input.url).href;
  const id = await insertTracked(em, store.id, url, own, settings);
  if (id === null) throw new AppError('CONFLICT', DUPLICATE_URL_MESSAGE, { fieldErrors: [{ field: 'url', message: DUPLICATE_URL_MESSAGE }] });
  return checkTracked(em, store, id, options);
}

export const PRICE_TRACKER_QUEUE = 'price-tracker.check-due';

/**
 * Saves every valid address at once, due for its first check, and asks the check job to take them now
 * (not only at its next 5-minute scan): 20 pages of one shop take minutes behind the domain pacer, so
 * the request does not wait for them. The table shows each new page as "checking" until its check lands.
 */
export async function bulkAddTracked(
  em: EntityManager,
  store: StoreRef,
  input: Omit<AddTrackedUrlInput, 'url'> & { urls: string[] },
  validate: (url: string) => string | null,
) {
  const settings = settingsOf(input);
  const own = await resolveOwn(em, store.id, input.own);
  const results: { url: string; outcome: 'added' | 'duplicate' | 'invalid'; message: string | null; id: string | null }[] = [];
  for (const line of input.urls.map((url) => url.trim()).filter((url) => url !== '')) {
    const problem = validate(line);
    if (problem) {
      results.push({ url: line, outcome: 'invalid', message: problem, id: null });
      continue;
    }
    const id = await insertTracked(em, store.id, new URL(line).href, own, settings);
    results.push(id === null ? { url: line, outcome: 'duplicate', message: DUPLICATE_URL_MESSAGE, id: null } : { url: line, outcome: 'added', message: null, id });
  }
  if (results.some((result) => result.outcome === 'added')) await sendIntegrationJob(PRICE_TRACKER_QUEUE, {});
  return { results };
}

export async function updateTracked(em: EntityManager, store: StoreRef, input: { id: string; cssSelector?: string | null; alertThresholdPercent?: number; alertOutOfStock?: boolean; emailAlerts?: boolean }): Promise<CompetitorRow> {
  const current = await trackedRow(em, store.id, input.id);
  const selector = input.cssSelector === undefined ? current.cssSelector : checkSelector(input.cssSelector);
  await sqlRunner(em).run(
    `update price_tracked_urls set css_selector = $3, alert_threshold_percent = $4, alert_out_of_stock = $5, email_alerts = $6 where store_id = $1 and id = $2::bigint`,
    [store.id, input.id, selector, input.alertThresholdPercent ?? current.alertThresholdPercent, input.alertOutOfStock ?? current.alertOutOfStock, input.emailAlerts ?? current.emailAlerts],
  );
  const row = await trackedRow(em, store.id, input.id);
  return competitorOf(row, await fxFor(em, [row], store.currency), store.currency);
}

export async function deleteTracked(em: EntityManager, storeId: number, id: string): Promise<{ id: string }> {
  await trackedRow(em, storeId, id);
  await sqlRunner(em).run(`delete from price_tracked_urls where store_id = $1 and id = $2::bigint`, [storeId, id]);
  return { id };
}

function errorReasonOf(error: unknown): { reason: PriceCheckError; detail: string; status: number | null } {
  if (error instanceof PageFetchError) return { reason: error.reason, detail: error.message, status: error.status ?? null };
  return { reason: 'network', detail: error instanceof Error ? error.message : String(error), status: null };
}

/**
 * Reads one tracked page now: records the check in the history, the latest result on the page's row,
 * and raises the alerts the result calls for. Returns the row as the table shows it.
 */
export async function checkTracked(em: EntityManager, store: StoreRef, id: string, options: CheckOptions): Promise<CompetitorRow> {
  const before = await trackedRow(em, store.id, id);
  const pacer = options.pacer ?? crawlPacer();
  let outcome: { ok: true; priceMinor: number; currency: string | null; availability: PriceAvailability; method: PriceExtractionMethod } | { ok: false; reason: PriceCheckError; detail: string; status: number | null };
  try {
    await pacer.wait(before.url);
    const page = await fetchPage(before.url, { respectRobots: options.respectRobots });
    const found = extractPrice(page.html, before.cssSelector);
    outcome = found
      ? { ok: true, ...found }
      : { ok: false, reason: 'no_price', status: null, detail: before.cssSelector ? 'No price found on the page, not even with the CSS selector.' : 'No price found on the page; set a CSS selector that points at it.' };
  } catch (error) {
    outcome = { ok: false, ...errorReasonOf(error) };
  }
  const nextCheck = `now() + interval '${PRICE_CHECK_INTERVAL_HOURS} hours'`;
  await em.transactional(async (tx) => {
    const sql = sqlRunner(tx);
    if (outcome.ok) {
      await sql.run(
        `update price_tracked_urls set status = 'ok', error_reason = null, error_detail = null, error_status = null, price_minor = $3, currency = $4, availability = $5, method = $6,
                last_checked_at = now(), next_check_at = ${nextCheck} where store_id = $1 and id = $2::bigint`,
        [store.id, id, outcome.priceMinor, outcome.currency, outcome.availability, outcome.method],
      );
      await sql.run(`insert into price_checks (store_id, tracked_url_id, price_minor, currency, availability, method) values ($1, $2::bigint, $3, $4, $5, $6)`, [store.id, id, outcome.priceMinor, outcome.currency, outcome.availability, outcome.method]);
    } else {
      // The last price found stays visible beside the error; the history records the failed check.
      await sql.run(`update price_tracked_urls set status = 'error', error_reason = $3, error_detail = $4, error_status = $5, last_checked_at = now(), next_check_at = ${nextCheck} where store_id = $1 and id = $2::bigint`, [store.id, id, outcome.reason, outcome.detail, outcome.status]);
      await sql.run(`insert into price_checks (store_id, tracked_url_id, error_reason) values ($1, $2::bigint, $3)`, [store.id, id, outcome.reason]);
    }
  });
  const after = await trackedRow(em, store.id, id);
  const fx = await fxFor(em, [after], store.currency);
  const row = competitorOf(after, fx, store.currency);
  if (outcome.ok) await raiseAlerts(em, store, before, after, row, options.log);
  return row;
}

/**
 * An alert when the competitor starts undercutting by more than the threshold (or changes its price
 * while undercutting), and when it goes out of stock: once per change, not once per check.
 */
async function raiseAlerts(em: EntityManager, store: StoreRef, before: TrackedRow, after: TrackedRow, row: CompetitorRow, log?: (message: string) => void): Promise<void> {
  const alerts: { kind: 'undercut' | 'out_of_stock' }[] = [];
  const priceChanged = before.priceMinor !== after.priceMinor || before.currency !== after.currency;
  if (undercuts(row.differencePercent, after.alertThresholdPercent) && (priceChanged || before.status !== 'ok')) alerts.push({ kind: 'undercut' });
  if (after.alertOutOfStock && after.availability === 'out_of_stock' && before.availability !== 'out_of_stock') alerts.push({ kind: 'out_of_stock' });
  if (alerts.length === 0) return;
  const ids: string[] = [];
  for (const alert of alerts) {
    const [inserted] = await sqlRunner(em).rows<{ id: string }>(
      `insert into price_alerts (store_id, tracked_url_id, kind, price_minor, currency, difference_percent) values ($1, $2::bigint, $3, $4, $5, $6) returning id::text as id`,
      [store.id, after.id, alert.kind, after.priceMinor, after.currency, row.differencePercent],
    );
    ids.push(inserted!.id);
  }
  if (after.emailAlerts) await sendPriceAlertEmail(em, store.id, (await listAlerts(em, store.id)).items.filter((item) => ids.includes(item.id)), log);
}

/** The scheduled checks: every page whose next check is due, oldest first, by the pacer and robots.txt. */
export async function checkDuePages(fork: () => EntityManager, options: { limit?: number; pacer?: DomainPacer; log?: (message: string) => void } = {}): Promise<number> {
  // Claimed before reading: another process's scan skips these rows, and a check that dies with its
  // process is due again in 30 minutes (a finished check sets the next one 6 hours ahead).
  const due = await sqlRunner(fork()).rows<{ storeId: number; id: string; currency: string; firstCheck: boolean }>(
    `with due as (
       select store_id, id from price_tracked_urls where next_check_at <= now() order by next_check_at limit $1 for update skip locked)
     update price_tracked_urls t set next_check_at = now() + interval '30 minutes'
       from due, stores s
      where t.store_id = due.store_id and t.id = due.id and s.id = t.store_id
     returning t.store_id as "storeId", t.id::text as id, s.currency, t.last_checked_at is null as "firstCheck"`,
    [options.limit ?? 100],
  );
  for (const page of due) {
    // A page's first check is the one its owner asked for when adding it (bulk add): it reads the page
    // as their browser would, like a single add; robots.txt binds the checks after it.
    await checkTracked(fork(), { id: page.storeId, currency: page.currency }, page.id, { respectRobots: !page.firstCheck, pacer: options.pacer, log: options.log });
  }
  return due.length;
}

export async function priceHistoryOf(em: EntityManager, store: StoreRef, key: string): Promise<PriceHistory> {
  const rows = (await trackedRows(em, store.id)).filter((row) => productKey(row) === key);
  if (rows.length === 0) throw new AppError('NOT_FOUND', TRACKED_URL_NOT_FOUND_MESSAGE);
  const checks = await sqlRunner(em).rows<{ trackedUrlId: string; at: string; priceMinor: number; currency: string | null }>(
    `select tracked_url_id::text as "trackedUrlId", to_char(checked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
            price_minor::float8 as "priceMinor", currency
       from price_checks where store_id = $1 and tracked_url_id = any($2::bigint[]) and price_minor is not null
      order by checked_at, id`,
    [store.id, rows.map((row) => row.id)],
  );
  const fx = await fxFor(em, rows, store.currency);
  const ownOf = rows[0]!;
  return {
    currency: store.currency,
    own: { name: ownOf.ownName, priceMinor: inStoreCurrency(fx, ownOf.ownPriceMinor, ownOf.ownCurrency, store.currency) },
    series: rows.map((row) => ({
      id: row.id,
      domain: row.domain,
      url: row.url,
      points: checks
        .filter((check) => check.trackedUrlId === row.id)
        .flatMap((check) => {
          const converted = inStoreCurrency(fx, Number(check.priceMinor), check.currency ?? row.ownCurrency, store.currency);
          return converted === null ? [] : [{ at: check.at, priceMinor: converted }];
        }),
    })),
  };
}

export async function listAlerts(em: EntityManager, storeId: number): Promise<{ items: PriceAlert[] }> {
  const items = await sqlRunner(em).rows<PriceAlert>(
    `select a.id::text as id, a.tracked_url_id::text as "trackedUrlId", t.url, t.domain, coalesce(p.title, t.own_name) as "productName", a.kind,
            a.price_minor::float8 as "priceMinor", a.currency, a.difference_percent::float8 as "differencePercent",
            to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
            to_char(a.acknowledged_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "acknowledgedAt"
       from price_alerts a
       join price_tracked_urls t on t.store_id = a.store_id and t.id = a.tracked_url_id
       left join products p on p.store_id = t.store_id and p.id = t.product_id
      where a.store_id = $1 order by a.created_at desc, a.id desc limit 100`,
    [storeId],
  );
  return { items: items.map((item) => ({ ...item, priceMinor: item.priceMinor === null ? null : Number(item.priceMinor), differencePercent: item.differencePercent === null ? null : Number(item.differencePercent) })) };
}

export async function acknowledgeAlert(em: EntityManager, storeId: number, id: string): Promise<{ id: string }> {
  const changed = /^\d{1,18}$/.test(id)
    ? await sqlRunner(em).run(`update price_alerts set acknowledged_at = coalesce(acknowledged_at, now()) where store_id = $1 and id = $2::bigint`, [storeId, id])
    : 0;
  if (changed === 0) throw new AppError('NOT_FOUND', 'Alert not found');
  return { id };
}

export async function priceTrackerCsv(em: EntityManager, store: StoreRef): Promise<{ filename: string; csv: string }> {
  const list = await listTracked(em, store);
  const money = (minor: number | null) => (minor === null ? null : (minor / 100).toFixed(2));
  const rows = list.products.flatMap((product) =>
    product.competitors.map((competitor) => [
      product.name, money(product.ownPriceMinor), competitor.url, money(competitor.priceMinor), competitor.currency, money(competitor.priceInStoreCurrencyMinor),
      competitor.differencePercent, competitor.availability, competitor.status, competitor.errorDetail, competitor.lastCheckedAt,
    ]),
  );
  return { filename: `price-tracker-${today()}.csv`, csv: csvDocument(['Product', `Own price (${store.currency})`, 'Competitor URL', 'Competitor price', 'Competitor currency', `Price in ${store.currency}`, 'Difference %', 'Availability', 'Status', 'Error', 'Last check'], rows) };
}
