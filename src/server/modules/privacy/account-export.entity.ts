import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ACCOUNT_EXPORT_STATUSES } from '../../../shared/privacy.ts';
import { User } from '../users/user.entity.ts';

/** A user's export of all their data (account-export.ts): built by a job, downloadable until `expiresAt`. */
export const AccountExport = defineEntity({
  name: 'AccountExport',
  tableName: 'account_exports',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    status: p.enum(ACCOUNT_EXPORT_STATUSES).default('queued'),
    fileName: p.string().length(128).nullable(),
    sizeBytes: p.bigint('number').default(0),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    finishedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['user', 'id'] }],
});
export type AccountExportEntity = InferEntity<typeof AccountExport>;
