import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { COMPARISONS } from '../../../shared/commerce.ts';
import { RANGE_PRESETS } from '../../../shared/date-ranges.ts';
import { REPORT_DIMENSIONS, REPORT_GRANULARITIES, REPORT_SCHEDULES } from '../../../shared/reports.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/**
 * A report a user saved: its definition (metrics x dimension x range x granularity, comparison) and
 * an optional e-mail schedule. The range is a preset (resolved on every run) or fixed days.
 */
export const SavedReport = defineEntity({
  name: 'SavedReport',
  tableName: 'saved_reports',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.bigint('number').primary().autoincrement(),
    name: p.string().length(120),
    metrics: p.array(),
    dimension: p.enum(REPORT_DIMENSIONS),
    rangePreset: p.enum(RANGE_PRESETS).nullable(),
    rangeFrom: p.date().nullable(),
    rangeTo: p.date().nullable(),
    granularity: p.enum(REPORT_GRANULARITIES).default('total'),
    compare: p.enum(COMPARISONS).default('none'),
    schedule: p.enum(REPORT_SCHEDULES).default('none'),
    recipients: p.array().default([]),
    /** When the schedule last changed: occurrences before it are not owed. */
    scheduledSince: p.datetime().nullable(),
    /** The occurrence last delivered; a retried or repeated job never sends it again. */
    lastSentAt: p.datetime().nullable(),
    createdBy: () => p.manyToOne(User).nullable().deleteRule('set null'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  primaryKeys: ['store', 'id'],
  indexes: [{ properties: ['store', 'schedule'] }],
});

export type SavedReportEntity = InferEntity<typeof SavedReport>;
