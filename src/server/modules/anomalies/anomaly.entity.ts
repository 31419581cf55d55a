import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ANOMALY_METRICS, ANOMALY_SCOPE_LEVELS, ANOMALY_SEVERITIES, ANOMALY_STATES } from '../../../shared/anomalies.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/**
 * One anomaly the detection job found (README, "Anomaly insights"): at most one per store, metric,
 * scope and day (the unique key), so detection run again updates the figures and keeps the state a
 * user gave it: a resolved anomaly stays resolved.
 */
export const Anomaly = defineEntity({
  name: 'Anomaly',
  tableName: 'anomalies',
  properties: {
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    metric: p.enum(ANOMALY_METRICS),
    scopeLevel: p.enum(ANOMALY_SCOPE_LEVELS),
    /** 'store', 'channel:<key>' or 'campaign:<channel>:<campaign id>'. */
    scopeKey: p.string().length(200),
    channel: p.string().length(32).nullable(),
    campaignId: p.string().length(64).nullable(),
    scopeLabel: p.string().length(255),
    day: p.date(),
    intraday: p.boolean().default(false),
    /** Money in the store's currency (decimal), counts and ratios as they are. */
    detectedValue: p.double(),
    expectedValue: p.double(),
    percentChange: p.double().nullable(),
    robustZ: p.double(),
    severity: p.enum(ANOMALY_SEVERITIES),
    recommendationCode: p.string().length(64),
    recommendationParams: p.json<Record<string, string | number>>(),
    evidence: p.json<unknown[]>(),
    state: p.enum(ANOMALY_STATES).default('new'),
    stateChangedBy: () => p.manyToOne(User).nullable().deleteRule('set null'),
    stateChangedAt: p.datetime().nullable(),
    detectedAt: p.datetime(),
  },
  uniques: [{ properties: ['store', 'metric', 'scopeKey', 'day'] }],
  indexes: [{ properties: ['store', 'detectedAt'] }],
});

export type AnomalyEntity = InferEntity<typeof Anomaly>;

/** When detection last ran for a store (the panel's "checked at"). */
export const AnomalyCheck = defineEntity({
  name: 'AnomalyCheck',
  tableName: 'anomaly_checks',
  properties: {
    store: () => p.oneToOne(Store).primary().deleteRule('cascade'),
    checkedAt: p.datetime(),
    /** The newest settled day detection has judged. */
    lastSettledDay: p.date().nullable(),
  },
});

export type AnomalyCheckEntity = InferEntity<typeof AnomalyCheck>;
