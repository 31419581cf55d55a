import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { User } from '../users/user.entity.ts';

export const FEATURE_REQUEST_STATUSES = ['open', 'planned', 'in_progress', 'done', 'declined'] as const;

export const FeatureRequest = defineEntity({
  name: 'FeatureRequest',
  tableName: 'feature_requests',
  properties: {
    id: p.integer().primary().autoincrement(),
    author: () => p.manyToOne(User).deleteRule('cascade'),
    title: p.string().length(120),
    description: p.text(),
    status: p.enum(FEATURE_REQUEST_STATUSES).default('open'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['status', 'createdAt'] }],
});

export type FeatureRequestEntity = InferEntity<typeof FeatureRequest>;

/** One user's vote for one request. */
export const FeatureRequestVote = defineEntity({
  name: 'FeatureRequestVote',
  tableName: 'feature_request_votes',
  properties: {
    featureRequest: () => p.manyToOne(FeatureRequest).primary().deleteRule('cascade'),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type FeatureRequestVoteEntity = InferEntity<typeof FeatureRequestVote>;
