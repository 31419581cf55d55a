import { z } from 'zod';

// Pushing a customer segment to Klaviyo (a list) or Mailchimp (a static segment of the audience):
// the shapes of audiences.push and audiences.status (server/modules/audiences).

export const AUDIENCE_PLATFORMS = ['klaviyo', 'mailchimp'] as const;
export type AudiencePlatform = (typeof AUDIENCE_PLATFORMS)[number];
export const AUDIENCE_PUSH_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type AudiencePushStatus = (typeof AUDIENCE_PUSH_STATUSES)[number];

/** A segment key as the loyalty module names segments ("at_risk", "champions", ...). */
export const segmentKey = z.string().trim().min(1).max(64).regex(/^[a-z0-9_-]+$/, 'A segment key has lower-case letters, digits, _ and - only');

export const audiencePushInput = z.object({
  platform: z.enum(AUDIENCE_PLATFORMS),
  segment: segmentKey,
  /** What the user sees: the list is named "StorePulse – <label>". */
  label: z.string().trim().min(1).max(80),
  /** Explicit customers of the active store (others are ignored); absent: the segment's current customers. */
  customerIds: z.array(z.number().int().positive()).max(200_000).optional(),
});
export type AudiencePushInput = z.infer<typeof audiencePushInput>;

export const audiencePushOutput = z.object({
  id: z.number().int(),
  platform: z.enum(AUDIENCE_PLATFORMS),
  segment: z.string(),
  listName: z.string(),
  status: z.enum(AUDIENCE_PUSH_STATUSES),
  total: z.number().int(),
  done: z.number().int(),
  /** done / total, 0..1 (1 for an empty segment once done). */
  progress: z.number(),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type AudiencePushView = z.infer<typeof audiencePushOutput>;

export const audienceStatusInput = z.object({ segment: segmentKey.optional() }).optional();
export const audienceStatusOutput = z.object({ pushes: z.array(audiencePushOutput) });
