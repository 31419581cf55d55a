// An anomaly row as the detection job writes it (table `anomalies`), for tests and e2e journeys that
// need one without running detection. Plain SQL with bind parameters: works with a pg.Client or
// the app's sqlRunner.

export interface AnomalyRowInput {
  metric?: string;
  scopeLevel?: 'store' | 'channel' | 'campaign';
  scopeChannel?: string | null;
  scopeCampaignId?: string | null;
  scopeLabel?: string;
  day: string;
  detectedValue: number;
  expectedValue: number;
  severity?: 'low' | 'medium' | 'high';
  recommendationCode?: string;
  recommendationParams?: Record<string, string | number>;
  state?: 'new' | 'acknowledged' | 'resolved';
  detectedAt?: string;
}

/** A flat series around the expected value for the 14 days up to `day`, with the anomaly on its last day. */
export function evidenceFor(day: string, detected: number, expected: number) {
  const end = Date.parse(`${day}T00:00:00Z`);
  return Array.from({ length: 14 }, (_, index) => {
    const at = new Date(end - (13 - index) * 86_400_000).toISOString().slice(0, 10);
    const value = index === 13 ? detected : expected * (1 + ((index % 3) - 1) * 0.04);
    return { at, value, expected, lower: expected * 0.85, upper: expected * 1.15 };
  });
}

export const INSERT_ANOMALY_SQL = `
  insert into anomalies (store_id, metric, scope_level, channel, campaign_id, scope_key, scope_label, day, intraday,
    detected_value, expected_value, percent_change, robust_z, severity, recommendation_code, recommendation_params, evidence, state, detected_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8::date, false, $9, $10, $11, 6, $12, $13, $14::jsonb, $15::jsonb, $16, coalesce($17::timestamptz, now()))
  returning id::text as id`;

export function insertAnomalyParams(storeId: number, row: AnomalyRowInput): unknown[] {
  const level = row.scopeLevel ?? 'store';
  const percent = row.expectedValue === 0 ? null : ((row.detectedValue - row.expectedValue) / row.expectedValue) * 100;
  return [
    storeId, row.metric ?? 'net_sales', level, row.scopeChannel ?? null, row.scopeCampaignId ?? null,
    `${level}:${row.scopeChannel ?? ''}:${row.scopeCampaignId ?? ''}`, row.scopeLabel ?? 'Test Shop', row.day,
    row.detectedValue, row.expectedValue, percent, row.severity ?? 'high', row.recommendationCode ?? 'check_bids_budget',
    JSON.stringify(row.recommendationParams ?? { scope: row.scopeLabel ?? 'Test Shop', change: percent === null ? '—' : String(Math.abs(Math.round(percent))) }), JSON.stringify(evidenceFor(row.day, row.detectedValue, row.expectedValue)),
    row.state ?? 'new', row.detectedAt ?? null,
  ];
}
