import { z } from 'zod';

// The Meta comments manager (admin tool): what client and server say to each other.

export const COMMENT_PLATFORMS = ['facebook', 'instagram'] as const;
export const SENTIMENT_LABELS = ['positive', 'neutral', 'negative'] as const;
export const COMMENT_CATEGORIES = ['question', 'complaint', 'spam', 'praise', 'other'] as const;
export const COMMENT_LANGUAGES = ['en', 'es', 'fr', 'de', 'other'] as const;
export const COMMENT_ACTIONS = ['hide', 'unhide', 'delete', 'like'] as const;

export type CommentPlatform = (typeof COMMENT_PLATFORMS)[number];
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];
export type CommentCategory = (typeof COMMENT_CATEGORIES)[number];
export type CommentLanguage = (typeof COMMENT_LANGUAGES)[number];
export type CommentAction = (typeof COMMENT_ACTIONS)[number];

export const REPLY_MAX_LENGTH = 2000;
export const TEMPLATE_NAME_MAX_LENGTH = 80;

export const commentFilters = z.object({
  platform: z.enum(COMMENT_PLATFORMS).optional(),
  sentiment: z.enum(SENTIMENT_LABELS).optional(),
  category: z.enum(COMMENT_CATEGORIES).optional(),
  hidden: z.boolean().optional(),
  replied: z.boolean().optional(),
  search: z.string().trim().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(100),
});
export type CommentFilters = z.input<typeof commentFilters>;

export const commentRow = z.object({
  commentId: z.string(),
  platform: z.enum(COMMENT_PLATFORMS),
  postId: z.string(),
  postLink: z.string().nullable(),
  postText: z.string(),
  adId: z.string().nullable(),
  authorName: z.string(),
  message: z.string(),
  createdTime: z.string(),
  hidden: z.boolean(),
  liked: z.boolean(),
  replied: z.boolean(),
  parentId: z.string().nullable(),
  sentimentScore: z.number(),
  sentimentLabel: z.enum(SENTIMENT_LABELS),
  category: z.enum(COMMENT_CATEGORIES),
  language: z.enum(COMMENT_LANGUAGES),
});
export type CommentRow = z.infer<typeof commentRow>;

export const syncState = z.object({
  metaConnected: z.boolean(),
  lastSyncAt: z.string().nullable(),
  lastSyncError: z.string().nullable(),
  /** The sync failed because Meta refused the token: reconnect at /integrations. */
  reconnectNeeded: z.boolean(),
  comments: z.number().int(),
});
export type SyncState = z.infer<typeof syncState>;

export const commentRules = z.object({
  autoHideSpam: z.boolean(),
  autoHideProfanity: z.boolean(),
  notifyComplaints: z.boolean(),
});
export type CommentRules = z.infer<typeof commentRules>;

export const commentIds = z.array(z.string().min(1).max(100)).min(1).max(100);

export const replyInput = z.object({
  commentId: z.string().min(1).max(100),
  message: z.string().trim().min(1, 'Write a reply first').max(REPLY_MAX_LENGTH),
});

export const replyTemplate = z.object({ id: z.number().int(), name: z.string(), body: z.string() });
export type ReplyTemplate = z.infer<typeof replyTemplate>;
export const replyTemplateInput = z.object({
  name: z.string().trim().min(1, 'Give the template a name').max(TEMPLATE_NAME_MAX_LENGTH),
  body: z.string().trim().min(1, 'Write the template text').max(REPLY_MAX_LENGTH),
});

/** A template's text for one comment: {first_name} and {name} are the author's. */
export function fillTemplate(body: string, authorName: string): string {
  const firstName = authorName.trim().split(/\s+/)[0] ?? '';
  return body.replaceAll('{first_name}', firstName).replaceAll('{name}', authorName.trim());
}

export const actionResult = z.object({
  done: z.array(z.string()),
  failed: z.array(z.object({ commentId: z.string(), message: z.string() })),
});
export type ActionResult = z.infer<typeof actionResult>;
