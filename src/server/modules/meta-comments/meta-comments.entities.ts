import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { COMMENT_CATEGORIES, COMMENT_LANGUAGES, COMMENT_PLATFORMS, SENTIMENT_LABELS } from '../../../shared/meta-comments.ts';
import { Store } from '../stores/store.entity.ts';

/** A comment on one of the store's Facebook Page posts, ads' posts or Instagram media, with its labels. */
export const MetaComment = defineEntity({
  name: 'MetaComment',
  tableName: 'meta_comments',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    commentId: p.string().length(100).primary(),
    platform: p.enum(COMMENT_PLATFORMS),
    /** The Page or Instagram account id the comment arrived through (finds the Page token for actions). */
    accountId: p.string().length(100),
    postId: p.string().length(100),
    postLink: p.text().nullable(),
    postText: p.text().default(''),
    adId: p.string().length(100).nullable(),
    authorName: p.string().length(255),
    message: p.text(),
    createdTime: p.datetime(),
    hidden: p.boolean().default(false),
    liked: p.boolean().default(false),
    replied: p.boolean().default(false),
    deleted: p.boolean().default(false),
    parentId: p.string().length(100).nullable(),
    sentimentScore: p.double(),
    sentimentLabel: p.enum(SENTIMENT_LABELS),
    category: p.enum(COMMENT_CATEGORIES),
    language: p.enum(COMMENT_LANGUAGES),
    /** Set when a complaint notification was raised, so a re-sync does not raise it again. */
    notifiedAt: p.datetime().nullable(),
    syncedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  primaryKeys: ['store', 'commentId'],
  indexes: [{ name: 'meta_comments_store_created_index', properties: ['store', 'createdTime'] }],
});
export type MetaCommentEntity = InferEntity<typeof MetaComment>;

/** A store's comment rules and its last sync. */
export const MetaCommentSettings = defineEntity({
  name: 'MetaCommentSettings',
  tableName: 'meta_comment_settings',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    autoHideSpam: p.boolean().default(false),
    autoHideProfanity: p.boolean().default(false),
    notifyComplaints: p.boolean().default(true),
    /** The Page and Instagram account ids of the last sync: a webhook for one of them belongs to this store. */
    accountIds: p.json<string[]>().default('[]'),
    lastSyncAt: p.datetime().nullable(),
    lastSyncError: p.text().nullable(),
    reconnectNeeded: p.boolean().default(false),
  },
});
export type MetaCommentSettingsEntity = InferEntity<typeof MetaCommentSettings>;

/** A reply template of a store ({first_name} and {name} filled per comment). */
export const MetaReplyTemplate = defineEntity({
  name: 'MetaReplyTemplate',
  tableName: 'meta_reply_templates',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    name: p.string().length(80),
    body: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'meta_reply_templates_store_index', properties: ['store', 'id'] }],
});
export type MetaReplyTemplateEntity = InferEntity<typeof MetaReplyTemplate>;

/** A webhook delivery already processed (SHA-256 of its raw body): Meta retries, we apply once. */
export const MetaWebhookDelivery = defineEntity({
  name: 'MetaWebhookDelivery',
  tableName: 'meta_webhook_deliveries',
  properties: {
    digest: p.string().length(64).primary(),
    receivedAt: p.datetime().onCreate(() => new Date()),
  },
});
