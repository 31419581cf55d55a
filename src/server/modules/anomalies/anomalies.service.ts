import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnomalyItem, AnomalyList } from '../../../shared/anomalies.ts';
import { AppError } from '../../errors.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

// The anomalies of a store as the dashboard's panel and GET /api/anomalies read them, and their
// states (README, "Anomaly insights"). The detection job writes the rows; this module only reads
// them and records who acknowledged or resolved one, and when.

export const ANOMALY_NOT_FOUND_MESSAGE = 'Anomaly not found';

interface AnomalyRow {
  id: string;
  metric: AnomalyItem['metric'];
  scopeLevel: AnomalyItem['scope']['level'];
  scopeChannel: string | null;
  scopeCampaignId: string | null;
  scopeLabel: string;
  day: string;
  intraday: boolean;
  detectedValue: number;
  expectedValue: number;
  percentChange: number | null;
  severity: AnomalyItem['severity'];
  recommendationCode: string;
  recommendationParams: Record<string, string | number>;
  evidence: AnomalyItem['evidence'];
  state: AnomalyItem['state'];
  stateChangedBy: string | null;
  stateChangedAt: string | null;
  detectedAt: string;
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

const COLUMNS = `
  id::text as "id", metric, scope_level as "scopeLevel", scope_channel as "scopeChannel", scope_campaign_id as "scopeCampaignId",
  scope_label as "scopeLabel", to_char(day, 'YYYY-MM-DD') as "day", intraday, detected_value as "detectedValue",
  expected_value as "expectedValue", percent_change as "percentChange", severity, recommendation_code as "recommendationCode",
  recommendation_params as "recommendationParams", evidence, state, state_changed_by::text as "stateChangedBy",
  to_char(state_changed_at at time zone 'UTC', ${ISO}) as "stateChangedAt", to_char(detected_at at time zone 'UTC', ${ISO}) as "detectedAt"`;

/** Newest day first; within a day the most severe first, then the latest detected. */
const ORDER = `order by day desc, case severity when 'high' then 0 when 'medium' then 1 else 2 end, detected_at desc, id desc`;

function itemOf(row: AnomalyRow): AnomalyItem {
  return {
    id: row.id,
    metric: row.metric,
    scope: { level: row.scopeLevel, channel: row.scopeChannel, campaignId: row.scopeCampaignId, label: row.scopeLabel },
    day: row.day,
    intraday: row.intraday,
    detectedValue: row.detectedValue,
    expectedValue: row.expectedValue,
    percentChange: row.percentChange,
    severity: row.severity,
    recommendation: { code: row.recommendationCode, params: row.recommendationParams ?? {} },
    evidence: row.evidence ?? [],
    state: row.state,
    detectedAt: row.detectedAt,
    stateChangedBy: row.stateChangedBy,
    stateChangedAt: row.stateChangedAt,
  };
}

export async function listAnomalies(em: EntityManager, store: StoreEntity, options: { includeResolved: boolean }): Promise<AnomalyList> {
  const sql = sqlRunner(em);
  const rows = await sql.rows<AnomalyRow>(
    `select ${COLUMNS} from anomalies where store_id = $1 and ($2 or state <> 'resolved') ${ORDER} limit 200`,
    [store.id, options.includeResolved],
  );
  const [checked] = await sql.rows<{ checkedAt: string | null }>(
    `select to_char(max(detected_at) at time zone 'UTC', ${ISO}) as "checkedAt" from anomalies where store_id = $1`,
    [store.id],
  );
  const items = rows.map(itemOf);
  return { status: items.some((item) => item.state !== 'resolved') ? 'detected' : 'normal', items, checkedAt: checked?.checkedAt ?? null };
}

export async function getAnomaly(em: EntityManager, store: StoreEntity, id: string): Promise<AnomalyItem> {
  if (!/^\d{1,18}$/.test(id)) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  const [row] = await sqlRunner(em).rows<AnomalyRow>(`select ${COLUMNS} from anomalies where store_id = $1 and id = $2`, [store.id, id]);
  if (!row) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  return itemOf(row);
}

/**
 * new -> acknowledged, new/acknowledged -> resolved. Acknowledging a resolved anomaly leaves it
 * resolved (a late click from another tab must not bring it back).
 */
export async function setAnomalyState(em: EntityManager, store: StoreEntity, userId: number, id: string, state: 'acknowledged' | 'resolved'): Promise<AnomalyItem> {
  if (!/^\d{1,18}$/.test(id)) throw new AppError('NOT_FOUND', ANOMALY_NOT_FOUND_MESSAGE);
  const from = state === 'acknowledged' ? ['new'] : ['new', 'acknowledged'];
  await sqlRunner(em).run(
    `update anomalies set state = $3, state_changed_by = $4, state_changed_at = now() where store_id = $1 and id = $2 and state = any($5::text[])`,
    [store.id, id, state, userId, from],
  );
  return getAnomaly(em, store, id);
}
