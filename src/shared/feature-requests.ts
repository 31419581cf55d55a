import { z } from 'zod';

export const FEATURE_REQUEST_STATUSES = ['open', 'planned', 'in_progress', 'done', 'declined'] as const;
export type FeatureRequestStatus = (typeof FEATURE_REQUEST_STATUSES)[number];

export const FEATURE_REQUEST_SORTS = ['top', 'new'] as const;
export type FeatureRequestSort = (typeof FEATURE_REQUEST_SORTS)[number];

export const FEATURE_TITLE_MIN_LENGTH = 5;
export const FEATURE_TITLE_MAX_LENGTH = 120;
export const FEATURE_DESCRIPTION_MIN_LENGTH = 10;
export const FEATURE_DESCRIPTION_MAX_LENGTH = 5000;

export const featureRequestTitleSchema = z
  .string({ error: 'Title is required' })
  .trim()
  .min(1, 'Title is required')
  .min(FEATURE_TITLE_MIN_LENGTH, `Title must be at least ${FEATURE_TITLE_MIN_LENGTH} characters`)
  .max(FEATURE_TITLE_MAX_LENGTH, `Title must be at most ${FEATURE_TITLE_MAX_LENGTH} characters`);

export const featureRequestDescriptionSchema = z
  .string({ error: 'Description is required' })
  .trim()
  .min(1, 'Description is required')
  .min(FEATURE_DESCRIPTION_MIN_LENGTH, `Description must be at least ${FEATURE_DESCRIPTION_MIN_LENGTH} characters`)
  .max(
    FEATURE_DESCRIPTION_MAX_LENGTH,
    `Description must be at most ${FEATURE_DESCRIPTION_MAX_LENGTH.toLocaleString('en-GB')} characters`,
  );

export const createFeatureRequestInput = z.object({
  title: featureRequestTitleSchema,
  description: featureRequestDescriptionSchema,
});
export type CreateFeatureRequestInput = z.infer<typeof createFeatureRequestInput>;

export const featureRequestStatusSchema = z.enum(FEATURE_REQUEST_STATUSES, {
  error: `Status must be one of ${FEATURE_REQUEST_STATUSES.join(', ')}`,
});

export const featureRequestIdSchema = z.coerce
  .number({ error: 'Feature request id must be a number' })
  .int('Feature request id must be a whole number')
  .positive('Feature request id must be a positive number');

export const listFeatureRequestsInput = z
  .object({
    status: featureRequestStatusSchema.optional(),
    sort: z.enum(FEATURE_REQUEST_SORTS, { error: 'Sort must be top or new' }).default('top'),
  })
  .prefault({});

export const featureRequestOutput = z.object({
  id: z.number(),
  title: z.string(),
  description: z.string(),
  status: z.enum(FEATURE_REQUEST_STATUSES),
  createdAt: z.string(),
  /** The author's username. */
  author: z.string(),
  votes: z.number(),
  hasVoted: z.boolean(),
  isMine: z.boolean(),
});
export type FeatureRequestDto = z.infer<typeof featureRequestOutput>;

export const FEATURE_REQUEST_NOT_FOUND_MESSAGE = 'Feature request not found';
