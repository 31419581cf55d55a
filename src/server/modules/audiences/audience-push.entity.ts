import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { AUDIENCE_PLATFORMS, AUDIENCE_PUSH_STATUSES } from '../../../shared/audiences.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/**
 * One push of a customer segment to an e-mail platform as a list (Klaviyo) or a static segment of the
 * audience (Mailchimp). At most one push per store, platform and segment is queued or running (a
 * partial unique index): a second request while it runs gets that one. `cursor` counts the customers
 * whose chunk the platform confirmed, so a retried job resumes after them; `platformJobId` is a
 * Klaviyo import job sent and not yet seen complete (polled again, not sent twice).
 */
export const AudiencePush = defineEntity({
  name: 'AudiencePush',
  tableName: 'audience_pushes',
  properties: {
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    id: p.integer().primary().autoincrement(),
    platform: p.enum(AUDIENCE_PLATFORMS),
    segmentKey: p.string().length(64),
    /** The list / segment name at the platform: "StorePulse – <label>". */
    listName: p.string().length(200),
    /** The Klaviyo list id, or the Mailchimp audience id. */
    platformListId: p.string().length(64).nullable(),
    /** Mailchimp: the static segment's id. */
    platformSegmentId: p.string().length(64).nullable(),
    status: p.enum(AUDIENCE_PUSH_STATUSES).default('queued'),
    /** The customers (of this store) the push sends, fixed when it is requested. */
    customerIds: p.json<number[]>(),
    total: p.integer().default(0),
    done: p.integer().default(0),
    cursor: p.integer().default(0),
    platformJobId: p.string().length(64).nullable(),
    attempts: p.smallint().default(0),
    error: p.text().nullable(),
    requestedBy: () => p.manyToOne(User).deleteRule('set null').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['store', 'platform', 'segmentKey', 'createdAt'] }],
});
export type AudiencePushEntity = InferEntity<typeof AudiencePush>;
