import type { EntityManager } from '@mikro-orm/postgresql';
import { EXPECTED_ORDERS_DAYS } from '../../../shared/loyalty.ts';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import type { JobDefinition } from '../../jobs/queues.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { fitStoreModel, holdout, scoreCustomers, type StoreModel } from './scoring.ts';
import { customerHistories, dayNumber, lastOrderDay, seasonalIndexAt, storeDailyOrders } from './summaries.ts';

// The loyalty job (pg-boss, jobs/queues.ts): a store's customer scores recomputed from its orders
// after each completed store-platform sync (sync-runner.ts sends the store's job) and for every
// store nightly. Idempotent: the store's rows are replaced in one transaction, so a reader sees the
// old scores or the new ones, never half a store; the same orders give the same rows.

export const LOYALTY_QUEUE = 'loyalty.scores';

/**
 * A store's recomputes after syncs are at most one per this many seconds: a burst of syncs (one per
 * connected platform, a backfill's runs) gives one recompute at once and one at the start of the next
 * slot, which reads every order the burst brought.
 */
export const LOYALTY_DEBOUNCE_SECONDS = 300;

/** After a store sync: the store's scores recomputed, debounced (pg-boss singletonNextSlot). */
export function queueLoyaltyScores(storeId: number): Promise<boolean> {
  return sendIntegrationJob(LOYALTY_QUEUE, { storeId }, { singletonKey: `loyalty:${storeId}`, singletonSeconds: LOYALTY_DEBOUNCE_SECONDS, singletonNextSlot: true });
}

export interface LoyaltyRunResult {
  storeId: number;
  model: StoreModel['model'];
  customers: number;
  holdout: { modelMae: number; baselineMae: number; customers: number } | null;
}

const WRITE_CHUNK = 5_000;

/** Recomputes one store's loyalty as of `now` (the store's day in its time zone is the end of observation). */
export async function recomputeLoyalty(em: EntityManager, storeId: number, now: Date = new Date()): Promise<LoyaltyRunResult | null> {
  const q = sqlRunner(em);
  const [store] = await q.rows<{ id: number; currency: string; timezone: string }>(`select id, currency, timezone from stores where id = $1`, [storeId]);
  if (!store) return null;
  const today = dayInZone(now, store.timezone);
  const { histories } = await customerHistories(em, store, today);
  const endDay = dayNumber(today);
  // One read of the store's orders per day serves both seasonal indexes (today's and the holdout's cut-off).
  const daily = await storeDailyOrders(em, store.id, today);
  const model = fitStoreModel(histories, endDay, seasonalIndexAt(daily, today, EXPECTED_ORDERS_DAYS));
  const scores = scoreCustomers(histories, endDay, model);

  // The holdout: fitted on the orders up to 90 days before the last one, scored on those 90 days.
  let measured: LoyaltyRunResult['holdout'] = null;
  const last = model.model === 'bgnbd' ? await lastOrderDay(em, store.id) : null;
  if (last) {
    const cut = addDays(last, -EXPECTED_ORDERS_DAYS);
    const before = await customerHistories(em, store, cut, EXPECTED_ORDERS_DAYS);
    const result = holdout(before.histories, before.laterDays, dayNumber(cut), EXPECTED_ORDERS_DAYS, seasonalIndexAt(daily, cut, EXPECTED_ORDERS_DAYS));
    // Stored and shown: the errors of the median forecasts, each method's forecast with the least expected absolute error (README, "Holdout").
    if (result) measured = { modelMae: result.modelMedianMae, baselineMae: result.baselineMedianMae, customers: result.customers };
  }

  const parameters = model.bgnbd ? { ...model.bgnbd, ...(model.gammaGamma ?? {}), ...(model.seasonalIndex === null ? {} : { seasonalIndex90d: model.seasonalIndex }) } : null;
  await em.transactional(async (tx) => {
    const t = sqlRunner(tx);
    // Serialises two runs for the same store (a sync's and the nightly one).
    await t.run(`select pg_advisory_xact_lock(hashtext('loyalty'), $1)`, [store.id]);
    await t.run(`delete from customer_loyalty where store_id = $1`, [store.id]);
    for (let start = 0; start < scores.length; start += WRITE_CHUNK) {
      const chunk = scores.slice(start, start + WRITE_CHUNK);
      const chunkHistories = histories.slice(start, start + WRITE_CHUNK);
      await t.run(
        `insert into customer_loyalty (store_id, customer_id, orders, spent_minor, first_order_at, last_order_at, repeat_orders, recency_days, age_days,
                                       r, f, m, segment, p_alive, churn_risk, expected_orders_90d, predicted_value_12m_minor, value_percentile, loyalty_score, computed_at)
         select $1, k.* , $19::timestamptz
           from unnest($2::bigint[], $3::int[], $4::bigint[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::int[], $9::int[],
                       $10::smallint[], $11::smallint[], $12::smallint[], $13::text[], $14::float8[], $15::float8[], $16::float8[], $17::bigint[], $18::float8[], $20::smallint[]) as k`,
        [
          store.id,
          chunk.map((s) => s.customerId),
          chunkHistories.map((h) => h.orders),
          chunkHistories.map((h) => h.spentMinor),
          chunkHistories.map((h) => h.firstOrderAt.toISOString()),
          chunkHistories.map((h) => h.lastOrderAt.toISOString()),
          chunk.map((s) => s.repeatOrders),
          chunk.map((s) => s.recencyDays),
          chunk.map((s) => s.ageDays),
          chunk.map((s) => s.r),
          chunk.map((s) => s.f),
          chunk.map((s) => s.m),
          chunk.map((s) => s.segment),
          chunk.map((s) => s.pAlive),
          chunk.map((s) => s.churnRisk),
          chunk.map((s) => s.expectedOrders90d),
          chunk.map((s) => s.predictedValue12mMinor),
          chunk.map((s) => s.valuePercentile),
          now.toISOString(),
          chunk.map((s) => s.loyaltyScore),
        ],
      );
    }
    await t.run(
      `insert into loyalty_models (store_id, model, fallback_reason, parameters, customers, history_days, currency, holdout_mae, baseline_mae, holdout_customers, fitted_at)
       values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11)
       on conflict (store_id) do update set model = excluded.model, fallback_reason = excluded.fallback_reason, parameters = excluded.parameters,
         customers = excluded.customers, history_days = excluded.history_days, currency = excluded.currency, holdout_mae = excluded.holdout_mae,
         baseline_mae = excluded.baseline_mae, holdout_customers = excluded.holdout_customers, fitted_at = excluded.fitted_at`,
      [store.id, model.model, model.fallbackReason, parameters === null ? null : JSON.stringify(parameters), model.customers, model.historyDays, store.currency,
        measured?.modelMae ?? null, measured?.baselineMae ?? null, measured?.customers ?? null, now.toISOString()],
    );
  });
  return { storeId: store.id, model: model.model, customers: scores.length, holdout: measured };
}

/** Every store that has customers, one after the other (the nightly run). */
export async function recomputeAllLoyalty(fork: () => EntityManager, log: (message: string) => void): Promise<number> {
  const stores = await sqlRunner(fork()).rows<{ id: number }>(`select s.id from stores s where exists (select 1 from customers c where c.store_id = s.id) order by s.id`);
  let done = 0;
  for (const { id } of stores) {
    try {
      await recomputeLoyalty(fork(), id);
      done++;
    } catch (error) {
      log(`Loyalty of store ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return done;
}

export const LOYALTY_JOB: JobDefinition = {
  queue: LOYALTY_QUEUE,
  // Nightly at 02:30 UTC; a sync sends { storeId } for its store.
  cron: '30 2 * * *',
  retryLimit: 2,
  retryDelaySeconds: 60,
  expireInSeconds: 60 * 60,
  deleteAfterSeconds: 24 * 3600,
  handle: async (context, data) => {
    const storeId = (data as { storeId?: unknown } | null)?.storeId;
    if (typeof storeId === 'number') return recomputeLoyalty(context.em.fork(), storeId);
    return recomputeAllLoyalty(() => context.em.fork(), context.log);
  },
};
